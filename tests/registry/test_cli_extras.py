"""The core install runs `registry check`; the service asks for its extra by name when it is missing."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from registry.cli import main

REGISTRY_PACKAGE = Path(__file__).resolve().parents[2] / "registry"


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


def _imported_modules(path: Path) -> set[str]:
    """Every module a source file imports, at any level of the file (function bodies included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_the_command_line_imports_one_way() -> None:
    """`registry.cli` wires the command groups together; no module of the package imports it back."""
    importers = [
        path.relative_to(REGISTRY_PACKAGE.parent).as_posix()
        for path in sorted(REGISTRY_PACKAGE.rglob("*.py"))
        if path.name != "cli.py" or path.parent != REGISTRY_PACKAGE
        if "registry.cli" in _imported_modules(path)
    ]
    assert importers == []
    assert "registry.cli" not in _imported_modules(REGISTRY_PACKAGE / "cli_options.py")
    assert "registry.cli_options" in _imported_modules(REGISTRY_PACKAGE / "auth" / "cli.py")


def test_users_command_needs_the_service_packages_like_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "alembic" else real_find_spec(name, *a)
    )
    result = CliRunner().invoke(main, ["users", "list"])
    assert result.exit_code == 1
    assert "the registry service needs alembic: pip install 'avro-pipeline[registry]'" in result.output
