"""A table format is added in `loader/formats/` alone: the settings' choices, their checks and the session
reach a format through `loader.formats.preflight`; a run, `loader status` and `loader maintain` reach one
through `loader.formats.lookup`; and the settings, the run, the runtime and the commands beside the run
never name one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from loader.config import SETTINGS, LoaderSettings
from loader.formats import preflight
from loader.formats.lookup import FORMATS
from loader.formats.preflight import FORMAT_NAMES, PREFLIGHTS, Lake, Preflight

LOADER = Path(__file__).resolve().parents[2] / "loader"
FORMAT_NAMES_AS_TEXT = {"hive", "iceberg"}
# Format-neutral parts of loader/formats that the settings may name: the Iceberg catalog's description is
# a setting of every run (checked whatever the format), as are the object store's.
NEUTRAL = {
    "loader.formats",
    "loader.formats.preflight",
    "loader.formats.lookup",
    "loader.formats.catalog_settings",
    "loader.formats.iceberg_catalogs",
    "loader.formats.object_store_files",
    "loader.formats.catalog_lock",
    "loader.formats.one_format",  # the refusal of a database holding tables of two formats, for any format
    "loader.formats.maintenance",  # what `loader maintain` asks of any format, and what it answers
    "loader.formats.metastore",  # where a table or partition is, for every format's tables in a metastore
    "loader.formats.metastore_tables",  # the run's tables as the metastore has them, whatever their format
}
OUTSIDE_THE_FORMATS = sorted(
    [
        LOADER / "config.py",
        LOADER / "config_rules.py",
        LOADER / "config_environment.py",
        LOADER / "job.py",
        LOADER / "demo.py",
        *(LOADER / "operations").rglob("*.py"),
        *(LOADER / "run").rglob("*.py"),
        *(LOADER / "runtime").rglob("*.py"),
    ]
)


def test_the_choices_of_table_format_are_the_formats_a_run_can_open() -> None:
    assert SETTINGS["table_format"].choices == FORMAT_NAMES == tuple(FORMATS)


@pytest.mark.parametrize("path", OUTSIDE_THE_FORMATS, ids=lambda p: str(p.relative_to(LOADER)))
def test_outside_the_formats_nothing_names_a_format(path: Path) -> None:
    tree = ast.parse(path.read_text())
    compared = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any(
            isinstance(side, ast.Constant) and side.value in FORMAT_NAMES_AS_TEXT
            for side in [node.left, *node.comparators]
        )
    ]
    assert not compared, f"{path.name} compares with a format's name on lines {compared}"
    imported = [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("loader.formats")
        and node.module not in NEUTRAL
    ]
    assert not imported, f"{path.name} imports a format's own module: {imported}"


def test_what_a_format_refuses_of_the_settings_reaches_the_user(monkeypatch: pytest.MonkeyPatch) -> None:
    hive = PREFLIGHTS["hive"]
    refusing = Preflight(lambda lake: f"no tables under {lake.warehouse}", *_rest(hive))
    monkeypatch.setitem(preflight.PREFLIGHTS, "hive", refusing)
    with pytest.raises(ValueError, match="no tables under /lake"):
        LoaderSettings("k:9092", "http://r", "/lake")


def test_what_a_format_refuses_of_the_machine_and_its_session_come_from_its_preflight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[Lake] = []

    def machine(lake: Lake) -> str | None:
        seen.append(lake)
        return "this machine lacks the format's jars"

    own = Preflight(lambda _: None, machine, lambda _: {"spark.some.format": "on"}, lambda _: ["/jars/f.jar"])
    monkeypatch.setitem(preflight.PREFLIGHTS, "hive", own)
    settings = LoaderSettings("k:9092", "http://r", "/lake")
    assert (settings.session_conf, settings.session_jars) == ({"spark.some.format": "on"}, ["/jars/f.jar"])
    with pytest.raises(ValueError, match="lacks the format's jars"):
        settings.validate()
    assert seen and seen[0].warehouse == "/lake"


def test_a_hive_lake_loads_nothing_of_iceberg_and_iceberg_s_session_has_its_catalog() -> None:
    hive = LoaderSettings("k:9092", "http://r", "/lake")
    assert (hive.session_conf, hive.session_jars) == ({}, [])
    iceberg = LoaderSettings("k:9092", "http://r", "/lake", table_format="iceberg")
    assert (
        iceberg.session_conf["spark.sql.catalog.spark_catalog"]
        == "org.apache.iceberg.spark.SparkSessionCatalog"
    )


def _rest(preflight_: Preflight) -> tuple:
    return preflight_.refuses_machine, preflight_.session_conf, preflight_.session_jars


FORMATS_DIR = LOADER / "formats"
# Each format's own modules, by the module-name prefix another format must not import.
OWN_MODULES = {
    "loader.formats.hive": sorted((FORMATS_DIR / "hive").rglob("*.py")),
    "loader.formats.iceberg": sorted(FORMATS_DIR.glob("iceberg*.py")),
}


@pytest.mark.parametrize(
    ("owner", "path"),
    [(owner, path) for owner, paths in OWN_MODULES.items() for path in paths],
    ids=lambda v: v if isinstance(v, str) else str(v.relative_to(FORMATS_DIR)),
)
def test_a_format_imports_nothing_of_another_format(owner: str, path: Path) -> None:
    """What two formats share (the metastore's view of a run's tables, partition registration, the
    maintenance request) lives in the neutral modules of `loader/formats/`, not in one of them."""
    others = [prefix for prefix in OWN_MODULES if prefix != owner]
    imported = [
        node.module
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom)
        and any((node.module or "").startswith(prefix) for prefix in others)
    ]
    assert not imported, f"{path.name} ({owner}) imports another format's module: {imported}"
