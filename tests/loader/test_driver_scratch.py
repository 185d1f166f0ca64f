"""The driver's scratch directories: a run's own goes when it exits, and one left by a run killed with
SIGKILL goes at the next run's start, while a live run's stays (see `loader.runtime.driver_scratch`)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from loader.runtime.driver_scratch import OWNER_LOCK, PREFIX, make_scratch_directory, remove_abandoned

REPO_ROOT = Path(__file__).resolve().parents[2]


def _owner(root: Path, then: str) -> subprocess.Popen[str]:
    """A Python process that makes a scratch directory under `root`, prints it, then runs `then`."""
    code = textwrap.dedent(
        f"""
        import os, signal, sys, time
        from pathlib import Path
        from loader.runtime.driver_scratch import make_scratch_directory
        print(make_scratch_directory(Path(sys.argv[1])), flush=True)
        {then}
        """
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, str(root)], cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True
    )


def _made_by(owner: subprocess.Popen[str]) -> Path:
    assert owner.stdout is not None
    return Path(owner.stdout.readline().strip())


def test_a_run_removes_its_directory_when_it_exits(tmp_path: Path) -> None:
    owner = _owner(tmp_path, "sys.exit(0)")
    made = _made_by(owner)
    assert owner.wait(timeout=30) == 0
    assert made.parent == tmp_path and made.name.startswith(PREFIX)
    assert not made.exists()


def test_the_directory_of_a_killed_run_goes_at_the_next_start(tmp_path: Path) -> None:
    owner = _owner(tmp_path, "os.kill(os.getpid(), signal.SIGKILL)")
    killed = _made_by(owner)
    assert owner.wait(timeout=30) == -signal.SIGKILL
    (killed / "artifacts").mkdir()  # what a driver leaves in it
    assert killed.is_dir()  # no exit handler ran

    mine = make_scratch_directory(tmp_path)

    assert not killed.exists()
    assert mine.is_dir() and (mine / OWNER_LOCK).is_file()
    assert sorted(tmp_path.iterdir()) == [mine]


def test_a_live_runs_directory_stays_until_it_dies(tmp_path: Path) -> None:
    owner = _owner(tmp_path, "time.sleep(60)")
    try:
        alive = _made_by(owner)
        assert remove_abandoned(tmp_path) == []
        make_scratch_directory(tmp_path)
        assert alive.is_dir()
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait(timeout=30)
    assert remove_abandoned(tmp_path) == [alive]
    assert not alive.exists()


def test_this_processs_own_directory_is_never_taken_for_abandoned(tmp_path: Path) -> None:
    mine = make_scratch_directory(tmp_path)
    assert remove_abandoned(tmp_path) == []
    assert mine.is_dir()


def test_directories_without_a_lock_file_are_left_alone(tmp_path: Path) -> None:
    """An older version's directory (no lock file) may belong to a run still going: not ours to judge."""
    older = tmp_path / f"{PREFIX}older"
    older.mkdir()
    unrelated = tmp_path / "someone-elses"
    unrelated.mkdir()
    (unrelated / OWNER_LOCK).touch()
    make_scratch_directory(tmp_path)
    assert older.is_dir() and unrelated.is_dir()
