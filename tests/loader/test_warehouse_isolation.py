"""One warehouse is one lake: with the embedded metastore, everything a run writes stays inside the
warehouse it was given, two warehouses side by side never share tables, and a metastore that places the
run's database or tables elsewhere stops the run before anything is staged."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.operations.audit import audit
from loader.runtime.spark_session import EMBEDDED_METASTORE_DIR
from loader.schema.naming import table_name
from loader.warehouse_layout import WarehouseMismatch
from tests.loader.harness import REPO_ROOT, Harness, record_schema

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

EVENT = record_schema("Order", [{"name": "id", "type": "long"}])


def tables_and_ids(lake: Harness) -> dict[str, list[int]]:
    rows = lake.query_cli_every_table("SELECT id FROM {table}")
    return {name: sorted(r["id"] for r in table_rows) for name, table_rows in rows.items()}


def run_and_read(lake: Harness, topic: str, cwd: Path = REPO_ROOT) -> dict[str, list[int]]:
    """A run of `topic` into the lake, then every table of its database and their ids, in one process
    started in `cwd`: the session `loader run` makes its own (`job.spark_for`: its embedded metastore,
    its driver JVM's working directory), for one JVM's start instead of two."""
    return lake.in_loader_application(
        f"""
        from loader import job
        report = job.run(settings, spark, Console(file=sys.stderr))
        assert report.exit_code == 0, report.to_json()
        names = [r.tableName for r in spark.sql("SHOW TABLES IN {lake.database}").collect()]
        results = {{
            name: sorted(r.id for r in spark.sql(f"SELECT id FROM {lake.database}.{{name}}").collect())
            for name in names
        }}
        """,
        cwd=cwd,
        include_topics=topic,
    )


def test_two_warehouses_under_one_parent_each_hold_exactly_their_own_tables(
    cli_harness: Harness, tmp_path: Path
) -> None:
    """Each lake's run and the reads of its tables in one process of its own, started where cron starts
    the job, on the session a `loader run` makes (what the command adds before Spark, its locks, is placed
    by the state directory and the warehouse: tests/loader/test_run_lock.py)."""
    parent = tmp_path / "lakes"
    started_from = tmp_path / "cron-home"  # the directory cron starts the job in
    started_from.mkdir()
    lake_a = replace(cli_harness, warehouse=parent / "lake-a")
    lake_b = replace(cli_harness, warehouse=parent / "lake-b")
    orders, payments = cli_harness.topic(prefix="orders"), cli_harness.topic(prefix="payments")
    cli_harness.produce(orders, EVENT, [{"id": i} for i in range(5)])
    cli_harness.produce(payments, EVENT, [{"id": 100 + i} for i in range(3)])

    # The two lakes share the database's name: a metastore they shared would list both tables.
    assert run_and_read(lake_a, orders, cwd=started_from) == {table_name(orders): [0, 1, 2, 3, 4]}
    assert run_and_read(lake_b, payments, cwd=started_from) == {table_name(payments): [100, 101, 102]}
    for lake, topic in ((lake_a, orders), (lake_b, payments)):
        table_dir = lake.warehouse / f"{lake.database}.db" / table_name(topic)
        assert any(table_dir.rglob("*.orc")), f"no data files in {table_dir}"
        assert (lake.warehouse / EMBEDDED_METASTORE_DIR / "metastore_db").is_dir()
        assert (lake.warehouse / EMBEDDED_METASTORE_DIR / "derby.log").is_file()
    # Nothing beside the warehouses, nothing where the job was started.
    assert sorted(p.name for p in parent.iterdir()) == ["lake-a", "lake-b"]
    assert list(started_from.iterdir()) == []


def test_a_lake_made_with_the_old_layout_keeps_working_and_a_new_neighbour_does_not_share_it(
    cli_harness: Harness, tmp_path: Path
) -> None:
    parent = tmp_path / "lakes"
    old = replace(cli_harness, warehouse=parent / "old")
    fresh = replace(cli_harness, warehouse=parent / "new")
    orders, payments = cli_harness.topic(prefix="orders"), cli_harness.topic(prefix="payments")
    cli_harness.produce(orders, EVENT, [{"id": i} for i in range(3)])
    cli_harness.produce(payments, EVENT, [{"id": 100}])
    first = old.run_cli("--include-topics", orders)
    assert first.returncode == 0, first.stderr[-3000:]
    # The layout of older versions: the metastore in the warehouse's parent, shared by its neighbours.
    shutil.move(old.warehouse / EMBEDDED_METASTORE_DIR / "metastore_db", parent / "metastore_db")
    shutil.rmtree(old.warehouse / EMBEDDED_METASTORE_DIR)

    # The new neighbour's run and reads in one process: the old lake's metastore, beside it, would list
    # the old lake's table (the same database's name) if the neighbour used it.
    assert run_and_read(fresh, payments) == {table_name(payments): [100]}
    assert (fresh.warehouse / EMBEDDED_METASTORE_DIR / "metastore_db").is_dir()

    cli_harness.produce(orders, EVENT, [{"id": 3}, {"id": 4}])
    again = old.run_cli("--include-topics", orders)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"move it in: mkdir -p {old.warehouse / EMBEDDED_METASTORE_DIR}" in " ".join(again.stderr.split())
    assert "unchanged" in again.stdout  # the existing table was found, not created again
    assert not (old.warehouse / EMBEDDED_METASTORE_DIR).exists()
    assert tables_and_ids(old) == {table_name(orders): [0, 1, 2, 3, 4]}


def test_a_database_the_metastore_places_elsewhere_stops_the_run_before_anything_is_staged(
    harness: Harness, spark: SparkSession, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "other-lake" / f"{harness.database}.db"
    spark.sql(f"CREATE DATABASE {harness.database} LOCATION '{elsewhere}'")
    topic = harness.topic()
    harness.produce(topic, EVENT, [{"id": 1}])

    report = harness.run(spark)

    assert report.exit_code == 1
    assert report.error is not None
    assert f"database {harness.database} is at file:{elsewhere} in the metastore" in report.error
    assert f"this run's warehouse {harness.warehouse} puts it at file:{harness.warehouse}/" in report.error
    state = harness.warehouse / "_loader_state" / harness.database
    assert not (state / "commits").exists() and not (state / "staging").exists()
    assert not elsewhere.exists() or not any(elsewhere.iterdir())
    assert spark.catalog.listTables(harness.database) == []
    with pytest.raises(WarehouseMismatch, match="Nothing was loaded"):
        audit(harness.settings(), spark, "loader_quarantine")


def test_a_table_moved_out_of_its_database_stops_the_run_and_names_the_table(
    harness: Harness, spark: SparkSession, tmp_path: Path
) -> None:
    topic = harness.topic()
    harness.produce(topic, EVENT, [{"id": 1}])
    assert harness.run(spark).exit_code == 0
    table = f"{harness.database}.{table_name(topic)}"
    spark.sql(f"ALTER TABLE {table} SET LOCATION '{tmp_path / 'moved'}'")
    harness.produce(topic, EVENT, [{"id": 2}])
    commits = harness.warehouse / "_loader_state" / harness.database / "commits"
    before = sorted(p.name for p in commits.iterdir())

    report = harness.run(spark)

    assert report.exit_code == 1
    assert f"table {table} is at file:{tmp_path / 'moved'}, outside its database's location" in (
        report.error or ""
    )
    assert sorted(p.name for p in commits.iterdir()) == before  # nothing committed
    # The first run's row (its partition keeps its own location); the second record loaded nowhere.
    assert [r["id"] for r in spark.sql(f"SELECT id FROM {table}").collect()] == [1]
