"""One run at a time per state directory, so cron can start runs without checking.

On a local disk the lock is an OS lock (`flock`) on a file in the state directory: it is released when
the process ends however it ends, so a killed run never leaves a stale lock. On HDFS (or an object store
through Hadoop's S3A), the lock is a file created exclusively with the owner's host and pid; a run killed
there leaves it behind, and `loader unlock` removes it once it is sure that run is gone
(``unlock_decision``). A state directory a REST catalog's run keeps on S3 through Iceberg's S3FileIO has no
lock file (`StateFiles.atomic_create` is False there): the catalog's lock table is the lock
(`loader.formats.catalog_lock`).
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import IO, Protocol

from py4j.protocol import Py4JJavaError

from loader.planning.state_store import StateFiles
from loader.runtime.spark_session import local_path


class LockHeld(RuntimeError):
    """Another run holds the lock."""


class LockFiles(Protocol):
    """Where a lock that is not a local OS lock is kept: a file on HDFS or an object store (a
    `StateFiles`), or a table in a catalog (`loader.formats.catalog_lock`). `write_text` without
    overwrite is an atomic create: it fails when the lock exists."""

    def write_text(self, location: str, text: str, overwrite: bool = False) -> None: ...
    def exists(self, location: str) -> bool: ...
    def read_text(self, location: str) -> str: ...
    def delete(self, location: str, recursive: bool = True) -> None: ...


@dataclass(frozen=True)
class LockOwner:
    """Who took a lock, as written into it: enough to tell whether that run can still be alive."""

    host: str
    pid: int
    since: float

    @classmethod
    def parse(cls, text: str) -> LockOwner | None:
        """None when the record is unreadable (a run killed while writing it leaves it empty)."""
        try:
            record = json.loads(text)
            return cls(host=str(record["host"]), pid=int(record["pid"]), since=float(record["since"]))
        except (ValueError, TypeError, KeyError):
            return None

    def describe(self) -> str:
        started = datetime.fromtimestamp(self.since, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        return f"pid {self.pid} on {self.host}, since {started}"

    def alive_here(self, this_host: str) -> bool | None:
        """Whether the owner's process is alive; None when it ran on another host (it cannot be asked)."""
        if self.host != this_host:
            return None
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # alive, run by another user
            return True
        return True


class Unlock(Enum):
    """What `loader unlock` may do with a lock left on HDFS or an object store."""

    NOTHING_TO_DO = "no lock"
    REFUSE = "its run is alive"
    REMOVE = "its run is gone"
    ASK = "its run's host cannot be checked from here"


def unlock_decision(present: bool, owner: LockOwner | None, this_host: str) -> Unlock:
    """A lock is removed without asking only when its run is known to be dead: a pid of this host that
    no longer exists. A run on another host, or an owner record that cannot be read, needs an operator."""
    if not present:
        return Unlock.NOTHING_TO_DO
    if owner is None:
        return Unlock.ASK
    alive = owner.alive_here(this_host)
    if alive is None:
        return Unlock.ASK
    return Unlock.REFUSE if alive else Unlock.REMOVE


@dataclass
class RunLock:
    """The lock of one state directory; a local one is taken without Spark, so a second run started
    by cron exits before it pays for starting a JVM."""

    state_location: str
    # Needed only for a lock that is no local file: a state directory on HDFS or an object store, or a
    # catalog's table (then `name` says which).
    store: StateFiles | LockFiles | None = None
    name: str | None = None
    file_name: str = "lock"  # in the state directory (the embedded metastore's lock: beside its database)
    _handle: IO[str] | None = None
    _remote_path: str | None = None

    @property
    def location(self) -> str:
        return self.name or self.state_location.rstrip("/") + "/" + self.file_name

    @property
    def is_local(self) -> bool:
        return self._local() is not None

    def _local(self) -> Path | None:
        """The local lock file, or None for a lock on HDFS, an object store or in a catalog."""
        return None if self.name else local_path(self.location)

    @property
    def held(self) -> bool:
        return self._handle is not None or self._remote_path is not None

    def acquire(self) -> None:
        record = json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "since": time.time()})
        location = self.location
        local = self._local()
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
            handle.write(record)
            handle.flush()
            self._handle = handle
            return
        try:
            self._remote_store().write_text(location, record, overwrite=False)
        except ConnectionError:  # where the lock is kept did not answer: no run is known to hold it
            raise
        except Exception as exc:  # the JVM says FileAlreadyExistsException (a catalog: FileExistsError)
            holder = self.owner()
            raise LockHeld(
                f"another loader run holds the lock {location} "
                f"({holder.describe() if holder else 'owner unreadable'}); "
                "if that run is gone, `loader unlock` removes the lock"
            ) from exc
        self._remote_path = location

    def present(self) -> bool:
        """Whether a lock file exists (on a local disk it does after any run: only its flock counts)."""
        local = self._local()
        if local is not None:
            return local.exists()
        return self._remote_store().exists(self.location)

    def owner(self) -> LockOwner | None:
        """The owner written into the lock file; None when there is none or it cannot be read."""
        try:
            return LockOwner.parse(self._read_record())
        except (OSError, Py4JJavaError):  # gone in the meantime, or unreadable: no owner to name
            return None

    def _read_record(self) -> str:
        local = self._local()
        if local is not None:
            return local.read_text()
        return self._remote_store().read_text(self.location)

    def remove_left_behind(self) -> None:
        """Deletes a lock on HDFS or an object store; the caller has made sure its run is gone."""
        if self.is_local:
            raise ValueError("a local lock is an OS lock that ends with its process: there is none to remove")
        self._remote_store().delete(self.location, recursive=False)

    def _remote_store(self) -> StateFiles | LockFiles:
        if self.store is None:
            raise ValueError(f"a lock on {self.location} needs the state directory's files (StateFiles)")
        return self.store

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
