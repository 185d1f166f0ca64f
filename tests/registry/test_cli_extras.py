"""The core install runs `registry check`; the service asks for its extra by name when it is missing."""

from __future__ import annotations

import importlib.util

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
