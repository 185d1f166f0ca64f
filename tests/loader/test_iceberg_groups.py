"""Small topics of an Iceberg lake loaded in one query and one write job (`loader.formats.iceberg_groups`):
a real broker, the registry over HTTP, Spark with Iceberg's catalog on a Hive metastore. Each table gets
what its topic's own pass would give it, in one snapshot of its own that names its offsets; a member whose
records do not all load leaves no file of the group's behind; a table partitioned by hand is written too."""

from __future__ import annotations

import json
import signal
import struct
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from pyspark.sql import SparkSession

from loader.formats import iceberg as iceberg_format
from loader.formats.iceberg import IcebergFormat, summary_key
from loader.job import QUARANTINE_TABLE
from loader.operations.audit import audit
from loader.operations.maintain import maintain
from loader.outcome.report import EXIT_BAD_RECORDS
from loader.schema.naming import table_name
from tests.loader.harness import Harness, record_schema

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

VIEW = record_schema("View", [{"name": "member_id", "type": "int"}, {"name": "url", "type": "string"}])
ORDER = record_schema("Order", [
    {"name": "order_id", "type": "long"},
    {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
        {"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
])  # fmt: skip
ORDER_V2 = record_schema("Order", [
    *ORDER["fields"],
    {"name": "amount", "type": "double", "default": 0.0},
])  # fmt: skip


def spark_jobs(spark: SparkSession) -> int:
    """How many Spark jobs this application has started so far."""
    return max(spark.sparkContext.statusTracker().getJobIdsForGroup(), default=-1) + 1


def rows(spark: SparkSession, table: str, columns: str) -> list[tuple]:
    spark.catalog.refreshTable(table)
    found = spark.sql(f"SELECT {columns} FROM {table} ORDER BY _kafka_partition, _kafka_offset").collect()
    return [tuple(r) for r in found]


def loader_snapshots(spark: SparkSession, table: str, topic: str) -> list[dict[str, object]]:
    """The table's snapshots that name the topic's offsets: each one's offsets and valid-through."""
    found = spark.sql(f"SELECT summary FROM {table}.snapshots ORDER BY committed_at").collect()
    return [
        {"offsets": json.loads(s[summary_key(topic)])["offsets"], "valid": s.get("loader.valid-through")}
        for (s,) in found
        if summary_key(topic) in s
    ]


def files_on_disk(spark: SparkSession, table: str) -> set[str]:
    location = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").where("col_name = 'Location'").first()
    assert location is not None
    data = Path(urlparse(location["data_type"]).path) / "data"
    return {str(p) for p in data.rglob("*.parquet")}


def files_of_table(spark: SparkSession, table: str) -> set[str]:
    return {urlparse(r.file_path).path for r in spark.sql(f"SELECT file_path FROM {table}.files").collect()}


def test_small_iceberg_topics_load_in_one_write_job_each_table_in_a_snapshot_of_its_own(
    harness: Harness, iceberg_spark: SparkSession
) -> None:
    harness.table_format = "iceberg"
    views, orders, more_views = harness.topic(partitions=2), harness.topic(), harness.topic()
    harness.produce(views, VIEW, [{"member_id": i, "url": f"/p/{i}"} for i in range(5)])
    harness.produce(orders, ORDER, [{"order_id": 1, "lines": [{"sku": "a", "qty": 2}]}])
    harness.produce(orders, ORDER_V2, [{"order_id": 2, "lines": [], "amount": 9.5}])
    harness.produce(more_views, VIEW, [{"member_id": 9, "url": "/q"}])

    before = spark_jobs(iceberg_spark)
    report = harness.run(iceberg_spark)
    grouped_jobs = spark_jobs(iceberg_spark) - before
    assert report.exit_code == 0, report
    loaded = {t.topic: t for t in report.topics}
    assert {t: (r.records, r.table_action) for t, r in loaded.items()} == {
        views: (5, "created"),
        orders: (2, "created"),
        more_views: (1, "created"),
    }
    assert rows(iceberg_spark, loaded[orders].table, "order_id, lines, amount") == [
        (1, [("a", 2)], 0.0),
        (2, [], 9.5),
    ]
    assert sorted(rows(iceberg_spark, loaded[views].table, "member_id, url, _kafka_partition")) == [
        (i, f"/p/{i}", i % 2) for i in range(5)
    ]
    # Each table's commit is its own snapshot, naming its topic's offsets and the run's valid-through.
    for topic, offsets in ((views, {"0": 3, "1": 2}), (orders, {"0": 2}), (more_views, {"0": 1})):
        assert loader_snapshots(iceberg_spark, loaded[topic].table, topic) == [
            {"offsets": offsets, "valid": loaded[topic].valid_through}
        ]
    assert audit(harness.settings(), iceberg_spark, QUARANTINE_TABLE).ok

    # The same topics, each in a query of its own: a write job per topic instead of one for all; the
    # tables' offsets go on from what the group's snapshots said.
    for topic in (views, more_views):
        harness.produce(topic, VIEW, [{"member_id": 10, "url": "/r"}])
    harness.produce(orders, ORDER_V2, [{"order_id": 3, "lines": [], "amount": 1.0}])
    before = spark_jobs(iceberg_spark)
    alone = harness.run(iceberg_spark, topics_per_query=1)
    assert spark_jobs(iceberg_spark) - before > grouped_jobs
    assert [t.records for t in alone.topics] == [1, 1, 1]
    assert rows(iceberg_spark, loaded[orders].table, "order_id") == [(1,), (2,), (3,)]
    assert [s["offsets"] for s in loader_snapshots(iceberg_spark, loaded[orders].table, orders)] == [
        {"0": 2},
        {"0": 3},
    ]


def test_a_grouped_iceberg_topic_with_bad_records_leaves_no_file_of_the_group_and_loads_alone(
    harness: Harness, iceberg_spark: SparkSession
) -> None:
    """The group wrote the mixed topic's good records, then found one record short: those files are thrown
    away (never committed), and the topic's own pass loads and quarantines. Iceberg's abort of a write
    deletes nothing unless a commit failed, so the files stay on the store unreferenced, as a killed
    run's do, until `loader maintain` removes orphan files."""
    harness.table_format = "iceberg"
    good, mixed = harness.topic(), harness.topic()
    harness.produce(good, VIEW, [{"member_id": 1, "url": "/a"}])
    harness.produce(mixed, VIEW, [{"member_id": 2, "url": "/b"}])
    harness.produce_raw(mixed, [b"\x01" + struct.pack(">I", 1) + b"\x02"])
    harness.produce(mixed, VIEW, [{"member_id": 3, "url": "/c"}])

    report = harness.run(iceberg_spark)
    loaded = {t.topic: t for t in report.topics}
    assert report.exit_code == EXIT_BAD_RECORDS
    assert (loaded[good].records, loaded[good].quarantined) == (1, 0)
    assert (loaded[mixed].records, loaded[mixed].quarantined) == (2, 1)
    assert rows(iceberg_spark, loaded[mixed].table, "member_id") == [(2,), (3,)]
    assert len(loader_snapshots(iceberg_spark, loaded[mixed].table, mixed)) == 1  # its own pass's
    table = loaded[mixed].table
    assert len(files_on_disk(iceberg_spark, table) - files_of_table(iceberg_spark, table)) == 1  # the group's
    assert audit(harness.settings(), iceberg_spark, QUARANTINE_TABLE).ok
    iceberg_spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(iceberg_spark._jsparkSession)
    maintained = maintain(harness.settings(maintain_grace_minutes=0), iceberg_spark)
    assert maintained.exit_code == 0, maintained
    assert files_on_disk(iceberg_spark, table) == files_of_table(iceberg_spark, table)
    assert rows(iceberg_spark, table, "member_id") == [(2,), (3,)]


def test_a_grouped_iceberg_table_partitioned_by_hand_is_written_by_a_file_per_partition(
    harness: Harness, iceberg_spark: SparkSession
) -> None:
    """A table someone also partitioned by a bucket of a column: rows sorted by time are not clustered by
    that partition, so its member is written by Iceberg's fanout writer (the clustered one refuses rows
    of a partition it has closed)."""
    harness.table_format = "iceberg"
    bucketed, plain = harness.topic(), harness.topic()
    for topic in (bucketed, plain):
        harness.produce(topic, VIEW, [{"member_id": 0, "url": "/"}])
    first = {t.topic: t for t in harness.run(iceberg_spark).topics}
    iceberg_spark.sql(f"ALTER TABLE {first[bucketed].table} ADD PARTITION FIELD bucket(4, member_id)")

    for topic in (bucketed, plain):
        harness.produce(topic, VIEW, [{"member_id": i, "url": f"/{i}"} for i in range(1, 13)])
    report = harness.run(iceberg_spark)
    assert report.exit_code == 0, report
    assert [t.records for t in report.topics] == [12, 12]
    assert rows(iceberg_spark, first[bucketed].table, "member_id") == [(i,) for i in range(13)]
    buckets = iceberg_spark.sql(
        f"SELECT DISTINCT partition.member_id_bucket_4 FROM {first[bucketed].table}.files "
        "WHERE partition.member_id_bucket_4 IS NOT NULL"
    ).collect()
    assert len(buckets) > 1


def test_a_group_reads_each_table_once_and_keeps_what_another_writer_committed_meanwhile(
    harness: Harness, iceberg_spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A next run looks each member's table up in the catalog once (a metastore call each time); its
    append still goes on top of a snapshot another application committed after that look-up, and names
    the offsets the table held before."""
    harness.table_format = "iceberg"
    changed, other = harness.topic(), harness.topic()
    for topic in (changed, other):
        harness.produce(topic, VIEW, [{"member_id": 0, "url": "/"}])
    first = {t.topic: t.table for t in harness.run(iceberg_spark).topics}
    for topic in (changed, other):
        harness.produce(topic, VIEW, [{"member_id": i, "url": f"/{i}"} for i in (1, 2)])

    looked_up: Counter[str] = Counter()
    load, write = IcebergFormat._load, iceberg_format.write_members

    def counted(self: IcebergFormat, table: str) -> Any:
        looked_up[table] += 1
        return load(self, table)

    def meanwhile(spark: SparkSession, rows: Any, tables: Any) -> Any:
        iceberg_spark.sql(f"DELETE FROM {first[changed]} WHERE member_id = 0")  # another writer's snapshot
        return write(spark, rows, tables)

    monkeypatch.setattr(IcebergFormat, "_load", counted)
    monkeypatch.setattr(iceberg_format, "write_members", meanwhile)
    report = harness.run(iceberg_spark)
    assert report.exit_code == 0, report
    assert [t.records for t in report.topics] == [2, 2]
    assert looked_up == {table_name(changed): 1, table_name(other): 1}
    assert rows(iceberg_spark, first[changed], "member_id") == [(1,), (2,)]
    assert rows(iceberg_spark, first[other], "member_id") == [(0,), (1,), (2,)]
    assert [s["offsets"] for s in loader_snapshots(iceberg_spark, first[changed], changed)] == [
        {"0": 1},
        {"0": 3},
    ]


def test_a_run_killed_after_a_member_s_commit_loads_each_record_once_next_time(cli_harness: Harness) -> None:
    """Killed right after the first member's Iceberg commit, before the run's manifest: that table holds
    offsets the run's state does not know, so the next run loads its topic alone, skipping what it holds
    (a group's rows are not checked against a table's own account); the other topic is grouped again."""
    cli_harness.table_format = "iceberg"
    topics = [cli_harness.topic(), cli_harness.topic()]
    for topic in topics:
        cli_harness.produce(topic, VIEW, [{"member_id": i, "url": f"/{i}"} for i in range(3)])
    killed = cli_harness.run_cli(env={"LOADER_CRASH_AT": "after_iceberg_commit"})
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    for topic in topics:
        cli_harness.produce(topic, VIEW, [{"member_id": 3, "url": "/3"}])

    report, loaded, _ = cli_harness.run_query_and_audit_cli(
        *(f"SELECT member_id FROM {cli_harness.database}.{table_name(t)} ORDER BY member_id" for t in topics)
    )
    assert report["exit_code"] == 0, report
    assert [[row["member_id"] for row in table] for table in loaded] == [[0, 1, 2, 3], [0, 1, 2, 3]]
    by_topic = {t["topic"]: t for t in report["topics"]}
    assert sorted((by_topic[t]["records"], by_topic[t]["already_held"]) for t in topics) == [(1, 3), (4, 0)]
