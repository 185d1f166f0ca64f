"""The multiprocess-metrics directories ``registry serve`` makes, and clearing those a dead registry left.

``registry serve`` keeps its workers' Prometheus files in a temporary directory named
``registry-metrics-<pid>-<random>`` (``<pid>``: the serving process) and removes it when it stops. A
registry killed with SIGKILL cannot remove it; the next start clears every such directory whose processes
are all gone: the owner named in the directory's name, and every worker whose pid names a ``*_<pid>.db``
file in it (directories of older versions carry no owner in their name; they are judged by those files,
and when they hold none, by their age).

Kept apart from ``registry.observability.metrics``: that module imports prometheus_client, which must
only be imported once ``PROMETHEUS_MULTIPROC_DIR`` is set, after this module has run.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path

PREFIX = "registry-metrics-"
#: An owner-less directory without a worker's file is left alone this long (a registry still starting).
UNOWNED_GRACE_SECONDS = 3600.0
_OWNER = re.compile(rf"^{re.escape(PREFIX)}(\d+)-")
_WORKER_FILE = re.compile(r"_(\d+)\.db$")


def make_metrics_dir(parent: str | None = None) -> str:
    """A new directory for this process's metrics, its pid in the name."""
    return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=parent)


def process_alive(pid: int) -> bool:
    """Whether a process with this pid exists and can still run (one of another user counts as alive; a
    zombie, dead and not yet reaped by its parent, does not: a killed registry's workers stay zombies
    until whoever adopted them reaps them)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Whether Linux's process table says the process is a zombie (elsewhere: not known, so no)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state == "Z"


def _pids(directory: Path) -> set[int]:
    """The owner named in the directory's name and the workers that wrote files in it."""
    pids: set[int] = set()
    owner = _OWNER.match(directory.name)
    if owner:
        pids.add(int(owner.group(1)))
    try:
        names = os.listdir(directory)
    except OSError:
        return pids
    for name in names:
        worker = _WORKER_FILE.search(name)
        if worker:
            pids.add(int(worker.group(1)))
    return pids


def is_stale(directory: Path, now: float | None = None) -> bool:
    """True when no process that used ``directory`` is alive (so nothing will write there again)."""
    pids = _pids(directory)
    if pids:
        return not any(pid == os.getpid() or process_alive(pid) for pid in pids)
    try:
        age = (now if now is not None else time.time()) - directory.stat().st_mtime
    except OSError:
        return False
    return age > UNOWNED_GRACE_SECONDS


def clear_stale_metrics_dirs(parent: str | None = None) -> list[Path]:
    """Removes the stale ``registry-metrics-*`` directories under ``parent`` (default: the temp
    directory); returns those removed. Directories it may not remove are left as they are."""
    base = Path(parent or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = sorted(base.glob(PREFIX + "*"))
    except OSError:
        return removed
    for entry in entries:
        if entry.is_symlink() or not entry.is_dir() or not is_stale(entry):
            continue
        try:
            shutil.rmtree(entry)
        except OSError:
            continue
        removed.append(entry)
    return removed
