"""scripts/build-loader-jar: the loader's JVM module built for the installed pyspark into the jar cache
(`loader-<pyspark version>/tableloader-<hash>.jar`, where `loader.runtime.spark_session` looks), built
again only when the module changed, and a build that fails leaving no jar and a warning, never a failed
setup."""

from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = REPO_ROOT / "scripts" / "build-loader-jar"

pytestmark = pytest.mark.integration


def build(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True, timeout=600)


def fake_pyspark(tmp_path: Path, version: str, scala: str) -> Path:
    """A Python environment whose pyspark says it is `version`, its jars directory holding a spark-core
    jar of `scala`, as far as the script asks."""
    jars = tmp_path / "pyspark-jars"
    jars.mkdir()
    (jars / f"spark-core_{scala}-{version}.jar").touch()
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(f'#!/bin/bash\ncase "$*" in *os.path*) echo "{jars}" ;; *) echo "{version}" ;; esac\n')
    python.chmod(0o755)
    return venv


def test_a_spark_it_cannot_be_built_for_warns_once_and_leaves_no_loader_jar(tmp_path: Path) -> None:
    venv = fake_pyspark(tmp_path, "9.9.0", "2.13")  # no such Spark on Maven Central
    jars_dir = tmp_path / "jars"
    stale = jars_dir / "loader-9.9.0"
    stale.mkdir(parents=True)
    (stale / "tableloader-000000000000.jar").touch()  # an earlier build's, of other sources
    (stale / ".complete").touch()

    done = build(dict(os.environ, VENV=str(venv), PIPELINE_JARS_DIR=str(jars_dir), PIPELINE_NO_APT="1"))

    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, done.stderr
    assert warnings[0].startswith("warning: the loader's JVM module could not be built for Spark 9.9.0 (")
    assert warnings[0].endswith("); the loader will run on Spark's own writer")
    assert not stale.exists()  # the loader finds no jar, and takes Spark's own paths


def test_the_jar_is_built_for_the_installed_pyspark_once_with_the_loader_s_classes_only(
    tmp_path: Path,
) -> None:
    import pyspark

    env = dict(os.environ, PIPELINE_JARS_DIR=str(tmp_path))
    first = build(env)
    assert first.returncode == 0, first.stderr
    assert "warning" not in first.stderr
    assert f"for Spark {pyspark.__version__}" in first.stderr
    assert "built against Spark" in first.stderr

    directory = tmp_path / f"loader-{pyspark.__version__}"
    assert (directory / ".complete").exists()
    (jar,) = directory.glob("tableloader-*.jar")
    classes = [n for n in zipfile.ZipFile(jar).namelist() if not n.startswith("META-INF/") and n[-1] != "/"]
    assert classes and all(n.startswith("tableloader/") and n.endswith(".class") for n in classes)
    assert "tableloader/ManyTablesOrcWriter.class" in classes

    again = build(env)  # the module unchanged: nothing built
    assert again.returncode == 0, again.stderr
    assert again.stderr == ""
    assert list(directory.glob("tableloader-*.jar")) == [jar]
