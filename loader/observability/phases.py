"""The phases of a run and how long each took, for the report and its metrics."""

from __future__ import annotations

import os
import time
from pathlib import Path

# The phase before a `loader run` process's run: Python, the driver JVM and Spark starting.
START = "start"
_IMPORTED = time.time()


def process_started() -> float:
    """When this process started (seconds since the epoch): from Linux's process table (its start and
    the system's uptime, both since boot), else when this module was first imported (early in a `loader`
    process, after Python's own start)."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return _IMPORTED
    return time.time() - max(0.0, uptime - ticks / os.sysconf("SC_CLK_TCK"))


class PhaseClock:
    """Records into `phases` the seconds since the previous phase ended (or since the clock started)
    each time a phase is done: recover, plan, load, commit. A phase a run never finished is absent."""

    def __init__(self, phases: dict[str, float]) -> None:
        self._phases = phases
        self._since = time.monotonic()

    def done(self, phase: str) -> None:
        now = time.monotonic()
        self._phases[phase] = round(now - self._since, 3)
        self._since = now
