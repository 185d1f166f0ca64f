"""The registry's packages import one way: no two of them import each other, counting imports made only
for type checking, read off the source with `ast`; a new import that runs back up fails here."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

REGISTRY = Path(__file__).resolve().parents[2] / "registry"


def unit_imports() -> dict[str, set[str]]:
    """Each package (or top-level module) of `registry` -> the others it imports."""
    edges: dict[str, set[str]] = defaultdict(set)
    for path in REGISTRY.rglob("*.py"):
        unit = path.relative_to(REGISTRY).parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text())):
            modules: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [f"registry.{a.name}" for a in node.names] if node.module == "registry" else []
                modules = names or [node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            for module in modules:
                parts = module.split(".")
                if parts[0] == "registry" and len(parts) > 1 and parts[1] != unit:
                    edges[unit].add(parts[1])
    return edges


def test_no_two_packages_of_the_registry_import_each_other() -> None:
    edges = unit_imports()
    both_ways = sorted((a, b) for a in edges for b in edges[a] if a < b and a in edges.get(b, set()))
    assert both_ways == []
    assert "storage" in edges["api"] and "service" in edges["storage"]  # the walk sees imports at all
