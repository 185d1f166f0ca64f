"""Whole `loader run` processes writing Apache Iceberg tables (`--table-format iceberg`): a reader in
another Spark application sees only counts of whole commits while a load runs, hourly hidden partitioning,
the metastore-less Hadoop catalog, and the audit of a table whose rows no longer cover what was loaded."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from loader.formats.iceberg import summary_key
from loader.schema.naming import table_name
from tests.fixtures.hive_metastore import HiveMetastore
from tests.loader.harness import REPO_ROOT, Harness, record_schema

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


def test_hourly_hidden_partitioning_end_to_end(cli_harness: Harness) -> None:
    cli_harness.table_format = "iceberg"
    topic = cli_harness.topic()
    hour = datetime.now(UTC).replace(minute=30, second=0, microsecond=0) - timedelta(hours=5)
    for i in range(3):  # three closed hours, four records each
        cli_harness.produce(topic, EVENT, readings(4 * i, 4), at=hour + timedelta(hours=i))
    succeeded(cli_harness.run_cli("--partition-granularity", "hour"))

    table = f"{cli_harness.database}.{table_name(topic)}"
    described, partitions = cli_harness.query_cli_all(
        f"DESCRIBE TABLE EXTENDED {table}",
        f"SELECT partition._kafka_timestamp_hour AS h, record_count AS c FROM {table}.partitions",
    )
    partitioning = [r["data_type"] for r in described if r["col_name"] == "Part 0"]
    assert partitioning == ["hours(_kafka_timestamp)"]
    epoch_hour = int(hour.timestamp()) // 3600
    assert sorted((r["h"], r["c"]) for r in partitions) == [(epoch_hour + i, 4) for i in range(3)]
    succeeded(cli_harness.run_cli(command="audit"))


def test_the_hadoop_catalog_keeps_tables_in_the_warehouse_alone(cli_harness: Harness, tmp_path: Path) -> None:
    cli_harness.table_format, cli_harness.iceberg_catalog = "iceberg", "hadoop"
    topic = cli_harness.topic(partitions=2)
    cli_harness.produce(topic, EVENT, readings(0, 4))
    succeeded(cli_harness.run_cli())
    cli_harness.produce(topic, EVENT, readings(4, 3))
    report = tmp_path / "second.json"
    succeeded(cli_harness.run_cli("--report-json", str(report)))

    [second] = [t for t in json.loads(report.read_text())["topics"] if t["topic"] == topic]
    assert second["records"] == 3  # only what arrived since the first run
    table = table_name(topic)
    qualified = f"{cli_harness.database}.{table}"
    assert sorted(r["n"] for r in cli_harness.query_cli(f"SELECT n FROM {qualified}")) == list(range(7))
    directory = cli_harness.warehouse / cli_harness.database / table
    assert list((directory / "metadata").glob("*.metadata.json")), "Iceberg metadata in the warehouse"
    assert (directory / "metadata" / "version-hint.text").exists()
    assert list((directory / "data").rglob("*.parquet"))
    # The metastore (a session without Iceberg) knows the database the run claimed, and no table of it.
    cli_harness.table_format = "hive"
    assert cli_harness.query_cli(f"SHOW TABLES IN {cli_harness.database}") == []
    cli_harness.table_format = "iceberg"

    succeeded(cli_harness.run_cli(command="audit"))
    status = succeeded(cli_harness.run_cli(command="status", env={"COLUMNS": "400"}))
    [line] = [line for line in status.stdout.splitlines() if topic in line]
    assert [cell.strip() for cell in line.split("│")[2:7]] == [qualified, "2", "7", "7", "0"]


def test_an_iceberg_table_missing_rows_or_a_data_file_audits_as_not_ok(
    cli_harness: Harness, tmp_path: Path
) -> None:
    cli_harness.table_format = "iceberg"
    topic = cli_harness.topic(partitions=2)
    cli_harness.produce(topic, EVENT, readings(0, 8))
    succeeded(cli_harness.run_cli())
    table = f"{cli_harness.database}.{table_name(topic)}"
    clean = tmp_path / "clean.json"
    succeeded(cli_harness.run_cli("--report-json", str(clean), command="audit"))
    assert json.loads(clean.read_text())["ok"] is True

    # Behind the loader's back: the rows of partition 0 are deleted (an Iceberg commit of its own, so the
    # newest snapshot carrying the loader's offsets still says the table holds them).
    cli_harness.query_cli(f"DELETE FROM {table} WHERE _kafka_partition = 0")
    broken = tmp_path / "broken.json"
    audited = cli_harness.run_cli("--report-json", str(broken), command="audit")

    assert audited.returncode == 1, audited.stdout[-3000:] + audited.stderr[-3000:]
    result = json.loads(broken.read_text())
    assert result["ok"] is False
    missing = [w for w in result["windows"] if w["topic"] == topic and not w["ok"]]
    assert missing and sum(w["difference"] for w in missing) == -4

    # A data file the table's snapshot lists is deleted: the table cannot be read; the audit says so,
    # naming the table and the file, instead of failing with a trace.
    data_files = list((cli_harness.warehouse / f"{cli_harness.database}.db").rglob("*.parquet"))
    assert data_files
    for parquet in data_files:  # every data file of the database, among them live ones of the table
        parquet.unlink()
    unreadable = tmp_path / "unreadable.json"
    audited = cli_harness.run_cli("--report-json", str(unreadable), command="audit", env={"COLUMNS": "400"})

    assert audited.returncode == 1, audited.stdout[-3000:] + audited.stderr[-3000:]
    result = json.loads(unreadable.read_text())
    assert result["ok"] is False
    assert list(result["unreadable"]) == [table]
    assert ".parquet" in result["unreadable"][table]
    assert not [w for w in result["windows"] if w["topic"] == topic], "no window of an unknown row count"
    assert f"{table} could not be read" in audited.stdout
