"""The loader's modules import only downwards: each package or top-level module has a layer, and none
imports from a layer above its own. Read off the source with `ast`, imports inside functions included, so
a new import that runs back up fails here before it tangles the code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LOADER = Path(__file__).resolve().parents[2] / "loader"

# Lowest first. A unit is a sub-package of `loader` or one of its top-level modules.
LAYERS: list[set[str]] = [
    {"outcome", "printed"},
    {"setting_fields", "schema"},
    {"runtime", "planning"},
    {"reading", "warehouse_layout", "formats"},
    {"config", "config_rules", "config_environment"},
    {"operations"},
    {"observability", "run"},
    {"job"},
    {"cli", "demo"},
]
LAYER_OF = {unit: i for i, units in enumerate(LAYERS) for unit in units}


def unit_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "loader" and len(parts) > 1 else None


def imports(path: Path) -> list[str]:
    """Every loader module the file imports (`from loader import x` names `loader.x`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "loader":
            if node.module == "loader":
                found += [f"loader.{alias.name}" for alias in node.names]
            else:
                found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.split(".")[0] == "loader"]
    return found


def loader_files() -> list[Path]:
    return sorted(p for p in LOADER.rglob("*.py") if p.name != "__init__.py" or p.parent != LOADER)


def test_every_unit_of_the_loader_has_a_layer() -> None:
    units = {
        unit_of(".".join(("loader", *p.relative_to(LOADER).with_suffix("").parts))) for p in loader_files()
    }
    assert units - {None} <= set(LAYER_OF), f"give these a layer: {sorted(units - set(LAYER_OF) - {None})}"


@pytest.mark.parametrize("path", loader_files(), ids=lambda p: str(p.relative_to(LOADER)))
def test_no_import_runs_back_up(path: Path) -> None:
    own = unit_of(".".join(("loader", *path.relative_to(LOADER).with_suffix("").parts)))
    upward = [
        module
        for module in imports(path)
        if (unit := unit_of(module)) is not None and unit != own and LAYER_OF[unit] > LAYER_OF[own]
    ]
    assert not upward, f"{path.relative_to(LOADER)} (layer of {own}) imports from above: {upward}"


def test_the_check_sees_an_import_that_runs_back_up(tmp_path: Path) -> None:
    """The checker itself: a module of the formats importing the run is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from loader.run import plan\n")
    assert [unit_of(m) for m in imports(bad)] == ["run"]
    assert LAYER_OF["run"] > LAYER_OF["formats"]


@pytest.mark.parametrize("path", sorted((LOADER / "run").rglob("*.py")), ids=lambda p: p.name)
def test_a_run_uses_nothing_of_the_commands_beside_it(path: Path) -> None:
    """`loader.operations` holds the commands beside a load (status, audit, maintain, unlock); what a run
    writes for them (its audit file) lives below both, in `loader.planning`."""
    beside = [m for m in imports(path) if unit_of(m) == "operations"]
    assert not beside, f"run/{path.name} imports {beside}"
