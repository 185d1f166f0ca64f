"""Stale ``registry-metrics-*`` directories: judged by their processes, cleared at the next start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from registry import metrics_dirs
from registry.metrics_dirs import PREFIX, clear_stale_metrics_dirs, make_metrics_dir
from tests.fixtures.processes import children
from tests.fixtures.registry_server import start_registry


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_directory_is_stale_only_when_every_process_that_used_it_is_gone(tmp_path: Path) -> None:
    gone = dead_pid()
    mine = Path(make_metrics_dir(str(tmp_path)))
    (mine / "counter_1.db").write_bytes(b"")
    dead_owner = tmp_path / f"{PREFIX}{gone}-abc"
    dead_owner.mkdir()
    (dead_owner / f"counter_{gone}.db").write_bytes(b"")
    live_worker = tmp_path / f"{PREFIX}{gone}-def"  # owner gone, one worker still running (this one)
    live_worker.mkdir()
    (live_worker / f"histogram_{os.getpid()}.db").write_bytes(b"")
    old_format_dead = tmp_path / f"{PREFIX}k3j2h1"
    old_format_dead.mkdir()
    (old_format_dead / f"counter_{gone}.db").write_bytes(b"")
    old_format_empty_new = tmp_path / f"{PREFIX}q9w8e7"
    old_format_empty_new.mkdir()
    old_format_empty_old = tmp_path / f"{PREFIX}z1x2c3"
    old_format_empty_old.mkdir()
    hour_ago = time.time() - metrics_dirs.UNOWNED_GRACE_SECONDS - 60
    os.utime(old_format_empty_old, (hour_ago, hour_ago))
    unrelated = tmp_path / f"other-{gone}-x"
    unrelated.mkdir()

    removed = clear_stale_metrics_dirs(str(tmp_path))

    assert sorted(removed) == sorted([dead_owner, old_format_dead, old_format_empty_old])
    assert all(not path.exists() for path in removed)
    assert mine.name.startswith(f"{PREFIX}{os.getpid()}-")
    for kept in (mine, live_worker, old_format_empty_new, unrelated):
        assert kept.is_dir()


@pytest.mark.integration
def test_a_zombie_is_not_alive_and_a_directory_it_named_is_stale(tmp_path: Path) -> None:
    """A SIGKILLed registry's workers are zombies until whoever adopted them reaps them: dead all the
    same, and never to write their files again."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline, "the child never ended"
        time.sleep(0.05)
    try:
        assert not metrics_dirs.process_alive(child.pid)  # ended, not yet reaped
        left = tmp_path / f"{PREFIX}{child.pid}-abc"
        left.mkdir()
        assert metrics_dirs.is_stale(left)
    finally:
        child.wait()
    assert metrics_dirs.process_alive(os.getpid())


def test_serve_clears_the_directory_a_sigkilled_registry_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    database = f"sqlite:///{tmp_path / 'registry.db'}"
    first = start_registry(database, tmp_path, workers=2, threads=1)
    try:
        assert requests.get(first.url + "/metrics", timeout=10).status_code == 200
        (left,) = list(temp.glob(PREFIX + "*"))
        assert left.name.startswith(f"{PREFIX}{first.process.pid}-")
        workers = {int(name.rsplit("_", 1)[1][:-3]) for name in os.listdir(left) if name.endswith(".db")}
        assert workers, "the workers wrote their metrics files"
        # The whole registry killed at once, as the OOM killer or `kill -9` of its process group does:
        # stopped first, so that no worker is started between the listing of its workers and the kill
        # (one still starting when `GET /` answered has not written its file yet).
        first.process.send_signal(signal.SIGSTOP)
        killed = workers | set(children(first.process.pid))
        first.process.send_signal(signal.SIGKILL)
        for pid in killed:
            os.kill(pid, signal.SIGKILL)
        first.process.wait(timeout=10)
        deadline = time.monotonic() + 30
        while any(metrics_dirs.process_alive(pid) for pid in killed) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(metrics_dirs.process_alive(pid) for pid in killed), "every process killed is gone"
        assert left.is_dir(), "a SIGKILLed registry cannot remove its directory"
    finally:
        first.stop()

    second = start_registry(database, tmp_path, workers=1, threads=1)
    try:
        assert not left.exists(), f"left behind, with {os.listdir(left)}:\n{second.output()}"
        (own,) = list(temp.glob(PREFIX + "*"))
        assert own.name.startswith(f"{PREFIX}{second.process.pid}-")
        assert f"registry: removed {left}" in second.output()
    finally:
        second.stop()
    assert list(temp.glob(PREFIX + "*")) == [], "a registry stopped normally removes its own"


@pytest.mark.integration
def test_a_worker_leaving_does_not_remove_the_directory_its_registry_still_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that exits (here: its arbiter asks it to, as on a restart) unwinds through serve's own
    frame after the fork; the directory stays for the arbiter and the other workers."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    server = start_registry(f"sqlite:///{tmp_path / 'registry.db'}", tmp_path, workers=2, threads=1)
    try:
        (used,) = list(temp.glob(PREFIX + "*"))
        workers = {int(name.rsplit("_", 1)[1][:-3]) for name in os.listdir(used) if name.endswith(".db")}
        os.kill(server.process.pid, signal.SIGTTOU)  # gunicorn: one worker fewer, stopped gracefully
        deadline = time.monotonic() + 20
        while all(metrics_dirs.process_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not all(metrics_dirs.process_alive(pid) for pid in workers), "a worker left"
        time.sleep(0.5)
        assert used.is_dir()
        assert requests.get(server.url + "/metrics", timeout=10).status_code == 200
    finally:
        server.stop()
