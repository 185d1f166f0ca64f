"""A topic's own rows staged for a Hive table (`loader.formats.hive.staging`): written by the loader's
writer without Spark's sort, or by Spark's writer where the loader's jar is not on the class path, into
the same partitions with the same rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession

from loader.formats.hive import staging
from loader.formats.hive.staging import stage_rows
from loader.planning.commit_protocol import StagedTable
from loader.planning.state_store import StateStore

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
