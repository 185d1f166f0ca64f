"""One run at a time per state directory, so cron can start runs without checking.

On a local disk the lock is an OS lock (`flock`) on a file in the state directory: it is released when
the process ends however it ends, so a killed run never leaves a stale lock. On HDFS or an object store,
the lock is a file created exclusively with the owner's host and pid; a run killed there leaves it
behind, and `loader unlock` (after making sure no run is alive) removes it.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from loader.state_store import StateStore


class LockHeld(RuntimeError):
    """Another run holds the lock."""


@dataclass
class RunLock:
    """The lock of one state directory; a local one is taken without Spark, so a second run started
    by cron exits before it pays for starting a JVM."""

    state_location: str
    store: StateStore | None = None  # needed only for a state directory on HDFS or an object store
    _handle: IO[str] | None = None
    _remote_path: str | None = None

    @property
    def location(self) -> str:
        return self.state_location.rstrip("/") + "/lock"

    @property
    def is_local(self) -> bool:
        return _local_path(self.location) is not None

    @property
    def held(self) -> bool:
        return self._handle is not None or self._remote_path is not None

    def acquire(self) -> None:
        owner = json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "since": time.time()})
        location = self.location
        local = _local_path(location)
        if local is not None:
            local.parent.mkdir(parents=True, exist_ok=True)
            handle = local.open("a+")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.seek(0)
                holder = handle.read().strip() or "unknown"
                handle.close()
                raise LockHeld(f"another loader run holds the lock {local} ({holder})") from None
            handle.seek(0)
            handle.truncate()
            handle.write(owner)
            handle.flush()
            self._handle = handle
            return
        if self.store is None:
            raise ValueError(f"a lock on {location} needs the Hadoop file system (a StateStore)")
        try:
            self.store.write_text(location, owner, overwrite=False)
        except Exception as exc:  # the JVM says FileAlreadyExistsException
            raise LockHeld(
                f"another loader run holds the lock {location}; remove it only if none runs"
            ) from exc
        self._remote_path = location

    def release(self) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None
        if self._remote_path is not None and self.store is not None:
            self.store.delete(self._remote_path, recursive=False)
            self._remote_path = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _local_path(location: str) -> Path | None:
    """The local file behind a `file:` URI or a plain path; None on HDFS or an object store."""
    if location.startswith("file:"):
        return Path("/" + location.removeprefix("file:").lstrip("/"))
    if "://" not in location:
        return Path(location)
    return None
