"""Alembic driven from code, so ``registry db upgrade`` works without an alembic.ini in the working dir."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import URL
from sqlalchemy.exc import SQLAlchemyError

from registry.storage.db import Database


def migrations_dir() -> Path:
    """The ``migrations`` directory: next to the package in a checkout, or installed as a package."""
    beside = Path(__file__).resolve().parents[2] / "migrations"
    if (beside / "env.py").is_file():
        return beside
    spec = importlib.util.find_spec("migrations")
    if spec is not None and spec.submodule_search_locations:
        found = Path(next(iter(spec.submodule_search_locations)))
        if (found / "env.py").is_file():
            return found
    raise RuntimeError("the registry's Alembic migrations directory is not installed")


def alembic_config(database_url: str) -> Config:
    """An Alembic config pointing at our scripts and at ``database_url``."""
    cfg = Config(str(migrations_dir() / "alembic.ini"))
    cfg.set_main_option("script_location", str(migrations_dir()))
    cfg.attributes["database_url"] = database_url
    return cfg


def upgrade(database_url: str, revision: str = "head") -> None:
    """Brings the database to ``revision``; safe to run from several processes at once."""
    command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str) -> None:
    """Takes the database back to ``revision`` (``base`` empties it)."""
    command.downgrade(alembic_config(database_url), revision)


def current_revision(database: Database) -> str | None:
    """The revision the database is at, None when it has never been migrated."""
    with database.engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head_revision() -> str | None:
    """The newest revision shipped with this code."""
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def upgrade_if_empty(database_url: str) -> bool:
    """Creates the schema in a never-migrated database; refuses to guess about an outdated one.

    Returns True when it migrated. An existing database behind the code's head must be upgraded on
    purpose (``registry db upgrade``), because an upgrade may be something an operator schedules.
    """
    database = Database(database_url)
    try:
        current = current_revision(database)
    finally:
        database.dispose()
    if current is None:
        upgrade(database_url)
        return True
    if current != head_revision():
        raise RuntimeError(
            f"The registry database is at revision {current}, the code expects {head_revision()}: "
            "run `registry db upgrade`."
        )
    return False


class NotReady(RuntimeError):
    """The database cannot be used by a command yet; the message says which command to run."""


def missing_sqlite_file(url: URL) -> bool:
    """Whether `url` names a SQLite database file that does not exist (SQLite would make it, empty)."""
    path = url.database
    if url.get_backend_name() != "sqlite" or not path or path == ":memory:":
        return False
    return not Path(path).exists()


def require_current(database: Database) -> None:
    """Raises :class:`NotReady` unless the database is at the code's head revision.

    For the commands that read or write the registry's tables outside ``registry serve`` (``registry
    users``, ``registry export``): they never migrate a database themselves (a mistyped URL would
    otherwise create a new registry), they say what to run instead of failing on a missing table.
    """
    where = database.engine.url.render_as_string(hide_password=True)
    if missing_sqlite_file(database.engine.url):  # opening it would leave an empty file there
        raise NotReady(
            f"there is no registry database at {where}: check the path, or run `registry db upgrade` "
            "first to make one there (with the same --database-url)"
        )
    try:
        current = current_revision(database)
    except SQLAlchemyError as exc:
        reason = " ".join(str(getattr(exc, "orig", None) or exc).split())
        raise NotReady(f"cannot open the registry database {where}: {reason}") from None
    head = head_revision()
    if current is None:
        raise NotReady(
            f"the registry database {where} has no tables yet: run `registry db upgrade` first "
            "(with the same --database-url)"
        )
    if current != head:
        raise NotReady(
            f"the registry database {where} is at revision {current}, this registry expects {head}: "
            "run `registry db upgrade` first"
        )
