"""The database schema comes only from Alembic, matches the models, and upgrades safely in parallel."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from click.testing import CliRunner
from sqlalchemy import inspect, text

from registry.cli import main
from registry.service.schemas import guid_for
from registry.storage import migrate
from registry.storage.db import Database
from registry.storage.models import Base
from registry.storage.repository import Registry
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


def _registered_under_0002(url: str) -> tuple[int, str]:
    """A database at revision 0002 holding one registered schema, written as that version's code did."""
    migrate.upgrade(url, "0002_users")
    database = Database(url)
    identity = "3f" * 32
    try:
        with database.engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO schemas (id, identity_hash, schema_type, schema_text, fingerprint, "
                    "references_json, created_at) VALUES (7, :h, 'AVRO', '\"long\"', 'f', '[]', :t)"
                ),
                {"h": identity, "t": datetime.now(UTC)},
            )
            conn.execute(text("INSERT INTO subjects (id, name, last_version) VALUES (1, 'old-value', 1)"))
            conn.execute(
                text(
                    "INSERT INTO subject_versions (id, subject_id, version, schema_id, deleted, created_at) "
                    "VALUES (1, 1, 1, 7, false, :t)"
                ),
                {"t": datetime.now(UTC)},
            )
    finally:
        database.dispose()
    return 7, identity


def _contracts_upgrade_and_back(url: str) -> None:
    schema_id, identity = _registered_under_0002(url)
    migrate.upgrade(url)
    assert_matches_models(url)
    database = Database(url)
    try:
        with database.engine.connect() as conn:
            guid = conn.execute(text("SELECT guid FROM schemas WHERE id = :i"), {"i": schema_id}).scalar_one()
        assert guid == guid_for(identity), "existing schemas get the GUID new ones would"
        registry = Registry(database)
        assert registry.schema_by_guid(guid).id == schema_id
        assert registry.get_version("old-value", 1).schema.metadata is None
        migrate.downgrade(url, "0002_users")
        columns = {c["name"] for c in inspect(database.engine).get_columns("schemas")}
        assert not columns & {"guid", "metadata_json", "rule_set_json"}
        assert "compatibility_group" not in {
            c["name"] for c in inspect(database.engine).get_columns("subjects")
        }
        with database.engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM subject_versions")).scalar_one() == 1, "data kept"
    finally:
        database.dispose()


def test_contracts_migration_gives_existing_schemas_guids_and_goes_back_on_sqlite(tmp_path: Path) -> None:
    _contracts_upgrade_and_back(f"sqlite:///{tmp_path / 'c.db'}")


@pytest.mark.integration
def test_contracts_migration_gives_existing_schemas_guids_and_goes_back_on_postgres(
    postgres_cluster: PostgresCluster,
) -> None:
    _contracts_upgrade_and_back(postgres_cluster.create_database("contracts_migration"))


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
