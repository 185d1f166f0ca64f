"""Named points where tests kill the job (`LOADER_CRASH_AT=<point>`), to prove each step of the commit
protocol can be interrupted and redone. Nothing happens unless that variable names the point."""

from __future__ import annotations

import os
import signal

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


def crash_point(name: str) -> None:
    """Kills this process at once (no cleanup, like `kill -9`) when LOADER_CRASH_AT names this point."""
    if os.environ.get("LOADER_CRASH_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
