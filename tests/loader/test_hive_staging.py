"""A topic's own rows staged for a Hive table (`loader.formats.hive.staging`): written by the loader's
writer without Spark's sort, or by Spark's writer where the loader's jar is not on the class path, into
the same partitions with the same rows; and a whole run through the loader's writer when a task's rows
span more partitions than it keeps files open."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession

from loader.formats.hive import many_tables, staging
from loader.formats.hive.staging import stage_rows
from loader.planning.commit_protocol import StagedTable
from loader.planning.state_store import StateStore
from loader.schema.naming import table_name
from tests.loader.harness import Harness, record_schema

pytestmark = pytest.mark.integration


def topic_rows(spark: SparkSession) -> DataFrame:
    """A table's columns, `_kafka_timestamp` among them, over two hours and in no order of time."""
    return spark.sql("""
        SELECT * FROM VALUES
          (1L, '/a', TIMESTAMP'2026-01-02 04:10:00'),
          (2L, '/b', TIMESTAMP'2026-01-02 03:05:00'),
          (3L, '/c', TIMESTAMP'2026-01-02 04:20:00')
        AS t(id, url, _kafka_timestamp)
    """).coalesce(1)  # fmt: skip


def staged(spark: SparkSession, base: Path) -> StagedTable:
    store = StateStore(spark, f"file://{base}/state")
    directory, location = f"file://{base}/state/staging/views", f"file://{base}/warehouse/views"
    return stage_rows(store, directory, "db.views", location, topic_rows(spark), "hour", "run-1")


def rows_by_partition(spark: SparkSession, table: StagedTable) -> dict[str, list[tuple]]:
    """The rows of each staged file, by the partition directory the file goes to."""
    found: dict[str, list[tuple]] = {}
    for source, target in table.files:
        partition = "/".join(target.split("/")[-3:-1])
        found.setdefault(partition, []).extend(tuple(r) for r in spark.read.orc(source).collect())
    return {p: sorted(rows) for p, rows in sorted(found.items())}


EXPECTED = {"dt=2026-01-02/hour=03": [(2, "/b")], "dt=2026-01-02/hour=04": [(1, "/a"), (3, "/c")]}


def ids_and_urls(found: dict[str, list[tuple]]) -> dict[str, list[tuple]]:
    return {p: [(r[0], r[1]) for r in rows] for p, rows in found.items()}


def test_the_loader_s_writer_stages_each_partition_s_rows_unsorted_into_one_file(
    spark: SparkSession, tmp_path: Path
) -> None:
    table = staged(spark, tmp_path)

    assert ids_and_urls(rows_by_partition(spark, table)) == EXPECTED
    assert len(table.files) == 2  # one file per partition: the task kept both open
    assert sorted(table.partitions, key=str) == [
        {"dt": "2026-01-02", "hour": "03"},
        {"dt": "2026-01-02", "hour": "04"},
    ]


def test_without_the_loader_s_jar_spark_s_writer_stages_the_same_rows(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(staging, "writer_available", lambda session: False)
    spark_written = staged(spark, tmp_path / "spark")
    monkeypatch.undo()
    loader_written = staged(spark, tmp_path / "loader")

    assert rows_by_partition(spark, spark_written) == rows_by_partition(spark, loader_written)
    assert ids_and_urls(rows_by_partition(spark, spark_written)) == EXPECTED


VISIT = record_schema("Visit", [{"name": "n", "type": "long"}])


def test_a_run_over_more_hours_than_a_task_keeps_open_loads_every_record_once(
    harness: Harness, spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A topic's records over five hours in Kafka's order, then two late ones of the first hour, in one
    task that may keep two files open: the first hour's file was closed by the third hour's, so the late
    records start a second file there; every record is in the table once, and a run after adds none."""
    monkeypatch.setattr(many_tables, "MAX_OPEN_FILES_PER_TASK", 2)
    topic = harness.topic()
    # Hours ago, not a fixed date: records older than the topic's retention are deleted by the broker.
    first_hour = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=6)
    for h in range(5):
        harness.produce(
            topic, VISIT, [{"n": 2 * h}, {"n": 2 * h + 1}], partition=0, at=first_hour + timedelta(hours=h)
        )
    harness.produce(topic, VISIT, [{"n": 10}, {"n": 11}], partition=0, at=first_hour + timedelta(minutes=30))

    report = harness.run(spark, partition_granularity="hour")
    table = f"{harness.database}.{table_name(topic)}"
    again = harness.run(spark, partition_granularity="hour")

    assert report.exit_code == 0 and report.topics[0].records == 12
    assert again.exit_code == 0 and sum(t.records for t in again.topics) == 0
    spark.catalog.refreshTable(table)
    assert [r.n for r in spark.sql(f"SELECT n FROM {table} ORDER BY n").collect()] == list(range(12))
    files = spark.sql(f"""
        SELECT dt, hour, count(*) AS n, count(DISTINCT file) AS files
        FROM (SELECT dt, hour, input_file_name() AS file FROM {table}) GROUP BY dt, hour
    """).collect()
    by_hour = sorted((r.dt, r.hour, r.n, r.files) for r in files)
    assert [(n, f) for _, _, n, f in by_hour] == [(4, 2), (2, 1), (2, 1), (2, 1), (2, 1)]
