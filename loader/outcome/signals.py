"""SIGTERM and SIGINT during a run (what cron wrappers, systemd and Kubernetes send before SIGKILL): the
first asks the run to stop at its next safe point, the second stops the process at once.

The first signal cancels Spark's running jobs, so the topics' passes end within seconds, and the run
checks at its safe points (before it reads Kafka, before each topic's pass, before the commit point, and
between the runs of `--until-caught-up`) whether it was asked to stop. Stopped before the commit point, it
deletes what it staged and commits nothing; a signal that comes after the commit point lets it complete
that commit (moves and partitions: the shortest step of a run). Either way it then releases its lock, removes
its scratch directory and exits with 128 plus the signal's number (130 for SIGINT, 143 for SIGTERM).

The second signal exits at once with the same status, as `kill -9` would but with the scratch directory
removed; the lock dies with the process, and the next run completes or drops what it left, as after any
kill (docs/loader.md, "Exactly once: the commit protocol").

The driver JVM starts with both signals ignored (a signal sent to the whole process group, as systemd
does, would otherwise end it at once, under the run's feet): the Python process decides, and the JVM ends
with it.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from enum import Enum
from types import FrameType

from loader.outcome.report import EXIT_SIGNALLED

SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopRequested(RuntimeError):
    """The run was asked to stop by a signal; raised at a safe point."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


class Action(Enum):
    STOP_AT_SAFE_POINT = "stop at the next safe point"
    EXIT_NOW = "exit at once"


def action_for(earlier: int | None) -> Action:
    """What a signal does, given the signal that came before it (None: the first)."""
    return Action.STOP_AT_SAFE_POINT if earlier is None else Action.EXIT_NOW


class RunStop:
    """The run's stop request: set by the first signal, read at the safe points."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._on_stop: list[Callable[[], None]] = []
        self._before_exit: list[Callable[[], None]] = []
        self.woken = threading.Event()  # set with the request: waits that should end with the run end

    def on_stop(self, action: Callable[[], None]) -> None:
        """Runs `action` (in a thread of its own) when the first signal comes: cancels Spark's jobs."""
        self._on_stop.append(action)

    def before_exit_now(self, action: Callable[[], None]) -> None:
        """Runs `action` before a second signal's exit (removes the driver's scratch directory)."""
        self._before_exit.append(action)

    def check(self) -> None:
        """A safe point: raises `StopRequested` when a signal asked the run to stop."""
        if self.signum is not None:
            raise StopRequested(self.signum)

    def request(self, signum: int) -> None:
        """What the signal handler does: the first signal's request, or the second's exit."""
        if action_for(self.signum) is Action.EXIT_NOW:
            for action in self._before_exit:
                _quietly(action)
            os._exit(EXIT_SIGNALLED + signum)
        self.signum = signum
        self.woken.set()
        for action in self._on_stop:  # never in the handler itself: it may wait on the JVM
            threading.Thread(target=_quietly, args=(action,), name="loader-stop", daemon=True).start()

    def install(self) -> None:
        """Handles SIGTERM and SIGINT in this (the main) thread from now on."""
        for signum in SIGNALS:
            signal.signal(signum, self._handle)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.request(signum)


def _quietly(action: Callable[[], None]) -> None:
    with suppress(Exception):  # the JVM may be going: nothing left to cancel
        action()


@contextmanager
def ignored_by_children() -> Iterator[None]:
    """Processes started inside (the driver JVM) ignore SIGTERM and SIGINT for good; a signal that comes
    meanwhile is held, then handled by this process's handler once the block ends."""
    previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    previous = {signum: signal.signal(signum, signal.SIG_IGN) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)


# The process's one stop request (a `loader` command is one run at a time).
STOP = RunStop()
