"""`loader maintain` on the Iceberg tables of every catalog, in the worker's application on a session of
the catalog as the command makes its own: the metastore's (`hive`), the warehouse's alone (`hadoop`,
whose tables the metastore does not list) and a REST catalog's, with the tables' files on an
S3-compatible store. Each test counts, before and after one
`loader maintain`, the data files of a closed day (six small ones, one per run, become one), the
snapshots (all but the newest that carries the loader's offsets expire, the compaction's stays) and the
orphan files planted in the table's data folder (one older than the grace is removed, a fresh one kept),
and that every row is still there. A table that cannot be maintained is a failed row with the reason
(exit 1) while the others are maintained; a database without Iceberg tables says so, never "done".
`loader maintain` as a process (its lock, its exit status, a kill) is tests/loader/test_maintain.py's."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql import SparkSession
from rich.console import Console

from loader import job
from loader.formats.catalog_lock import OWNER_PROPERTY
from loader.formats.iceberg import summary_key
from loader.operations.maintain import MaintainReport, maintain, render
from loader.outcome.report import EXIT_LOCKED
from loader.schema.naming import table_name
from tests.fixtures.object_store import BUCKET
from tests.fixtures.ports import free_port
from tests.fixtures.rest_catalog import RestCatalogService
from tests.loader.harness import Harness, on_rest_catalog, record_schema

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

EVENT = record_schema("Reading", [{"name": "n", "type": "long"}, {"name": "sensor", "type": "string"}])
RUNS = 6  # loads into the closed day, a data file each
PER_RUN = 2  # records a run loads (--max-records-per-partition, one Kafka partition)
MAINTAIN_SETTINGS = {"maintain_min_files": 2, "maintain_snapshot_retention_minutes": 0}
GRACE = timedelta(minutes=60)  # maintain-grace-minutes' default: orphans younger than this stay


def readings(first: int, count: int) -> list[dict[str, Any]]:
    return [{"n": n, "sensor": f"s{n % 3}"} for n in range(first, first + count)]


def succeeded(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def closed_day() -> datetime:
    """Noon two days ago: a day partition that ended long before `maintain-min-age-minutes`."""
    return datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0) - timedelta(days=2)


def load_small_files(harness: Harness, session: SparkSession, topics: list[str]) -> None:
    """RUNS commits into the closed day of each topic's table, as one `loader run --until-caught-up`."""
    for topic in topics:
        harness.produce(topic, EVENT, readings(0, RUNS * PER_RUN), at=closed_day())
    settings = harness.settings(max_records_per_partition=PER_RUN)
    reports = job.run_until_caught_up(settings, session, Console(file=io.StringIO()))
    assert [r.exit_code for r in reports] == [0] * RUNS, [r.to_json() for r in reports]


def maintain_row(stdout: str, qualified: str) -> list[str]:
    """The cells of the first line of maintain's table that names the table: table, partition, action,
    files before, files after, rows, detail."""
    line = next(line for line in stdout.splitlines() if qualified in line)
    return [cell.strip() for cell in line.split("│")[1:-1]]


def flat(text: str) -> str:
    """The printed table without its borders and line breaks (a long reason wraps in its cell)."""
    return "".join(ch for ch in text if not ch.isspace() and ch not in "│┃┆|")


# What the harness's catalog says of a table: its live data files per day, its snapshots (whether each
# carries the loader's offsets, oldest first) and its rows.
def local_counts(session: SparkSession, qualified: str, topic: str) -> dict[str, Any]:
    files, snapshots, rows = (
        session.sql(statement).collect()
        for statement in (
            f"SELECT partition._kafka_timestamp_day AS day, count(*) AS c FROM {qualified}.files GROUP BY 1",
            f"SELECT summary['{summary_key(topic)}'] IS NOT NULL AS carries FROM {qualified}.snapshots "
            "ORDER BY committed_at",
            f"SELECT n FROM {qualified}",
        )
    )
    return {
        "files": sorted(r["c"] for r in files),
        "snapshots": [r["carries"] for r in snapshots],
        "rows": sorted(r["n"] for r in rows),
    }


