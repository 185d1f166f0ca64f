"""The driver JVM's scratch directory: a private temporary directory a run's driver works in (see
`loader.runtime.spark_session`), removed when the run ends, and removed by a later run when the run that
made it was killed before it could remove it itself.

A run killed with SIGKILL (the kernel's OOM killer, a cron wrapper's timeout, a node drained) runs no
exit handler, so its directory would stay in the system's temporary directory for good: one per killed
run. Each directory holds a lock file its run keeps locked (`flock`) while it lives; the kernel lets go of
that lock when the process dies, however it dies. A later run takes the lock of every other run's
directory it can and removes those directories: a run still alive keeps its lock, so its directory is
left alone, on this host and in any PID namespace sharing the directory. A directory without the lock
file (one made by an older version of the loader, or one being made this instant) is left alone too.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import shutil
import tempfile
from pathlib import Path
from typing import IO

PREFIX = "loader-spark-driver-"
OWNER_LOCK = ".owner.lock"

# This process's lock files, open (so locked) until it exits, and its directories.
_held: list[IO[bytes]] = []
_made: list[Path] = []


def make_scratch_directory(root: Path | None = None) -> Path:
    """A fresh directory under `root` (the system's temporary directory by default), removed when this
    process exits; first removes the directories of runs that died without removing theirs."""
    parent = Path(root) if root is not None else Path(tempfile.gettempdir())
    remove_abandoned(parent)
    scratch = Path(tempfile.mkdtemp(prefix=PREFIX, dir=parent))
    # Locked under another name, then renamed: a run sweeping at this instant never finds the lock file
    # unlocked. Not inherited by child processes (PEP 446): the lock lives as long as this process.
    lock = (scratch / f"{OWNER_LOCK}.new").open("wb")
    fcntl.flock(lock, fcntl.LOCK_EX)
    os.rename(scratch / f"{OWNER_LOCK}.new", scratch / OWNER_LOCK)
    _held.append(lock)
    _made.append(scratch)
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    return scratch


def remove_own() -> None:
    """Removes this process's directories now: for an exit that runs no exit handler (`os._exit`)."""
    for scratch in _made:
        shutil.rmtree(scratch, ignore_errors=True)


def remove_abandoned(root: Path) -> list[Path]:
    """Removes the scratch directories under `root` whose run has died; returns them."""
    removed = []
    for directory in sorted(root.glob(f"{PREFIX}*")):
        try:
            lock = (directory / OWNER_LOCK).open("rb")
        except OSError:  # no lock file (an older version's, or being made), or not ours to open
            continue
        with lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # its run is alive (this process's own directories included)
                continue
            shutil.rmtree(directory, ignore_errors=True)
        if not os.path.exists(directory):
            removed.append(directory)
    return removed
