"""`loader maintain` on Hive ORC tables, with real Kafka, Spark and a Derby metastore: a closed partition
of many small files becomes few while a reader keeps seeing every row, a load started meanwhile exits as
beside another load, a late record still reaches the compacted partition, the replaced files go after
the grace period, and a maintain killed at any step leaves the table whole for the next one to finish."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from pyspark.sql import SparkSession

from loader.formats.hive.maintenance import COMPACTED_DIR, CRASH_POINTS
from loader.formats.metastore import partition_location
from loader.job import QUARANTINE_TABLE
from loader.operations.audit import audit
from loader.operations.lock import RunLock
from loader.operations.maintain import maintain
from loader.outcome.report import EXIT_LOCKED
from loader.schema.naming import table_name
from tests.fixtures.hive_metastore import HiveMetastore
from tests.infrastructure.test_hive_metastore_service import SESSION
from tests.loader.harness import REPO_ROOT, Harness, record_schema
from tests.tiers import FULL, steps_by_tier

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

EVENT = record_schema("Visit", [{"name": "n", "type": "long"}, {"name": "page", "type": "string"}])


def produce_at(
    harness: Harness, topic: str, first: int, count: int, at: datetime, schema: dict[str, Any] = EVENT
) -> None:
    """Records n = first..first+count-1 with Kafka timestamp `at` (a closed hour or day, or now)."""
    serialize = harness.serializer(topic, schema)
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    for n in range(first, first + count):
        value = serialize({"n": n, "page": f"/p/{n}"} | ({"lang": f"l{n}"} if schema is not EVENT else {}))
        producer.produce(topic, value=value, partition=0, timestamp=int(at.timestamp() * 1000))
    assert producer.flush(30) == 0


def local(location: str) -> Path:
    return Path("/" + location.removeprefix("file:").lstrip("/"))


def data_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and not p.name.startswith((".", "_")))


def where(spec: dict[str, str]) -> str:
    return " AND ".join(f"{k} = '{v}'" for k, v in spec.items())


class Reader(threading.Thread):
    """Counts a partition's rows again and again, as an analyst's dashboard would, noting whether each
    count read the compacted files."""

    def __init__(self, spark: SparkSession, table: str, spec: dict[str, str]) -> None:
        super().__init__(daemon=True)
        self.spark, self.table, self.spec = spark, table, spec
        self.seen: list[tuple[int, bool]] = []
        self.failure: BaseException | None = None
        self.stop = threading.Event()

    def run(self) -> None:
        query = (
            f"SELECT count(*) AS c, coalesce(max(f LIKE '%/{COMPACTED_DIR}/%'), false) AS compacted "
            f"FROM (SELECT input_file_name() AS f FROM {self.table} WHERE {where(self.spec)})"
        )
        try:
            while not self.stop.is_set():
                self.spark.catalog.refreshTable(self.table)
                row = self.spark.sql(query).first()
                self.seen.append((int(row["c"]), bool(row["compacted"])))
                time.sleep(0.1)
        except BaseException as exc:  # reported by the test
            self.failure = exc


def test_a_closed_partition_of_many_small_files_becomes_few_while_a_reader_sees_every_row(
    harness: Harness, spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    hourly: dict[str, Any] = {"partition_granularity": "hour", "maintain_min_files": 3}
    topic = harness.topic()
    closed_at = datetime.now(UTC).replace(minute=10, second=0, microsecond=0) - timedelta(hours=3)
    closed = {"dt": closed_at.strftime("%Y-%m-%d"), "hour": closed_at.strftime("%H")}
    runs = 6
    for i in range(runs):  # every run adds a file to the closed hour
        produce_at(harness, topic, i * 5, 5, closed_at + timedelta(minutes=i))
        assert harness.run(spark, **hourly).exit_code == 0
    now = datetime.now(UTC)
    open_hour = {"dt": now.strftime("%Y-%m-%d"), "hour": now.strftime("%H")}
    produce_at(harness, topic, 1000, 4, now)
    for _ in range(4):
        produce_at(harness, topic, 2000 + _, 1, now)
        assert harness.run(spark, **hourly).exit_code == 0
    table = f"{harness.database}.{table_name(topic)}"
    old_dir = local(partition_location(spark, table, closed) or "")
    open_dir = local(partition_location(spark, table, open_hour) or "")
    old_files = data_files(old_dir)
    open_files = data_files(open_dir)
    assert len(old_files) == runs and len(open_files) >= 4
    rows_before = sorted(
        tuple(r) for r in spark.sql(f"SELECT _kafka_offset, n, page, dt, hour FROM {table}").collect()
    )
    expected = runs * 5

    reader = Reader(spark, table, closed)
    reader.start()
    # Held between the rewrite and the switch, long enough for a load to try its luck and the reader to
    # count the old files more than once.
    monkeypatch.setenv("LOADER_PAUSE_AT", "maintain_after_rewrite:6")
    result: dict[str, Any] = {}
    maintaining = threading.Thread(
        target=lambda: result.update(report=maintain(harness.settings(**hourly), spark))
    )
    maintaining.start()
    records = harness.warehouse / "_loader_state" / harness.database / "maintain"
    deadline = time.monotonic() + 180
    while not (records.exists() and any(records.glob("*.json"))):
        assert maintaining.is_alive() and time.monotonic() < deadline, result
        time.sleep(0.2)
    beside = harness.run(spark, **hourly)
    assert beside.exit_code == EXIT_LOCKED, beside.error
    assert "another loader run holds the lock" in (beside.error or "")
    maintaining.join(300)
    monkeypatch.delenv("LOADER_PAUSE_AT")
    time.sleep(1.5)  # the reader counts the new files a few times
    reader.stop.set()
    reader.join(60)
    assert reader.failure is None, reader.failure

    report = result["report"]
    assert report.exit_code == 0, report
    (compacted,) = [a for a in report.actions if a.action == "compacted"]
    assert (compacted.files_before, compacted.files_after, compacted.rows) == (runs, 1, expected)
    assert {count for count, _ in reader.seen} == {expected}, "a reader saw a partial or doubled partition"
    assert {False, True} <= {new for _, new in reader.seen}, "the reader ran before and after the switch"
    new_dir = local(partition_location(spark, table, closed) or "")
    assert f"/{COMPACTED_DIR}/" in str(new_dir) and len(data_files(new_dir)) == 1
    assert data_files(old_dir) == old_files, "replaced files stay for the grace period"
    assert data_files(open_dir) == open_files and partition_location(spark, table, open_hour) is not None
    assert f"/{COMPACTED_DIR}/" not in (partition_location(spark, table, open_hour) or "")
    spark.catalog.refreshTable(table)
    rows_after = sorted(
        tuple(r) for r in spark.sql(f"SELECT _kafka_offset, n, page, dt, hour FROM {table}").collect()
    )
    assert rows_after == rows_before
    assert audit(harness.settings(**hourly), spark, QUARANTINE_TABLE).mismatches == []

    # A late record of the compacted hour goes where readers look, not into the replaced directory.
    produce_at(harness, topic, 5000, 1, closed_at + timedelta(minutes=30))
    assert harness.run(spark, **hourly).exit_code == 0
    assert len(data_files(new_dir)) == 2 and data_files(old_dir) == old_files
    spark.catalog.refreshTable(table)
    assert spark.sql(f"SELECT count(*) FROM {table} WHERE {where(closed)}").first()[0] == expected + 1

    kept = maintain(harness.settings(**hourly), spark)
    assert [a.action for a in kept.actions] == ["old files kept"]
    removed = maintain(harness.settings(**hourly, maintain_grace_minutes=0), spark)
    assert [a.action for a in removed.actions] == ["old files removed"], removed
    assert not old_dir.exists()
    assert not any(records.glob("*.json")), "nothing is pending any more"
    spark.catalog.refreshTable(table)
    assert spark.sql(f"SELECT count(*) FROM {table} WHERE {where(closed)}").first()[0] == expected + 1
    assert audit(harness.settings(**hourly), spark, QUARANTINE_TABLE).mismatches == []


# The default tier kills maintain with its files rewritten and not switched, and switched and not
# confirmed; the full tier after its record of intent too.
@pytest.mark.parametrize(
    "points",
    steps_by_tier(
        ("maintain_after_rewrite", "maintain_after_switch"), CRASH_POINTS, "rewritten-and-switched"
    ),
)
def test_a_maintain_killed_at_any_step_leaves_the_table_whole_and_the_next_one_finishes(
    cli_harness: Harness, points: tuple[str, ...]
) -> None:
    topic = cli_harness.topic()
    day = datetime.now(UTC) - timedelta(days=2)
    produce_at(cli_harness, topic, 0, 24, day)
    loaded = cli_harness.run_cli("--records-per-task", "3")  # eight tasks: eight files in one partition
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    table = f"{cli_harness.database}.{table_name(topic)}"
    table_dir = cli_harness.warehouse / f"{cli_harness.database}.db" / table_name(topic)
    old_dir = table_dir / f"dt={day:%Y-%m-%d}"
    assert len(data_files(old_dir)) > 3
    count = f"SELECT count(*) AS c, count(DISTINCT _kafka_offset) AS d FROM {table}"
    policy = ("--maintain-min-files", "3")

    assert set(points) <= set(CRASH_POINTS)
    for point in points:
        killed = cli_harness.run_cli(*policy, command="maintain", env={"LOADER_CRASH_AT": point})
        assert killed.returncode == -signal.SIGKILL, f"{point}: {killed.returncode}\n{killed.stderr[-2000:]}"
        # Killed before anything but the record was written, nothing to count; after the last kill the
        # application below counts first.
        if point not in ("maintain_after_record", points[-1]):
            assert cli_harness.query_cli(count) == [{"c": 24, "d": 24}], f"after a kill at {point}"

    # The table as the last kill left it, the maintain after the kills, one that removes the files
    # replaced (no grace period), the table's count and the audit, in one application (a kill needs a
    # process; what follows it does not): the reports as `loader maintain` prints them.
    left, finished, cleaned, counted, audited = cli_harness.in_loader_application(
        f"""
        import io
        from dataclasses import replace
        from loader.operations.maintain import maintain, render
        def printed(report):
            out = io.StringIO()
            render(report, Console(file=out, width=200))
            return [report.exit_code, out.getvalue()]
        left = [r.asDict() for r in spark.sql({count!r}).collect()]
        finished = printed(maintain(settings, spark))
        cleaned = printed(maintain(replace(settings, maintain_grace_minutes=0), spark))
        counted = [r.asDict() for r in spark.sql({count!r}).collect()]
        audited = json.loads(audit(settings, spark, QUARANTINE_TABLE).to_json())
        results = [left, finished, cleaned, counted, audited]
        """,
        command="maintain",
        maintain_min_files=3,
    )
    if points[-1] != "maintain_after_record":
        assert left == [{"c": 24, "d": 24}], f"after a kill at {points[-1]}"
    assert finished[0] == 0, finished[1]
    assert "switch confirmed" in finished[1]  # the kill after the switch left it unconfirmed
    assert cleaned[0] == 0, cleaned[1]
    assert "old files removed" in cleaned[1]
    assert not old_dir.exists()
    (live,) = (table_dir / COMPACTED_DIR).iterdir()  # the unfinished runs' directories are gone
    assert len(data_files(live / f"dt={day:%Y-%m-%d}")) == 1
    assert counted == [{"c": 24, "d": 24}]
    assert audited["ok"], audited


def test_maintain_exits_with_the_lock_status_while_a_run_holds_the_lock(cli_harness: Harness) -> None:
    running = RunLock(str(cli_harness.warehouse / "_loader_state" / cli_harness.database))
    running.acquire()
    try:
        started = time.monotonic()
        refused = cli_harness.run_cli(command="maintain")
        assert refused.returncode == EXIT_LOCKED, refused.stderr[-3000:]
        assert "not started: another loader run holds the lock" in refused.stderr
        assert str(os.getpid()) in refused.stderr
        assert time.monotonic() - started < 20  # it did not start Spark
    finally:
        running.release()


def test_maintain_settings_out_of_range_are_a_usage_error(cli_harness: Harness) -> None:
    refused = cli_harness.run_cli("--maintain-min-files", "0", command="maintain")
    assert refused.returncode == 2
    # The flag's range is the setting's declared bound (the config file's value meets the same bound in
    # the settings model: tests/loader/test_config.py).
    assert "Invalid value for '--maintain-min-files': 0 is not in the range x>=1" in refused.stderr


def test_rows_written_before_and_after_a_schema_change_read_the_same_after_compaction(
    harness: Harness, spark: SparkSession
) -> None:
    """Old files lack the added column and hold the narrower type: the rewrite reads them through the
    table, so their rows keep reading the field's default and the widened values."""
    first = record_schema("Visit", [{"name": "n", "type": "int"}, {"name": "page", "type": "string"}])
    second = record_schema(
        "Visit",
        [
            {"name": "n", "type": "long"},
            {"name": "page", "type": "string"},
            {"name": "lang", "type": "string", "default": "en"},
        ],
    )
    topic = harness.topic()
    day = datetime.now(UTC) - timedelta(days=2)
    for i, schema in enumerate([first, first, second, second]):
        produce_at(harness, topic, i * 3, 3, day, schema)
        assert harness.run(spark).exit_code == 0
    table = f"{harness.database}.{table_name(topic)}"
    query = f"SELECT _kafka_offset, n, page, lang, _schema_id FROM {table} ORDER BY _kafka_offset"
    before = [tuple(r) for r in spark.sql(query).collect()]
    assert [r[3] for r in before] == ["en"] * 6 + [f"l{n}" for n in range(6, 12)]

    report = maintain(harness.settings(maintain_min_files=3), spark)

    assert [(a.action, a.files_before, a.files_after) for a in report.actions] == [("compacted", 4, 1)]
    spark.catalog.refreshTable(table)
    assert [tuple(r) for r in spark.sql(query).collect()] == before


