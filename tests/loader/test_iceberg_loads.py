"""Apache Iceberg tables (`--table-format iceberg`): a reader in another Spark application sees only
counts of whole commits while a `loader run` process loads, and, in the worker's application, each read
task's own files (no shuffle before the write), hourly hidden partitioning, the metastore-less Hadoop
catalog, and the audit of a table whose rows no longer cover what was loaded."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from rich.console import Console

from loader.formats.iceberg import summary_key
from loader.job import QUARANTINE_TABLE
from loader.operations.audit import audit, render
from loader.operations.status import collect
from loader.schema.naming import table_name
from tests.fixtures.hive_metastore import HiveMetastore
from tests.loader.harness import REPO_ROOT, Harness, record_schema
from tests.tiers import FULL

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

EVENT = record_schema("Reading", [{"name": "n", "type": "long"}, {"name": "sensor", "type": "string"}])


def readings(first: int, count: int) -> list[dict[str, Any]]:
    return [{"n": n, "sensor": f"s{n % 3}"} for n in range(first, first + count)]


def succeeded(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


# Another Spark application counting an Iceberg table through the same metastore, as fast as it can,
# until told to stop; then it prints every snapshot's summary.
COUNTING_READER = """
import json, pathlib, time
from loader.runtime.spark_session import SparkSettings, build_spark_session, iceberg_jars
from loader.formats.iceberg_catalogs import IcebergCatalog, spark_catalog_conf
conf = {{
    **spark_catalog_conf(IcebergCatalog("hive", {warehouse!r})),
    "spark.ui.enabled": "false",
    # Iceberg's catalog keeps a loaded table for 30 s by default: each count must load the newest snapshot.
    "spark.sql.catalog.spark_catalog.cache-enabled": "false",
}}
spark = build_spark_session(SparkSettings(
    warehouse_dir={warehouse!r}, metastore_uri={uri!r}, master="local[1]", extra_conf=conf,
    extra_jars=tuple(iceberg_jars()),
))
seen, stop = pathlib.Path({seen!r}), pathlib.Path({stop!r})
seen.write_text("")  # counting from now on
while not stop.exists():
    if not spark.catalog.tableExists({table!r}):
        time.sleep(0.1)
        continue
    count = spark.sql("SELECT count(*) AS c FROM {table}").first()["c"]
    with seen.open("a") as out:
        out.write(json.dumps([time.time(), count]) + "\\n")
