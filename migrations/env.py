"""Alembic environment of the registry database.

The URL comes from the caller (``registry db upgrade`` passes it as a config attribute) or from
``REGISTRY_DATABASE_URL`` when Alembic is run by hand. Upgrades hold a lock for their whole transaction
(PostgreSQL advisory lock, SQLite ``BEGIN IMMEDIATE``) so that several registry processes starting on an
empty database at the same moment migrate it exactly once.
"""

from __future__ import annotations

import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import text
from sqlalchemy.pool import NullPool

from registry.config import default_database_url
from registry.storage.db import WRITE_OPTION, is_sqlite, make_engine
from registry.storage.models import Base

#: Arbitrary constant naming the advisory lock that serializes migrations on PostgreSQL.
MIGRATION_LOCK_KEY = 0x5EC0DE

config = context.config
database_url: str = (
    config.attributes.get("database_url") or os.environ.get("REGISTRY_DATABASE_URL") or default_database_url()
)
if "database_url" not in config.attributes and config.config_file_name:
    fileConfig(config.config_file_name)  # run by hand: honour the ini's logging section


def run_offline() -> None:
    """Emits SQL for a DBA to review instead of running it (``alembic upgrade --sql``)."""
    context.configure(url=database_url, target_metadata=Base.metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Runs migrations on a live connection, under the migration lock."""
    engine = make_engine(database_url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            connection.execution_options(**{WRITE_OPTION: True})
            context.configure(
                connection=connection,
                target_metadata=Base.metadata,
                render_as_batch=is_sqlite(database_url),
            )
            with context.begin_transaction():
                if connection.dialect.name == "postgresql":
                    connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