@pytest.mark.parametrize("catalog", ["hadoop", "hive"])
def test_maintain_compacts_expires_and_removes_orphans_of_a_catalogs_tables(
    harness: Harness, spark: SparkSession, catalog: str
) -> None:
    """In the worker's application, on a session of the catalog, as `loader maintain` makes its own; the
    report as the command prints it."""
    harness.table_format, harness.iceberg_catalog = "iceberg", catalog
    session = harness.session(spark)
    topic, broken_topic = harness.topic(), harness.topic()
    for each in (topic, broken_topic):
        harness.produce(each, EVENT, readings(0, RUNS * PER_RUN), at=closed_day())
    for _ in range(RUNS):  # a commit each into the closed day of each topic's table
        assert harness.run(session, max_records_per_partition=PER_RUN).exit_code == 0
    table, broken = table_name(topic), table_name(broken_topic)
    qualified, broken_qualified = f"{harness.database}.{table}", f"{harness.database}.{broken}"
    # Where each catalog keeps a table: the warehouse alone (hadoop), the metastore's database (hive).
    database_dir = harness.warehouse / (harness.database if catalog == "hadoop" else f"{harness.database}.db")
    day_dir = f"_kafka_timestamp_day={closed_day():%Y-%m-%d}"

    # Orphans, as a run killed before its commit leaves them: data files no snapshot references, one
    # written before the grace period, one just now.
    data = database_dir / table / "data" / day_dir
    live = sorted(data.glob("*.parquet"))
    old_orphan, fresh_orphan = data / "00000-0-orphan-old.parquet", data / "00000-0-orphan-fresh.parquet"
    shutil.copy(live[0], old_orphan)
    shutil.copy(live[0], fresh_orphan)
    long_ago = time.time() - 2 * GRACE.total_seconds()
    os.utime(old_orphan, (long_ago, long_ago))
    # The other table cannot be compacted: a data file its snapshot lists is gone.
    missing = sorted((database_dir / broken / "data" / day_dir).glob("*.parquet"))[0]
    missing.unlink()

    before = local_counts(session, qualified, topic)
    assert before["files"] == [RUNS] and before["snapshots"] == [True] * RUNS
    assert before["rows"] == list(range(RUNS * PER_RUN))
    assert len(list(data.glob("*.parquet"))) == RUNS + 2

    report = maintain(harness.settings(**MAINTAIN_SETTINGS), session)
    printed = io.StringIO()
    render(report, Console(file=printed, width=200))  # what `loader maintain` prints
    out = printed.getvalue()
    assert report.exit_code == 1, out  # the broken table failed
    assert "not all done" in out
    assert maintain_row(out, qualified)[2:5] == ["compacted", str(RUNS), "1"], out
    assert f"{RUNS - 1}snapshot(s)expired" in flat(out) and "1orphanfile(s)removed" in flat(out), out
    assert maintain_row(out, broken_qualified)[2] == "failed", out
    assert missing.name in flat(out), out  # the reason names the file that is gone

    after = local_counts(session, qualified, topic)
    assert after["files"] == [1], "the closed day's small files became one"
    # The newest snapshot with the offsets (the last load's) and the compaction's after it stay.
    assert after["snapshots"] == [True, False]
    assert after["rows"] == before["rows"]
    assert not old_orphan.exists(), "the orphan older than the grace period is removed"
    assert fresh_orphan.exists(), "an orphan younger than the grace period stays (a run may be writing it)"


def test_a_database_without_iceberg_tables_says_so(cli_harness: Harness) -> None:
    """Under the hadoop catalog, whose tables the metastore never lists: maintain used to print an empty
    table and "done"."""
    cli_harness.table_format, cli_harness.iceberg_catalog = "iceberg", "hadoop"
    done = succeeded(cli_harness.run_cli(command="maintain"))
    assert "nothing to maintain: the database has no Iceberg table in the hadoop catalog" in done.stdout
    assert "done" not in done.stdout


def test_a_catalog_that_does_not_list_the_tables_fails_maintain_saying_so(
    cli_harness: Harness, tmp_path: Path
) -> None:
    """Iceberg's catalog of the metastore pointed at a metastore that is not there (the session's own
    metastore answers): nothing is maintained, exit 1, and the reason."""
    cli_harness.table_format = "iceberg"
    port = free_port()
    config = tmp_path / "loader.toml"
    config.write_text(f'[loader.iceberg]\nuri = "thrift://127.0.0.1:{port}"\n')
    failed = cli_harness.run_cli("--config", str(config), command="maintain", timeout=600)
    out = failed.stdout
    assert failed.returncode == 1, out[-3000:] + failed.stderr[-3000:]
    assert f"{cli_harness.database}: not all done" in out, out
    assert f"Iceberg's catalog did not list the tables of database {cli_harness.database}" in flat(out) or (
        flat(f"Iceberg's catalog did not list the tables of database {cli_harness.database}") in flat(out)
    ), out


def rendered(report: MaintainReport) -> str:
    """What `loader maintain` prints of its report (a refused lock's error aside: the report's)."""
    printed = io.StringIO()
    render(report, Console(file=printed, width=200))
    return printed.getvalue()


