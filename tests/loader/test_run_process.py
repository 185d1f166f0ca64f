"""`loader run` as cron starts it, in its own process: the run lock, and `kill -9` at every step of the
commit protocol followed by a re-run, after which every record is in the table exactly once (and the
audit, whose records go through the same commits, agrees)."""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.job import QUARANTINE_TABLE
from loader.operations.audit import audit
from loader.outcome.fault_injection import CRASH_POINTS, ICEBERG_CRASH_POINTS
from loader.outcome.report import EXIT_LOCKED
from loader.reading.kafka_metadata import watermarks
from loader.runtime.spark_session import EMBEDDED_METASTORE_DIR
from loader.schema.naming import table_name
from tests.loader import kill_riders
from tests.loader.harness import (
    REPO_ROOT,
    Harness,
    record_schema,
    run_driver_script,
)
from tests.loader.kill_riders import Rider
from tests.tiers import FULL, LINE_SMOKE

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

EVENT = record_schema("Click", [
    {"name": "n", "type": "long", "doc": "Sequence number of the click."},
    {"name": "target", "type": "string", "doc": "What was clicked."},
])  # fmt: skip


def start_cli(harness: Harness, env: dict[str, str]) -> subprocess.Popen[str]:
    command = [
        sys.executable, "-m", "loader.cli", "run",
        "--bootstrap-servers", harness.kafka.bootstrap, "--registry-url", harness.registry_url,
        "--warehouse", str(harness.warehouse), "--database", harness.database,
        "--partition-granularity", "day", "--include-topics", f"{harness.prefix}.*",
    ]  # fmt: skip
    return subprocess.Popen(
        command,
        env={**os.environ, **harness.cli_env(), **env},
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill_from_outside(process: subprocess.Popen[str]) -> None:
    """`kill -9` of a `loader run` process alone, as from outside. Waits for that process, not for the end
    of its output: its driver JVM holds the same pipes until it sees its parent gone and exits, which on a
    busy machine took more than two minutes. The pipes are closed unread."""
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


def killed_runs(
    harness: Harness, points: Iterable[str], produce: Callable[[int], None], kill_after_s: float | None
) -> None:
    """Runs killed at each crash point (`produce(i)` before the i-th), then `produce` once more and, with
    `kill_after_s`, one more run killed from outside after that long, wherever it is (the full tier's: in
    the default tier a kill from outside lands in the JVM's start, where a killed run leaves its lock
    alone, as the crash points' kills do); the run that completes is the test's
    (`Harness.run_query_and_audit_cli`)."""
    points = list(points)
    for i, point in enumerate(points):
        produce(i)
        done = harness.run_cli(env={"LOADER_CRASH_AT": point})
        assert done.returncode == -signal.SIGKILL, f"{point}: {done.returncode}\n{done.stderr[-2000:]}"
    produce(len(points))
    if kill_after_s is not None:
        process = start_cli(harness, {})
        time.sleep(kill_after_s)
        kill_from_outside(process)


def lock_file(harness: Harness) -> Path:
    return harness.warehouse / "_loader_state" / harness.database / "lock"


def test_a_second_run_exits_at_once_while_the_first_holds_the_lock(
    cli_harness: Harness, tmp_path: Path
) -> None:
    topic = cli_harness.topic()
    cli_harness.produce(topic, EVENT, [{"n": i, "target": "a"} for i in range(3)])
    paused = tmp_path / "paused"
    first = start_cli(
        cli_harness, {"LOADER_PAUSE_AT": "after_recovery:25", "LOADER_PAUSED_FILE": str(paused)}
    )
    try:
        deadline = time.monotonic() + 120
        while not (lock_file(cli_harness).exists() and lock_file(cli_harness).read_text().strip()):
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the first run never took the lock"
            time.sleep(0.2)
        assert json.loads(lock_file(cli_harness).read_text())["pid"] == first.pid

        started = time.monotonic()
        second = cli_harness.run_cli()
        assert second.returncode == EXIT_LOCKED
        assert "not started: another loader run holds the lock" in second.stderr
        assert time.monotonic() - started < 20  # it did not wait for the first, nor start Spark
        assert first.poll() is None  # the first is still at work
        # It took the lock before its JVM started: once it holds at its pause, it goes on when told.
        while not paused.exists():
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the first run never reached its pause"
            time.sleep(0.2)
        paused.unlink()
    finally:
        out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err[-3000:]
    assert topic in out


# The default tier kills each format's run at the steps whose state differs; the full tier at every step.
# Hive: the run's files staged with no manifest (the rerun discards them), the manifest written (the
# rerun completes it), the completion half done (some files moved, the rerun moves the rest). Iceberg:
# where its rerun resumes from a state Spark sees for itself: the table made and empty, the table holding
# the run's range (the rerun's write of it gets no row); and once more after a whole range committed with
# nothing new (below). Its manifest holds the audit file alone, and the rerun completes it as it completes
# Hive's (the full tier kills it there too). The steps between change files of
# the loader's own, the same for every format, and a kill from outside lands in the JVM's start, where a
# killed run leaves its lock file alone (the lock's own tests take such a lock over). The same through a
# REST catalog, whose state directory is on the object store (where a move is a copy):
# test_rest_catalog_kills.py, a file of its own so that the test workers run it beside these
# (pytest-xdist gives a worker a whole file).
HIVE_STATE_POINTS = ("after_staging", "after_manifest", "after_first_move")
ICEBERG_RESUME_POINTS = ("after_table_ready", "after_iceberg_commit")
# The full tier's kills from outside: early (the process, or its JVM, starting) and late (the JVM started,
# or the run at work on a fast machine).
KILLED_FROM_OUTSIDE_AFTER_S = (3.0, 9.0)


# The full tier's cases: about 15 `loader run` processes one after the other, 5 to 10 minutes beside
# another test worker; the default tier's: 6 or 7.
@pytest.mark.timeout(1200)
@pytest.mark.parametrize(
    ("table_format", "crash_points", "kills_from_outside", "with_riders"),
    [
        pytest.param("hive", HIVE_STATE_POINTS, (), True, id="hive-few"),
        pytest.param("iceberg", ICEBERG_RESUME_POINTS, (), False, id="iceberg-few"),
        pytest.param("hive", CRASH_POINTS, KILLED_FROM_OUTSIDE_AFTER_S, False, id="hive", marks=FULL),
        pytest.param(
            "iceberg", ICEBERG_CRASH_POINTS, KILLED_FROM_OUTSIDE_AFTER_S, False, id="iceberg", marks=FULL
        ),
        # The smoke of another Spark line: one kill, after the commit of the run's tables (Iceberg's after
        # that of its range, with nothing new for the rerun: the whole-range kill below; Hive's after its
        # manifest).
        pytest.param("hive", ("after_manifest",), (), False, id="hive-one", marks=LINE_SMOKE),
        pytest.param("iceberg", (), (), False, id="iceberg-one", marks=LINE_SMOKE),
    ],  # scripts/test names the cases of the oldest Spark line's format
)
def test_killed_at_every_step_and_rerun_loads_every_record_exactly_once(
    cli_harness: Harness,
    table_format: str,
    crash_points: tuple[str, ...],
    kills_from_outside: tuple[float, ...],
    with_riders: bool,
) -> None:
    assert set(HIVE_STATE_POINTS) <= set(CRASH_POINTS)
    assert set(ICEBERG_RESUME_POINTS) <= set(ICEBERG_CRASH_POINTS)
    cli_harness.table_format = table_format
    # The default tier's Hive kills take a transactional topic, one of several event types, and a
    # Protobuf and a JSON Schema topic along (tests/loader/kill_riders.py): the first two's kill tests of
    # their own are the full tier's.
    riders = (
        (
            kill_riders.transactional(cli_harness),
            kill_riders.several_event_types(cli_harness),
            kill_riders.protobuf_and_json(cli_harness),
        )
        if with_riders
        else ()
    )
    killed_at_every_step_then_run(cli_harness, crash_points, kills_from_outside, riders=riders)


def killed_at_every_step_then_run(
    cli_harness: Harness,
    crash_points: tuple[str, ...],
    kills_from_outside: tuple[float, ...],
    killed_after_a_whole_range: bool = True,
    read_in: tuple[Harness, SparkSession] | None = None,
    riders: Sequence[Rider] = (),
) -> None:
    """Runs killed at each of `crash_points`, then from outside at each of `kills_from_outside` seconds
    after their start, then (Iceberg, with `killed_after_a_whole_range`) once more after the table's
    commit, then a run that completes: every record is in its table once, every bad one in the
    quarantine once, and the audit agrees. That run, the reads and the audit happen in a Spark application
    of their own (a kill needs a process, the run after it does not), or with `read_in` on a session of
    the worker's application (a REST catalog's tables, which both reach). `riders`: topics of other kinds
    produced to before each run too, and checked after the last."""
    table_format = cli_harness.table_format
    topic = cli_harness.topic(partitions=2)
    # Topics of good records only, which a Hive run loads in one query with `topic` (see
    # loader.run.topic_group_pass): the query is killed at every step too.
    clean = [cli_harness.topic(partitions=2) for _ in range(2)]
    produced = 0
    bad = 0
    rounds = 0
    outside_kills = 0
    tolerate_bad = {"LOADER_MAX_BAD_RATIO": "1"}  # bad records are part of the load, not a failed run

    def produce(count: int) -> None:
        """Good records, and one that goes to the quarantine: it must be there exactly once too."""
        nonlocal produced, bad, rounds
        for rider in riders:
            rider.produce(rounds)
        rounds += 1
        for each in (topic, *clean):
            cli_harness.produce(
                each, EVENT, [{"n": produced + i, "target": f"t{produced + i}"} for i in range(count)]
            )
        cli_harness.produce_raw(topic, [b"\x01" + struct.pack(">I", bad)], partition=bad % 2)
        produced += count
        bad += 1

    for point in crash_points:
        produce(4)
        done = cli_harness.run_cli(env={"LOADER_CRASH_AT": point, **tolerate_bad})
        assert done.returncode == -signal.SIGKILL, f"{point}: {done.returncode}\n{done.stderr[-2000:]}"
    for delay in kills_from_outside:  # kill -9 from outside, wherever the run happens to be
        produce(4)
        process = start_cli(cli_harness, tolerate_bad)
        time.sleep(delay)
        if process.poll() is None:
            kill_from_outside(process)
            outside_kills += 1
        else:
            process.communicate(timeout=120)

    if table_format != "hive" and killed_after_a_whole_range:
        # Killed right after a table's Iceberg commit, and nothing new before the next run: that run finds
        # a range its table holds whole, so its write gets no row (Spark 3.5 then reports no count).
        produce(4)
        done = cli_harness.run_cli(env={"LOADER_CRASH_AT": "after_iceberg_commit", **tolerate_bad})
        assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    if kills_from_outside:  # all but one landed in a run (a fast machine may end one before its kill)
        assert outside_kills >= len(kills_from_outside) - 1, "the runs ended before the kills from outside"

    def table_of(each: str) -> str:
        return f"{cli_harness.database}.{table_name(each)}"

    statements = (
        f"SELECT _kafka_partition AS p, _kafka_offset AS o, n FROM {table_of(topic)}",
        f"SELECT partition AS p, offset AS o FROM {cli_harness.database}.{QUARANTINE_TABLE} "
        f"WHERE topic = '{topic}'",
        *(f"SELECT _kafka_partition AS p, _kafka_offset AS o, n FROM {table_of(each)}" for each in clean),
    )
    ridden = [statement for rider in riders for statement in rider.statements]
    # The run after the kills, and the reads and the audit, in an application of their own, or through
    # the worker's; a run's failed topic says why in the report, its trace in the stderr.
    if read_in is None:
        final, (loaded, quarantined, *others), audited = cli_harness.run_query_and_audit_cli(
            *statements, *ridden, max_bad_ratio=1.0
        )
        assert final["exit_code"] == 0, final
    else:
        in_process, session = read_in
        report = in_process.run(session, max_bad_ratio=1.0)
        assert report.exit_code == 0, report.to_json()
        loaded, quarantined, *others = (
            [row.asDict(recursive=True) for row in session.sql(statement).collect()]
            for statement in (*statements, *ridden)
        )
    clean_loaded, rows_of_riders = others[: len(clean)], others[len(clean) :]
    pairs = sorted((row["p"], row["o"]) for row in loaded)
    assert len(pairs) == len(set(pairs)), "a record was loaded twice"
    bad_pairs = sorted((row["p"], row["o"]) for row in quarantined)
    assert len(bad_pairs) == len(set(bad_pairs)), "a bad record was quarantined twice"
    assert len(bad_pairs) == bad, "a bad record was lost"
    ends = watermarks(cli_harness.kafka.bootstrap, [(topic, 0), (topic, 1)])
    expected = sorted((p, o) for p in (0, 1) for o in range(ends[(topic, p)].earliest, ends[(topic, p)].end))
    assert sorted(pairs + bad_pairs) == expected, "a record was lost or made up"
    assert sorted(row["n"] for row in loaded) == list(range(produced))
    for each, loaded in zip(clean, clean_loaded, strict=True):
        ends = watermarks(cli_harness.kafka.bootstrap, [(each, 0), (each, 1)])
        assert sorted((row["p"], row["o"]) for row in loaded) == sorted(
            (p, o) for p in (0, 1) for o in range(ends[(each, p)].end)
        ), f"{each}: a record was lost or loaded twice"
        assert sorted(row["n"] for row in loaded) == list(range(produced))
    for rider in riders:
        rider.check(rows_of_riders[: len(rider.statements)])
        rows_of_riders = rows_of_riders[len(rider.statements) :]
    # The audit records travel with the data through the same commits: they agree with the table.
    if read_in is None:
        assert audited["ok"], audited
    else:
        report = audit(read_in[0].settings(), read_in[1], QUARANTINE_TABLE)
        assert report.ok, report.to_json()


# A transactional topic's kills in the default tier ride along the Hive kill test's (above); the full
# tier's kill its runs at every step whose state differs, then from outside.
@FULL
def test_killed_runs_over_a_transactional_topic_load_each_committed_record_once_and_no_aborted_one(
    cli_harness: Harness,
) -> None:
    rider = kill_riders.transactional(cli_harness)
    killed_runs(cli_harness, HIVE_STATE_POINTS, rider.produce, 8.0)
    final, rows, audited = cli_harness.run_query_and_audit_cli(*rider.statements)
    assert final["exit_code"] == 0, final
    rider.check(rows)
    assert audited["ok"], audited


DRIVER_JVM_ARGUMENTS = """
import json, sys
from loader.config import LoaderSettings
from loader.job import spark_for
settings = LoaderSettings("k:9092", "http://r", sys.argv[1], driver_jit=sys.argv[2]).validate()
spark = spark_for(settings)
management = spark._jvm.java.lang.management.ManagementFactory
pools = [p for p in management.getMemoryPoolMXBeans() if p.getName().startswith(("CodeCache", "CodeHeap"))]
code_cache = sum(p.getUsage().getMax() for p in pools)
print(json.dumps([list(management.getRuntimeMXBean().getInputArguments()), code_cache]))
"""


@pytest.mark.parametrize(("jit", "quick"), [("quick", True), ("full", False)])
def test_the_driver_jvm_compiles_with_c1_alone_unless_the_full_jit_is_asked_for(
    tmp_path: Path, jit: str, quick: bool
) -> None:
    """A cron run's driver is a fresh JVM whose JIT costs more than a run over small topics itself
    (docs/loader.md, "The JIT of a fresh JVM"). Either way its code cache has the room of the JVM's own
    tiered JIT: C1 alone would otherwise get 48 MB, which Spark's code fills in a run of half a minute,
    and then the JVM stops compiling, or fails where it must compile (a method handle's intrinsic)."""
    warehouse = tmp_path / "a warehouse's directory"  # a space and a quote: the options stay whole
    (arguments, code_cache), _ = run_driver_script(DRIVER_JVM_ARGUMENTS, str(warehouse), jit, cwd=tmp_path)
    assert ("-XX:TieredStopAtLevel=1" in arguments) is quick
    assert code_cache >= 240 * 1024 * 1024
    derby_home = warehouse / EMBEDDED_METASTORE_DIR
    assert f"-Dderby.system.home={derby_home}" in arguments  # the metastore's option stays, whole


DRIVER_CLASS_ARCHIVE = """
import json, sys
from pathlib import Path
from loader.config import LoaderSettings
from loader.job import spark_for
settings = LoaderSettings("k:9092", "http://r", sys.argv[1], driver_class_archive_dir=sys.argv[2]).validate()
spark = spark_for(settings)
spark.sql("SHOW DATABASES").collect()
pid = spark._jvm.java.lang.ProcessHandle.current().pid()
runtime = spark._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
fields = [line.split(maxsplit=5) for line in Path(f"/proc/{pid}/maps").read_text().splitlines()]
mapped = sorted({each[5] for each in fields if len(each) == 6 and each[5].endswith(".jsa")})
print(json.dumps({"arguments": list(runtime.getInputArguments()), "mapped": mapped}))
spark.stop()
"""


def test_the_driver_jvm_writes_its_class_archive_once_and_maps_it_next_time(tmp_path: Path) -> None:
    """The first JVM writes the archive as it exits, the next ones map it (docs/loader.md, "The driver
    JVM's class archive")."""
    archive_dir = tmp_path / "the driver's jvm, a=b"  # a space, a quote, the JVM's option separators

    def driver(warehouse: str) -> dict:
        seen, printed = run_driver_script(
            DRIVER_CLASS_ARCHIVE, str(tmp_path / warehouse), str(archive_dir), cwd=tmp_path
        )
        assert "[cds]" not in printed  # the JVM's archiving notes go to its log
        return seen

    first = driver("one")
    (archive,) = archive_dir.glob("driver-*.jsa")  # written whole, moved into place, nothing pending
    assert sorted(path.name for path in archive_dir.iterdir()) == [archive.name, archive.stem + ".log"]
    (writing,) = (arg for arg in first["arguments"] if arg.startswith("-XX:ArchiveClassesAtExit="))
    assert writing.startswith(f"-XX:ArchiveClassesAtExit={archive}.") and writing.endswith(".pending")
    assert str(archive) not in first["mapped"]
    written = archive.stat()

    second = driver("two")  # another warehouse: the archive depends on the JVM and Spark, not on it
    assert f"-XX:SharedArchiveFile={archive}" in second["arguments"]
    assert str(archive) in second["mapped"]  # the JVM did map it
    used = archive.stat()
    assert (used.st_ino, used.st_size) == (written.st_ino, written.st_size)  # mapped, not written again
    assert used.st_mtime_ns > written.st_mtime_ns  # marked as used (old archives go after a week unused)
    assert sorted(path.name for path in archive_dir.iterdir()) == [archive.name, archive.stem + ".log"]

    # A run killed before its end leaves its JVM writing a pending archive: the next run, which finds no
    # archive, neither writes one beside it nor maps one.
    archive.rename(archive.with_name(f"{archive.name}.1.pending"))
    third = driver("three")
    assert not any(arg.startswith("-XX:ArchiveClassesAtExit=") for arg in third["arguments"])
    assert not any(arg.startswith("-XX:SharedArchiveFile=") for arg in third["arguments"])
    assert sorted(path.name for path in archive_dir.iterdir()) == [
        f"{archive.name}.1.pending",
        archive.stem + ".log",
    ]
