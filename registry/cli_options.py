"""What every command group of the ``registry`` command line shares: the database option and the check
that the service's packages are installed.

It lives apart from ``registry.cli`` (the group that wires commands together) so that imports run one
way only: ``registry.cli`` imports the command modules, and they import this module, never the group.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

import click

from registry.config import SETTINGS

if TYPE_CHECKING:
    from registry.storage.db import Database

DATABASE_URL = SETTINGS["database_url"].option()

SERVER_PACKAGES = ("flask", "sqlalchemy", "alembic", "gunicorn")


def require_server_packages() -> None:
    """The service needs the `registry` extra; `registry check` and `push` need only the core."""
    missing = [name for name in SERVER_PACKAGES if not importlib.util.find_spec(name)]
    if missing:
        raise click.ClickException(
            f"the registry service needs {', '.join(missing)}: pip install 'avro-pipeline[registry]'"
        )


def migrated_database(database_url: str | None) -> Database:
    """The registry's database for a command that uses its tables; a database that is not migrated (or
    cannot be opened) stops the command with a message naming ``registry db upgrade``, not a traceback."""
    from registry.config import RegistryConfig
    from registry.storage.db import Database
    from registry.storage.migrate import NotReady, require_current

    database = Database(RegistryConfig.from_env(database_url=database_url).database_url)
    try:
        require_current(database)
    except NotReady as exc:
        database.dispose()
        raise click.ClickException(str(exc)) from None
    return database