def test_a_partition_that_cannot_be_read_is_reported_and_left_as_it_was(
    harness: Harness, spark: SparkSession
) -> None:
    topic = harness.topic()
    day = datetime.now(UTC) - timedelta(days=3)
    for i in range(2):
        produce_at(harness, topic, i * 3, 3, day)
        assert harness.run(spark).exit_code == 0
    table = f"{harness.database}.{table_name(topic)}"
    spec = {"dt": f"{day:%Y-%m-%d}"}
    directory = local(partition_location(spark, table, spec) or "")
    (directory / "copied-by-hand.orc").write_bytes(b"not an ORC file")  # a stray file nobody can read
    files = data_files(directory)

    report = maintain(harness.settings(maintain_min_files=2), spark)

    assert report.exit_code == 1
    (failed,) = report.actions
    assert (failed.action, failed.partition, failed.files_before) == ("failed", f"dt={day:%Y-%m-%d}", 3)
    assert "copied-by-hand.orc" in failed.detail, failed.detail  # the reason names the file
    assert local(partition_location(spark, table, spec) or "") == directory
    assert data_files(directory) == files
    records = harness.warehouse / "_loader_state" / harness.database / "maintain"
    assert not any(records.glob("*")), "nothing is left pending"
    table_dir = harness.warehouse / f"{harness.database}.db" / table_name(topic)
    assert not any((table_dir / COMPACTED_DIR).rglob("*.orc")), "the half-written directory is removed"


