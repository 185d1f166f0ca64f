"""SIGTERM and SIGINT sent to a real `loader run`: the first stops it at its next safe point, before the
commit point, with its scratch directory, staging and lock gone and status 143 (SIGTERM) or 130 (SIGINT);
a second one stops it at once. Either way the next run loads every record exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loader.outcome.report import EXIT_SIGNALLED
from loader.outcome.signals import Action, RunStop, StopRequested, action_for
from loader.runtime.driver_scratch import PREFIX
from loader.schema.naming import table_name
from tests.loader.harness import REPO_ROOT, Harness, committed_offsets, record_schema

EVENT = record_schema("Beat", [{"name": "n", "type": "long", "doc": "Sequence number."}])


def test_the_first_signal_asks_for_a_stop_and_a_second_one_exits() -> None:
    assert action_for(None) is Action.STOP_AT_SAFE_POINT
    assert action_for(signal.SIGTERM) is Action.EXIT_NOW
    stop = RunStop()
    stop.check()  # no signal: nothing to do
    stop.request(signal.SIGTERM)
    assert stop.woken.is_set()
    with pytest.raises(StopRequested, match="stopped by SIGTERM"):
        stop.check()


def start_run(harness: Harness, temporary: Path) -> subprocess.Popen[str]:
    """`loader run` held after staging its files (until a signal ends the wait), its driver's scratch
    directory in `temporary`."""
    command = [
        sys.executable, "-m", "loader.cli", "run",
        "--bootstrap-servers", harness.kafka.bootstrap, "--registry-url", harness.registry_url,
        "--warehouse", str(harness.warehouse), "--database", harness.database,
        "--partition-granularity", "day", "--include-topics", f"{harness.prefix}.*",
    ]  # fmt: skip
    env = {
        **os.environ,
        **harness.cli_env(),
        "TMPDIR": str(temporary),
        "LOADER_PAUSE_AT": "after_staging:600",
    }
    return subprocess.Popen(
        command, env=env, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def wait_for_staged_files(harness: Harness, run: subprocess.Popen[str]) -> None:
    staging = harness.warehouse / "_loader_state" / harness.database / "staging"
    deadline = time.monotonic() + 240
    while not (staging.exists() and any(p.is_file() for p in staging.rglob("*.orc"))):
        assert run.poll() is None, run.communicate()
        assert time.monotonic() < deadline, "the run staged nothing"
        time.sleep(0.2)


def assert_left_nothing(harness: Harness, temporary: Path) -> None:
    state = harness.warehouse / "_loader_state" / harness.database
    assert list(temporary.glob(f"{PREFIX}*")) == []  # the driver's scratch directory is gone
    assert not (state / "commits").exists() or list((state / "commits").glob("*.json")) == []


def assert_next_run_loads_every_record_once(harness: Harness, topic: str) -> None:
    """The next run, its table read and audited in one application (the run after a signal needs no
    process of its own): the lock is free, it loads, every record once."""
    table = f"{harness.database}.{table_name(topic)}"
    report, [rows], audited = harness.run_query_and_audit_cli(
        f"SELECT _kafka_partition AS p, _kafka_offset AS o FROM {table}"
    )
    assert report["exit_code"] == 0, report
    assert sorted((r["p"], r["o"]) for r in rows) == committed_offsets(harness, topic)
    assert audited["ok"], audited


@pytest.mark.integration
def test_sigterm_stops_the_run_before_its_commit_and_the_next_run_loads_everything_once(
    cli_harness: Harness, tmp_path: Path
) -> None:
    topic = cli_harness.topic(partitions=2)
    cli_harness.produce(topic, EVENT, [{"n": i} for i in range(20)])
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    run = start_run(cli_harness, temporary)
    try:
        wait_for_staged_files(cli_harness, run)
        signalled = time.monotonic()
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=60)
    finally:
        run.kill()
    assert time.monotonic() - signalled < 30  # stopped within a bounded time
    assert run.returncode == EXIT_SIGNALLED + signal.SIGTERM, err[-3000:]
    assert "error: stopped by SIGTERM before the commit point: nothing was committed, no offset moved" in out
    staging = cli_harness.warehouse / "_loader_state" / cli_harness.database / "staging"
    assert not staging.exists() or not any(p.is_file() for p in staging.rglob("*"))
    assert_left_nothing(cli_harness, temporary)

    assert_next_run_loads_every_record_once(cli_harness, topic)


@pytest.mark.integration
def test_a_second_signal_stops_the_run_at_once(cli_harness: Harness, tmp_path: Path) -> None:
    topic = cli_harness.topic()
    cli_harness.produce(topic, EVENT, [{"n": i} for i in range(5)])
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    run = start_run(cli_harness, temporary)
    try:
        wait_for_staged_files(cli_harness, run)
        run.send_signal(signal.SIGTERM)
        run.send_signal(signal.SIGINT)  # the second: at once
        out, err = run.communicate(timeout=30)
    finally:
        run.kill()
    # Both arrive before Python runs its handlers, which it runs in signal number order: the status is
    # the one of whichever it handled second.
    assert run.returncode in (EXIT_SIGNALLED + signal.SIGINT, EXIT_SIGNALLED + signal.SIGTERM), err[-3000:]
    assert "stopped by" not in out  # no report: it did not wait for the safe point
    assert_left_nothing(cli_harness, temporary)

    assert_next_run_loads_every_record_once(cli_harness, topic)
