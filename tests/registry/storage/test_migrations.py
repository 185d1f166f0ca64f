"""The database schema comes only from Alembic, matches the models, and upgrades safely in parallel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from click.testing import CliRunner
from sqlalchemy import inspect

from registry.cli import main
from registry.storage import migrate
from registry.storage.db import Database
from registry.storage.models import Base
from tests.fixtures.postgres import PostgresCluster

TABLES = {
    "registry_state", "schemas", "subjects", "subject_versions", "schema_references", "users",
    "alembic_version",
}  # fmt: skip


def assert_matches_models(url: str) -> None:
    database = Database(url)
    try:
        with database.engine.connect() as conn:
            assert set(inspect(conn).get_table_names()) == TABLES
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    finally:
        database.dispose()


def test_upgrade_creates_what_the_models_declare_and_downgrade_removes_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url)
    assert_matches_models(url)
    migrate.upgrade(url)  # idempotent
    migrate.downgrade(url, "base")
    database = Database(url)
    assert set(inspect(database.engine).get_table_names()) == {"alembic_version"}
    database.dispose()


def test_users_migration_goes_up_from_the_first_revision_and_back(tmp_path: Path) -> None:
    """An existing 0001 database gains the users table with `registry db upgrade` and loses only it
    going back down."""
    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url, "0001_initial")
    database = Database(url)
    try:
        assert "users" not in inspect(database.engine).get_table_names()
        migrate.upgrade(url)
        assert_matches_models(url)
        migrate.downgrade(url, "0001_initial")
        assert set(inspect(database.engine).get_table_names()) == TABLES - {"users"}
    finally:
        database.dispose()


def test_cli_db_upgrade_and_current(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    runner = CliRunner()
    before = runner.invoke(main, ["db", "current", "--database-url", url])
    assert before.exit_code == 0 and "current: none" in before.output
    assert runner.invoke(main, ["db", "upgrade", "--database-url", url]).exit_code == 0
    after = runner.invoke(main, ["db", "current", "--database-url", url])
    assert f"current: {migrate.head_revision()}" in after.output


def test_upgrade_if_empty_migrates_new_databases_only(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'e.db'}"
    assert migrate.upgrade_if_empty(url) is True
    assert migrate.upgrade_if_empty(url) is False
    migrate.downgrade(url, "base")
    database = Database(url)
    with database.engine.begin() as conn:  # an outdated (not empty) database is left to the operator
        conn.exec_driver_sql("INSERT INTO alembic_version VALUES ('0000_older')")
    database.dispose()
    with pytest.raises(RuntimeError, match="registry db upgrade"):
        migrate.upgrade_if_empty(url)


@pytest.mark.integration
def test_parallel_upgrades_on_postgres_migrate_once(postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.create_database("parallel_upgrade")
    command = [sys.executable, "-m", "registry.cli", "db", "upgrade", "--database-url", url]
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for _ in range(4)]
    outputs = [p.communicate(timeout=120)[0].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], outputs
    assert_matches_models(url)
