"""The client package sits below both sides: the loader reaches the registry only through it, and it needs
only the core dependencies (what the pre-commit hook installs)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
CORE_DEPENDENCIES = {"requests"}


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import in a source file, function bodies included."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def _imports_of_package(package: str) -> list[tuple[str, int, str]]:
    return [
        (path.relative_to(REPO_ROOT).as_posix(), line, module)
        for path in sorted((REPO_ROOT / package).rglob("*.py"))
        for line, module in _imports(path)
    ]


def test_the_walk_finds_imports_inside_functions(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text(
        "import os\nfrom . import sibling\n\n\ndef late():\n    from registry.config import RegistryConfig\n"
    )
    assert _imports(source) == [(1, "os"), (6, "registry.config")]


def test_the_loader_imports_nothing_of_the_registry_service() -> None:
    imports = _imports_of_package("loader")
    from_registry = [found for found in imports if found[2].split(".")[0] == "registry"]
    assert from_registry == []
    # What the loader took from the registry's package it now takes from the client package.
    modules = {module for _, _, module in imports}
    assert {"pipeline_client.client_settings", "pipeline_client.secret_values"} <= modules


def test_the_client_package_imports_only_the_standard_library_and_the_core_dependencies() -> None:
    imports = _imports_of_package("pipeline_client")
    assert imports, "no module of the client package was read"
    outside = [
        found
        for found in imports
        if found[2].split(".")[0] not in {*sys.stdlib_module_names, *CORE_DEPENDENCIES, "pipeline_client"}
    ]
    assert outside == []


def test_loading_the_client_package_loads_neither_the_service_nor_the_loader() -> None:
    modules = [
        f"pipeline_client.{path.stem}"
        for path in sorted((REPO_ROOT / "pipeline_client").glob("*.py"))
        if path.stem != "__init__"
    ]
    probe = (
        f"import sys, {', '.join(modules)}; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'registry', 'loader', 'flask', 'sqlalchemy', 'pyspark', 'confluent_kafka', 'fastavro'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"
