"""`loader maintain` on Iceberg tables (Iceberg's Hive catalog on the embedded metastore): many small
files of a closed hour become few while a reader counts the table in a loop, an open hour is left alone,
and expiring snapshots keeps the newest one that carries the loader's offsets.

A session for Iceberg tables is a JVM of its own (the test session's has no Iceberg), so the test runs
as one script in its own process: tables, appends as the table format makes them, the reader in a thread
and `maintain` itself."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from loader.formats.iceberg import SUMMARY_PREFIX
from tests.loader.harness import REPO_ROOT

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

SCRIPT = """
import json, threading, time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pyspark.sql import functions as F
from pyspark.sql.functions import partitioning
from loader.config import LoaderSettings
from loader.job import spark_for
from loader.operations.maintain import maintain

settings = LoaderSettings(
    bootstrap_servers="unused:9092", registry_url="http://unused", warehouse={warehouse!r},
    database="kafka", table_format="iceberg", spark_master="local[2]", maintain_min_files=3,
)
spark = spark_for(settings)
TABLE = "kafka.events"
COLUMNS = "n long, _kafka_offset long, _kafka_timestamp timestamp"


def append(first, count, at, offsets):
    rows = spark.createDataFrame([(n, n, at) for n in range(first, first + count)], COLUMNS)
    # What the table format's append puts into the snapshot summary.
    value = json.dumps({{"topic_id": None, "offsets": {{"0": offsets}}}})
    rows.writeTo(TABLE).option("snapshot-property.{prefix}events", value).append()


def inspect(name):
    spark.sql(f"REFRESH TABLE {{TABLE}}")
    files = spark.sql(
        f"SELECT partition._kafka_timestamp_hour AS h, count(*) AS c FROM {{TABLE}}.files GROUP BY 1"
    )
    offsets = sorted(r[0] for r in spark.sql(f"SELECT _kafka_offset FROM {{TABLE}}").collect())
    snapshots = spark.sql(f"SELECT summary FROM {{TABLE}}.snapshots ORDER BY committed_at").collect()
    print(name, json.dumps({{
        "files": sorted([r["h"], r["c"]] for r in files.collect()),
        "offsets": offsets,
        "snapshots": [any(k.startswith("{prefix}") for k in s[0]) for s in snapshots],
    }}))


spark.sql("CREATE DATABASE kafka LOCATION '{warehouse}/kafka.db'")
empty = spark.createDataFrame([], COLUMNS)
empty.writeTo(TABLE).using("iceberg").partitionedBy(partitioning.hours(F.col("_kafka_timestamp"))).create()
closed = datetime.fromisoformat({closed!r})
for i in range(6):  # six runs into the closed hour, a file each
    append(i * 5, 5, closed + timedelta(minutes=i), (i + 1) * 5)
now = datetime.now(UTC).replace(tzinfo=None)
for i in range(4):  # and four into the hour being written now
    append(100 + i, 1, now, 31 + i)
inspect("BEFORE")

counts, stop = [], threading.Event()


def read():
    while not stop.is_set():
        spark.sql(f"REFRESH TABLE {{TABLE}}")
        counts.append(spark.sql(f"SELECT count(*) FROM {{TABLE}}").first()[0])
        time.sleep(0.1)


reader = threading.Thread(target=read)
reader.start()
time.sleep(2)
report = maintain(settings, spark)
time.sleep(2)
stop.set()
reader.join()
actions = [[a.action, a.files_before, a.files_after, a.detail] for a in report.actions]
outcome = {{"exit": report.exit_code, "error": report.error, "actions": actions, "counts": counts}}
print("MAINTAINED", json.dumps(outcome))
inspect("COMPACTED")
append(200, 1, datetime.now(UTC).replace(tzinfo=None), 36)  # the next load
expired = maintain(replace(settings, maintain_snapshot_retention_minutes=0), spark)
actions = [[a.action, a.detail] for a in expired.actions]
print("EXPIRED", json.dumps({{"exit": expired.exit_code, "actions": actions}}))
inspect("AFTER")

spark.sql("CREATE TABLE kafka.someone_elses (id long) USING iceberg")  # not partitioned by time
spark.sql("INSERT INTO kafka.someone_elses VALUES (1)")
other = maintain(settings, spark)
actions = [[a.table, a.action, a.detail] for a in other.actions]
print("OTHER", json.dumps({{"exit": other.exit_code, "actions": actions}}))
"""


def printed(out: str, name: str) -> dict:  # type: ignore[type-arg]
    return json.loads(next(line for line in out.splitlines() if line.startswith(name + " ")).split(" ", 1)[1])


def test_iceberg_small_files_of_a_closed_hour_become_few_while_a_reader_sees_every_row(
    tmp_path: Path,
) -> None:
    warehouse = tmp_path / "warehouse"
    closed_at = datetime.now(UTC).replace(minute=5, second=0, microsecond=0) - timedelta(hours=3)
    code = SCRIPT.format(
        warehouse=str(warehouse),
        prefix=SUMMARY_PREFIX,
        closed=closed_at.replace(tzinfo=None).isoformat(),
    )
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-5000:]
    assert "CodeCache is full" not in done.stderr  # the driver JVM kept compiling to the end
    before, maintained = printed(done.stdout, "BEFORE"), printed(done.stdout, "MAINTAINED")
    compacted, after = printed(done.stdout, "COMPACTED"), printed(done.stdout, "AFTER")

    assert maintained["exit"] == 0, maintained
    ((action, rewritten, added, _),) = maintained["actions"]
    assert (action, rewritten, added) == ("compacted", 6, 1)
    assert set(maintained["counts"]) == {34}, "a reader saw a partial or doubled table"
    files_before, files_compacted = dict(map(tuple, before["files"])), dict(map(tuple, compacted["files"]))
    closed_hour = max(files_before, key=lambda h: files_before[h])
    open_hour = min(files_before, key=lambda h: files_before[h])
    assert (files_before[closed_hour], files_before[open_hour]) == (6, 4)
    assert (files_compacted[closed_hour], files_compacted[open_hour]) == (1, 4), "the open hour is left alone"
    assert compacted["offsets"] == before["offsets"]
    assert compacted["snapshots"][-1] is False, "the compaction is a snapshot of its own, without offsets"

    expired = printed(done.stdout, "EXPIRED")
    assert expired["exit"] == 0, expired
    # All but the newest snapshot carrying the offsets (the last load's) are expired.
    assert after["snapshots"] == [True]
    assert after["offsets"] == sorted([*before["offsets"], 200])
    data = warehouse / "kafka.db" / "events" / "data"
    in_closed = [
        p for p in data.rglob("*.parquet") if f"_kafka_timestamp_hour={closed_at:%Y-%m-%d-%H}" in str(p)
    ]
    assert len(in_closed) == 1, "the replaced small files went with the snapshots that held them"

    other = printed(done.stdout, "OTHER")
    assert other["exit"] == 0, other
    skipped = [a for a in other["actions"] if a[0] == "kafka.someone_elses"]
    assert [a[1] for a in skipped] == ["skipped"] and "not partitioned by the day or hour" in skipped[0][2]
