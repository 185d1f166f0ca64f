"""The pause a test holds a run in (`LOADER_PAUSE_AT`): its marker file says the run is there, and
removing the file lets the run go on."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from loader.outcome.fault_injection import crash_point


def paused_run(point: str) -> threading.Thread:
    run = threading.Thread(target=crash_point, args=(point,), daemon=True)
    run.start()
    return run


def test_removing_the_marker_ends_the_pause(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "paused"
    monkeypatch.setenv("LOADER_PAUSE_AT", "after_staging:600")
    monkeypatch.setenv("LOADER_PAUSED_FILE", str(marker))
    run = paused_run("after_staging")
    run.join(timeout=0.5)
    assert run.is_alive() and marker.exists()  # there, and waiting
    marker.unlink()
    run.join(timeout=30)  # not the pause's 600 s
    assert not run.is_alive()


def test_the_pause_ends_when_its_time_is_up_though_the_marker_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "paused"
    monkeypatch.setenv("LOADER_PAUSE_AT", "after_staging:0.3")
    monkeypatch.setenv("LOADER_PAUSED_FILE", str(marker))
    run = paused_run("after_staging")
    run.join(timeout=30)
    assert not run.is_alive() and marker.exists()


def test_another_point_does_not_pause(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "paused"
    monkeypatch.setenv("LOADER_PAUSE_AT", "after_staging:600")
    monkeypatch.setenv("LOADER_PAUSED_FILE", str(marker))
    crash_point("after_manifest")
    assert not marker.exists()