summaries = spark.sql("SELECT summary FROM {table}.snapshots ORDER BY committed_at").collect()
print("SNAPSHOTS=" + json.dumps([dict(r["summary"]) for r in summaries]))
"""


# The full tier's: readers through a REST catalog, Spark's and pyiceberg's, see only whole commits in
# the default tier (test_rest_catalog_runs.py); under the metastore a commit is the same Iceberg commit.
@FULL
def test_a_reader_sees_only_counts_of_whole_commits_while_a_load_runs(
    cli_harness: Harness, hive_metastore: HiveMetastore, tmp_path: Path
) -> None:
    cli_harness.table_format = "iceberg"
    topic = cli_harness.topic(partitions=2)
    # Each run's records span three hours, and so three files of three hourly partitions.
    hour = datetime.now(UTC).replace(minute=30, second=0, microsecond=0) - timedelta(hours=5)
    for n in range(0, 60, 2):  # a pair at a time: one record in each Kafka partition
        cli_harness.produce(topic, EVENT, readings(n, 2), at=hour + timedelta(hours=n // 2 % 3))
    table = f"{cli_harness.database}.{table_name(topic)}"
    seen, stop = tmp_path / "seen.jsonl", tmp_path / "stop"
    metastore = {"warehouse": hive_metastore.warehouse, "uri": hive_metastore.uri}
    code = COUNTING_READER.format(**metastore, seen=str(seen), stop=str(stop), table=table)
    reader = subprocess.Popen(
        [sys.executable, "-c", code], cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 180
        while not seen.exists():
            assert reader.poll() is None, reader.communicate()[1][-3000:]
            assert time.monotonic() < deadline, "the reader never started counting"
            time.sleep(0.5)
        # Six runs in one process (5 offsets of each partition at a time), each one Iceberg commit of
        # several files: a reader seeing files one by one would see counts between two commits' totals.
        succeeded(
            cli_harness.run_cli(
                "--metastore-uri", hive_metastore.uri, "--warehouse", hive_metastore.warehouse,
                "--partition-granularity", "hour", "--max-records-per-partition", "5", "--until-caught-up",
            )
        )  # fmt: skip
        time.sleep(2)  # the reader counts the last commit a few times
    finally:
        stop.touch()
        out, err = reader.communicate(timeout=180)
    assert reader.returncode == 0, err[-3000:]

    snapshots = json.loads(next(line for line in out.splitlines() if line.startswith("SNAPSHOTS="))[10:])
    commits = [s for s in snapshots if summary_key(topic) in s]
    assert len(commits) == 6
    files = [int(s["added-data-files"]) for s in commits]
    assert min(files) > 1, f"each commit is several files: {files}"
    totals = {0} | {int(s["total-records"]) for s in snapshots}
    counts = [count for _, count in (json.loads(line) for line in seen.read_text().splitlines())]
    assert counts and counts[-1] == 60
    assert set(counts) <= totals, f"counts {sorted(set(counts) - totals)} are no commit's total {totals}"
    assert {c for c in counts if 0 < c < 60}, "the reader saw no commit but the last: it proved nothing"
    assert counts == sorted(counts), "a count never goes back"


def test_hourly_hidden_partitioning_end_to_end(harness: Harness, iceberg_spark: SparkSession) -> None:
    harness.table_format = "iceberg"
    topic = harness.topic()
    hour = datetime.now(UTC).replace(minute=30, second=0, microsecond=0) - timedelta(hours=5)
    for i in range(3):  # three closed hours, four records each
        harness.produce(topic, EVENT, readings(4 * i, 4), at=hour + timedelta(hours=i))
    hourly = {"partition_granularity": "hour"}
    assert harness.run(iceberg_spark, **hourly).exit_code == 0

    table = f"{harness.database}.{table_name(topic)}"
    described = iceberg_spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect()
    partitions = iceberg_spark.sql(
        f"SELECT partition._kafka_timestamp_hour AS h, record_count AS c FROM {table}.partitions"
    ).collect()
    partitioning = [r["data_type"] for r in described if r["col_name"] == "Part 0"]
    assert partitioning == ["hours(_kafka_timestamp)"]
    epoch_hour = int(hour.timestamp()) // 3600
    assert sorted((r["h"], r["c"]) for r in partitions) == [(epoch_hour + i, 4) for i in range(3)]
    assert audit(harness.settings(**hourly), iceberg_spark, QUARANTINE_TABLE).ok


def test_each_read_task_writes_its_own_files_without_a_shuffle(
    harness: Harness, iceberg_spark: SparkSession
) -> None:
    """Iceberg's default for a partitioned table (`hash`) shuffles every row to one writer per partition;
    the loader's appends have each task sort its own rows by partition and write its own files, as Hive's
    writer does. Each partition's records go back and forth between two hours, so a task that wrote its
    rows unsorted would fail (Iceberg's clustered writer refuses a partition it has closed)."""
    harness.table_format = "iceberg"
    topic = harness.topic(partitions=2)
    hour = datetime.now(UTC).replace(minute=30, second=0, microsecond=0) - timedelta(hours=5)
    for partition in (0, 1):
        for i, at in enumerate([hour, hour + timedelta(hours=1), hour, hour + timedelta(hours=1)]):
            harness.produce(topic, EVENT, readings(8 * partition + 2 * i, 2), partition=partition, at=at)
    # A read task per topic partition: a small topic's read is one task otherwise.
    settings = {"partition_granularity": "hour", "records_per_task": 8}
    assert harness.run(iceberg_spark, **settings).exit_code == 0

    table = f"{harness.database}.{table_name(topic)}"
    files = iceberg_spark.sql(
        f"SELECT partition._kafka_timestamp_hour AS h, record_count AS c FROM {table}.files"
    ).collect()
    epoch_hour = int(hour.timestamp()) // 3600
    # Two read tasks (a topic partition each), each with rows of both hours: four files of four rows.
    assert sorted((r["h"], r["c"]) for r in files) == [(epoch_hour, 4)] * 2 + [(epoch_hour + 1, 4)] * 2
    assert sorted(r["n"] for r in iceberg_spark.sql(f"SELECT n FROM {table}").collect()) == list(range(16))


def test_the_hadoop_catalog_keeps_tables_in_the_warehouse_alone(
    harness: Harness, spark: SparkSession
) -> None:
    harness.table_format, harness.iceberg_catalog = "iceberg", "hadoop"
    session = harness.session(spark)
    topic = harness.topic(partitions=2)
    harness.produce(topic, EVENT, readings(0, 4))
    assert harness.run(session).exit_code == 0
    harness.produce(topic, EVENT, readings(4, 3))
    report = harness.run(session)

    [second] = [t for t in report.topics if t.topic == topic]
    assert (report.exit_code, second.records) == (0, 3)  # only what arrived since the first run
    table = table_name(topic)
    qualified = f"{harness.database}.{table}"
    assert sorted(r["n"] for r in session.sql(f"SELECT n FROM {qualified}").collect()) == list(range(7))
    directory = harness.warehouse / harness.database / table
    assert list((directory / "metadata").glob("*.metadata.json")), "Iceberg metadata in the warehouse"
    assert (directory / "metadata" / "version-hint.text").exists()
    assert list((directory / "data").rglob("*.parquet"))
    # The metastore (a session without Iceberg) knows the database the run claimed, and no table of it.
    assert spark.sql(f"SHOW TABLES IN {harness.database}").collect() == []

    assert audit(harness.settings(), session, QUARANTINE_TABLE).ok
    [status] = [t for t in collect(harness.settings(), session).topics if t.topic == topic]
    counts = (status.tables, status.partitions, status.saved, status.end, status.lag)
    assert counts == ([qualified], 2, 7, 7, 0)


def test_an_iceberg_table_missing_rows_or_a_data_file_audits_as_not_ok(
    harness: Harness, iceberg_spark: SparkSession
) -> None:
    """`loader audit` as its command reports it: the report (its JSON) and the text it prints."""
    harness.table_format = "iceberg"
    topic = harness.topic(partitions=2)
    harness.produce(topic, EVENT, readings(0, 8))
    assert harness.run(iceberg_spark).exit_code == 0
    table = f"{harness.database}.{table_name(topic)}"
    assert json.loads(audit(harness.settings(), iceberg_spark, QUARANTINE_TABLE).to_json())["ok"] is True

    # Behind the loader's back: the rows of partition 0 are deleted (an Iceberg commit of its own, so the
    # newest snapshot carrying the loader's offsets still says the table holds them).
    iceberg_spark.sql(f"DELETE FROM {table} WHERE _kafka_partition = 0")
    result = json.loads(audit(harness.settings(), iceberg_spark, QUARANTINE_TABLE).to_json())
    assert result["ok"] is False  # `loader audit` exits 1
    missing = [w for w in result["windows"] if w["topic"] == topic and not w["ok"]]
    assert missing and sum(w["difference"] for w in missing) == -4

    # A data file the table's snapshot lists is deleted: the table cannot be read; the audit says so,
    # naming the table and the file, instead of failing with a trace.
    data_files = list((harness.warehouse / f"{harness.database}.db").rglob("*.parquet"))
    assert data_files
    for parquet in data_files:  # every data file of the database, among them live ones of the table
        parquet.unlink()
    unreadable = audit(harness.settings(), iceberg_spark, QUARANTINE_TABLE)
    result = json.loads(unreadable.to_json())
    assert result["ok"] is False
    assert list(result["unreadable"]) == [table]
    assert ".parquet" in result["unreadable"][table]
    assert not [w for w in result["windows"] if w["topic"] == topic], "no window of an unknown row count"
    printed = io.StringIO()
    render(unreadable, Console(file=printed, width=400))  # what `loader audit` prints
    assert f"{table} could not be read" in printed.getvalue()
