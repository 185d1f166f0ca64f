"""The supported Spark lines (loader/runtime/spark_versions.py): what each needs, the refusal of Iceberg where
no runtime exists, the docs' versions table, and the running line's own facts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyspark
import pytest

from loader.config import LoaderSettings
from loader.runtime.spark_versions import (
    DEFAULT_LINE,
    LINES,
    OLDEST_LINE,
    UnsupportedSparkVersion,
    connector_candidates,
    iceberg_refusal,
    line_for,
    versions_table,
)

REPO = Path(__file__).resolve().parents[2]


def test_every_supported_line_is_found_from_a_full_version() -> None:
    assert line_for("3.5.9").scala == "2.12"
    assert line_for("4.1.4").minor == "4.1"
    assert line_for("4.2.0-preview1").minor == "4.2"
    assert {DEFAULT_LINE, OLDEST_LINE} <= set(LINES)


@pytest.mark.parametrize("version", ["3.4.4", "4.3.0", "5.0.0", "nonsense"])
def test_an_unsupported_spark_is_refused_naming_the_supported_lines(version: str) -> None:
    with pytest.raises(
        UnsupportedSparkVersion, match=r"supported: 3\.5, 4\.0, 4\.1, 4\.2|not a Spark version"
    ):
        line_for(version)


def test_iceberg_is_refused_on_a_line_without_a_runtime_naming_the_version_and_what_is_missing() -> None:
    refusal = iceberg_refusal("4.2.1")
    assert refusal is not None
    assert "Spark 4.2" in refusal and "4.2.1" in refusal and "no Spark runtime" in refusal
    assert "--table-format hive" in refusal
    assert iceberg_refusal("4.1.3") is None and iceberg_refusal("3.5.9") is None


def test_the_default_line_has_both_table_formats() -> None:
    assert LINES[DEFAULT_LINE].iceberg is not None


def test_connectors_are_tried_at_pyspark_s_version_then_each_older_patch_of_its_minor() -> None:
    assert connector_candidates("4.1.4") == ["4.1.4", "4.1.3", "4.1.2", "4.1.1", "4.1.0"]
    assert connector_candidates("4.2.0") == ["4.2.0"]


def test_the_settings_refuse_iceberg_at_once_on_this_line_exactly_when_it_has_no_runtime(
    tmp_path: Path,
) -> None:
    settings = LoaderSettings(
        bootstrap_servers="127.0.0.1:1",
        registry_url="http://127.0.0.1:1",
        warehouse=str(tmp_path),
        table_format="iceberg",
    )
    refusal = iceberg_refusal(pyspark.__version__)
    if refusal is None:
        assert settings.validate().table_format == "iceberg"
    else:
        with pytest.raises(ValueError, match="no Spark runtime"):
            settings.validate()


def test_the_setup_scripts_read_the_same_table() -> None:
    out = subprocess.run(
        [sys.executable, str(REPO / "loader/runtime/spark_versions.py"), "shell", OLDEST_LINE],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert f"SPARK_SCALA={LINES[OLDEST_LINE].scala}" in out
    assert f"PYSPARK_REQUIREMENT='pyspark=={OLDEST_LINE}.*'" in out
    refused = subprocess.run(
        [sys.executable, str(REPO / "loader/runtime/spark_versions.py"), "shell", "3.4"],
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2 and "not supported" in refused.stderr


def test_the_manual_s_versions_table_is_the_declared_one() -> None:
    assert versions_table() in (REPO / "docs/loader.md").read_text()


def test_the_loader_extra_admits_every_supported_line_and_no_other() -> None:
    """`pip install 'avro-pipeline[loader]'` beside an installed pyspark of a supported line keeps it."""
    import tomllib

    from packaging.requirements import Requirement

    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["loader"]
    pyspark_requirement = next(Requirement(r) for r in extra if r.startswith("pyspark"))
    for minor in LINES:
        for patch in ("0", "9"):
            assert pyspark_requirement.specifier.contains(f"{minor}.{patch}"), (minor, patch)
    for unsupported in ("3.4.4", "4.3.0"):
        assert not pyspark_requirement.specifier.contains(unsupported)
