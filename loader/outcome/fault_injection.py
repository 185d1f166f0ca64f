"""Named points where tests kill the job (`LOADER_CRASH_AT=<point>`), to prove each step of the commit
protocol can be interrupted and redone. Nothing happens unless that variable names the point."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from loader.outcome.signals import STOP

CRASH_POINTS = (
    "after_recovery",
    "after_plan",
    "after_table_ready",
    "after_staging",
    "after_manifest_temp",
    "after_manifest",
    "after_first_move",
    "after_moves",
    "after_partitions",
    "after_applied_marker",
)
# Iceberg tables commit each append themselves, before the run's manifest (see `loader.formats.iceberg`).
ICEBERG_CRASH_POINTS = (*CRASH_POINTS[:3], "after_iceberg_commit", *CRASH_POINTS[3:])
# A run of a topic with a current-state table: its merge commits after its history append.
CURRENT_STATE_CRASH_POINTS = (*ICEBERG_CRASH_POINTS[:4], "after_current_commit", *ICEBERG_CRASH_POINTS[4:])
# How often a paused run looks whether the test has removed its marker file.
MARKER_POLL_S = 0.1


def crash_point(name: str) -> None:
    """Kills this process at once (no cleanup, like `kill -9`) when LOADER_CRASH_AT names this point;
    waits there when LOADER_PAUSE_AT is `<point>:<seconds>` (to hold a run in place for a test), as a
    step of work would: until the time is up, or until a signal asks the run to stop
    (`loader.outcome.signals`), as a Spark job ends when the signal cancels it. With LOADER_PAUSED_FILE, a
    file made when the wait starts tells the test the run is there, and the test removing it ends the
    wait: the test lets the run go on once it has done what it paused the run for."""
    if os.environ.get("LOADER_CRASH_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
    point, _, seconds = os.environ.get("LOADER_PAUSE_AT", "").partition(":")
    if point == name:
        pause(float(seconds or 0), os.environ.get("LOADER_PAUSED_FILE"))


def pause(seconds: float, marker: str | None) -> None:
    """Waits `seconds`, or until a stop signal; with `marker`, makes that file first and ends the wait
    as soon as it is gone."""
    if not marker:
        STOP.woken.wait(seconds)
        return
    paused = Path(marker)
    paused.touch()
    deadline = time.monotonic() + seconds
    while paused.exists() and (left := deadline - time.monotonic()) > 0:
        if STOP.woken.wait(min(left, MARKER_POLL_S)):
            return