def test_maintain_on_a_rest_catalog_with_the_files_on_an_object_store(
    harness: Harness, rest_catalog: RestCatalogService, spark: SparkSession
) -> None:
    """The catalog reached with the settings a cron job's loader has (a credential, the store's keys
    vended by the catalog); the loads and each maintain on a session of their own, as each process has
    one (a session's catalog keeps the tables it looked up)."""
    rest = on_rest_catalog(harness, rest_catalog)
    topic = rest.topic()
    load_small_files(rest, rest.session(spark), [topic])
    qualified = f"{rest.database}.{table_name(topic)}"
    client = rest_catalog.pyiceberg(
        credential="test:any", **{"oauth2-server-uri": f"{rest_catalog.uri}/v1/oauth/tokens"}
    )
    store = rest_catalog.store.client()

    def counts() -> dict[str, Any]:
        table = client.load_table(qualified)
        return {
            "files": len(table.inspect.files()),
            "snapshots": [summary_key(topic) in (s.summary.additional_properties if s.summary else {})
                          for s in sorted(table.snapshots(), key=lambda s: s.timestamp_ms)],
            "rows": sorted(table.scan().to_arrow().column("n").to_pylist()),
        }  # fmt: skip

    table = client.load_table(qualified)
    assert table.location().startswith(f"s3://{BUCKET}/")
    prefix = (
        table.location().removeprefix(f"s3://{BUCKET}/")
        + f"/data/_kafka_timestamp_day={closed_day():%Y-%m-%d}/"
    )

    def data_keys() -> list[str]:
        listed = store.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])
        return sorted(o["Key"] for o in listed if o["Key"].endswith(".parquet"))

    live = data_keys()
    body = store.get_object(Bucket=BUCKET, Key=live[0])["Body"].read()
    old_orphan, fresh_orphan = prefix + "00000-0-orphan-old.parquet", prefix + "00000-0-orphan-fresh.parquet"
    for key in (old_orphan, fresh_orphan):
        store.put_object(Bucket=BUCKET, Key=key, Body=body)
    # The store keeps each object as a file (s3proxy's file-system backend) and lists its modification
    # time as the object's: the old orphan is made older than the grace period there.
    long_ago = time.time() - 2 * GRACE.total_seconds()
    os.utime(rest_catalog.store.data_dir / "data" / BUCKET / old_orphan, (long_ago, long_ago))
    listed = store.list_objects_v2(Bucket=BUCKET, Prefix=old_orphan)["Contents"]
    assert listed[0]["LastModified"].timestamp() < time.time() - GRACE.total_seconds()

    before = counts()
    assert before["files"] == RUNS and before["snapshots"] == [True] * RUNS
    assert len(data_keys()) == RUNS + 2

    settings = rest.settings(**MAINTAIN_SETTINGS)
    report = maintain(settings, rest.session(spark))
    out = rendered(report)
    assert report.exit_code == 0, out
    assert f"{rest.database}: done" in out, out
    assert maintain_row(out, qualified)[2:5] == ["compacted", str(RUNS), "1"], out
    assert f"{RUNS - 1}snapshot(s)expired" in flat(out) and "1orphanfile(s)removed" in flat(out), out
    assert "_loader_run_lock" not in out, "the catalog's run lock is no table to maintain"
    assert not client.table_exists(f"{rest.database}._loader_run_lock"), "maintain released the lock"

    after = counts()
    assert after["files"] == 1
    assert after["snapshots"] == [True, False]
    assert after["rows"] == before["rows"] == list(range(RUNS * PER_RUN))
    keys = data_keys()
    assert old_orphan not in keys, "the orphan older than the grace period is removed from the store"
    assert fresh_orphan in keys, "an orphan younger than the grace period stays"

    # Another host's loader holds the database's lock in the catalog: maintain does not start (75), and
    # says who holds it (the command prints the report's error as `not started: <error>`).
    owner = json.dumps({"host": "another-host", "pid": 4242, "since": time.time()})
    lock_table = f"{rest.database}._loader_run_lock"
    client.create_table(
        lock_table, schema=pa.schema([("owner", pa.string())]), properties={OWNER_PROPERTY: owner}
    )
    refused = maintain(settings, rest.session(spark))
    assert refused.exit_code == EXIT_LOCKED, rendered(refused)
    assert refused.locked and not refused.actions, rendered(refused)
    assert lock_table in (refused.error or "") and "another-host" in (refused.error or ""), refused.error
    assert client.table_exists(lock_table), "another's lock is left alone"
    client.drop_table(lock_table)

    # A catalog that does not answer: maintain takes no lock, maintains nothing and says why (exit 1).
    dead = f"http://127.0.0.1:{free_port()}"
    unanswered = replace(rest, catalog_settings={**rest.catalog_settings, "iceberg_rest_uri": dead})
    gone = maintain(unanswered.settings(), unanswered.session(spark))
    said = rendered(gone)
    assert gone.exit_code == 1, said
    assert not gone.actions, said
    assert "Connection refused" in said and "nothing to maintain" not in said, said
