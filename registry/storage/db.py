"""Engines and sessions: the only place that knows SQLite and PostgreSQL behave differently.

Writers must be serialized for ids and versions to stay unique and monotonic. On PostgreSQL the repository
locks the ``registry_state`` row; on SQLite a write transaction starts with ``BEGIN IMMEDIATE`` (taking the
database write lock up front, so two worker processes never deadlock upgrading a read lock), the journal is
WAL (readers never block the writer) and a busy timeout makes waiting writers queue instead of failing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

WRITE_OPTION = "registry_write"
SQLITE_BUSY_TIMEOUT_MS = 30_000
#: Seconds to wait for a PostgreSQL connection. A database host that vanished from the network (rather
#: than refusing connections) would otherwise hold each request for minutes of TCP retries, until gunicorn
#: kills the worker; with a bound, requests answer 50001 and /health 503 while it is away.
PG_CONNECT_TIMEOUT_S = 5


def is_sqlite(url: str) -> bool:
    """True for ``sqlite://`` URLs (any driver)."""
    return make_url(url).get_backend_name() == "sqlite"


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine configured for several processes sharing one database."""
    if not is_sqlite(url):
        kwargs.setdefault("pool_pre_ping", True)
        if "connect_timeout" not in make_url(url).query:  # the URL's own setting wins
            connect_args = kwargs.setdefault("connect_args", {})
            connect_args.setdefault("connect_timeout", PG_CONNECT_TIMEOUT_S)
        if "poolclass" not in kwargs:
            kwargs.setdefault("pool_size", 5)
            kwargs.setdefault("max_overflow", 10)
        return create_engine(url, **kwargs)

    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy, not pysqlite, decide when transactions begin (see _on_begin).
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        if make_url(url).database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        immediate = conn.get_execution_options().get(WRITE_OPTION, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


class Database:
    """An engine plus its write-flavoured twin; sessions come from here, never from module globals."""

    def __init__(self, url: str, **engine_kwargs: Any) -> None:
        self.url = url
        self.engine = make_engine(url, **engine_kwargs)
        self.write_engine = self.engine.execution_options(**{WRITE_OPTION: True})

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A short read-only transaction."""
        with Session(self.engine, expire_on_commit=False) as session, session.begin():
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A write transaction; committed when the block ends without an exception."""
        with Session(self.write_engine, expire_on_commit=False) as session, session.begin():
            yield session

    def dispose(self) -> None:
        """Closes pooled connections (after fork, and at shutdown)."""
        self.engine.dispose()
