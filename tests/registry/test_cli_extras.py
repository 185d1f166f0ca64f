"""The core install runs `registry check`; the service asks for its extra by name when it is missing."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from registry.cli import main


@pytest.mark.parametrize("command", [["serve"], ["db", "current"]])
def test_service_commands_name_the_missing_extra(monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name in {"flask", "gunicorn"} else real_find_spec(name, *a),
    )
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 1
    assert (
        "the registry service needs flask, gunicorn: pip install 'avro-pipeline[registry]'" in result.output
    )


def test_serve_refuses_a_malformed_proxy_list_before_touching_the_database(tmp_path: Path) -> None:
    """In a process of its own: serve sets up the metrics environment, which must not leak into this one."""
    database = tmp_path / "never.db"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "registry.cli",
            "serve",
            "--database-url",
            f"sqlite:///{database}",
            "--forwarded-allow-ips",
            "10.0.0.5/8",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "--forwarded-allow-ips" in result.stderr and "10.0.0.5/8" in result.stderr
    assert not database.exists()