# The full tier's: a reader sees every row while maintain switches a partition's files in the default
# tier (the reader of the first test above, another session of the metastore the maintain uses); this
# one reads from another application through a metastore service of its own client.
@FULL
def test_another_application_reading_through_an_external_metastore_meanwhile_sees_every_row(
    cli_harness: Harness, hive_metastore: HiveMetastore, tmp_path: Path
) -> None:
    topic = cli_harness.topic()
    day = datetime.now(UTC) - timedelta(days=2)
    produce_at(cli_harness, topic, 0, 24, day)
    external = ("--metastore-uri", hive_metastore.uri, "--warehouse", hive_metastore.warehouse)
    loaded = cli_harness.run_cli(*external, "--records-per-task", "3")
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    table = f"{cli_harness.database}.{table_name(topic)}"
    seen, stop = tmp_path / "seen.jsonl", tmp_path / "stop"
    # Another Spark application, with its own JVM and metastore client, counting until told to stop.
    body = f"""
        import json, pathlib, time
        seen, stop = pathlib.Path({str(seen)!r}), pathlib.Path({str(stop)!r})
        query = ("SELECT count(*) AS c, coalesce(max(f LIKE '%/{COMPACTED_DIR}/%'), false) AS compacted "
                 "FROM (SELECT input_file_name() AS f FROM {table})")
        while True:
            last = stop.exists()
            spark.catalog.refreshTable({table!r})
            row = spark.sql(query).first()
            with seen.open("a") as out:
                out.write(json.dumps([row["c"], row["compacted"]]) + "\\n")
            if last:
                break
            time.sleep(0.2)
        """
    code = SESSION.format(warehouse=hive_metastore.warehouse, uri=hive_metastore.uri) + textwrap.dedent(body)
    reader = subprocess.Popen(
        [sys.executable, "-c", code], cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 180
        while not (seen.exists() and seen.read_text()):
            assert reader.poll() is None, reader.communicate()[1][-3000:]
            assert time.monotonic() < deadline, "the reader never counted"
            time.sleep(0.5)
        done = cli_harness.run_cli(
            *external,
            "--maintain-min-files",
            "3",
            command="maintain",
            env={"LOADER_PAUSE_AT": "maintain_after_rewrite:5"},
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "compacted" in done.stdout
        time.sleep(3)
    finally:
        stop.touch()
        _, err = reader.communicate(timeout=120)
    assert reader.returncode == 0, err[-3000:]
    counts = [json.loads(line) for line in seen.read_text().splitlines()]
    assert {c for c, _ in counts} == {24}, "the other application saw a partial or doubled partition"
    assert [compacted for _, compacted in counts][-1] is True, "it reads the compacted files in the end"
    assert counts[0][1] is False
