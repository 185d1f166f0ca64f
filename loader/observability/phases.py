"""The phases of a run and how long each took, for the report and its metrics."""

from __future__ import annotations

import time


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
