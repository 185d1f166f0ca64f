"""The project's own scripts: the broker's life cycle, and clear failures when a prerequisite is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.ports import free_port

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = REPO_ROOT / "scripts"


def run(script: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPTS / script), *args], env=env, capture_output=True, text=True, timeout=300
    )


def path_without(tmp_path: Path, *missing: str) -> str:
    """A PATH holding the usual tools but not the named ones."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tools = ["bash", "env", "sed", "cat", "dirname", "grep", "mktemp", "id", "head", "tail", "rm", "mv"]
    tools += ["touch", "cut", "sha256sum", "basename", "sort", "java", "mvn", "setsid", "sleep", "seq"]
    tools += ["python3"]
    for tool in tools:
        # python3 may be a version manager's shell shim; the interpreter running the tests is a real one.
        found = os.path.realpath(sys.executable) if tool == "python3" else shutil.which(tool)
        if tool not in missing and found:
            (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


@pytest.mark.integration
def test_kafka_script_start_status_stop(tmp_path: Path) -> None:
    port = free_port()
    env = dict(
        os.environ,
        KAFKA_PORT=str(port),
        KAFKA_CONTROLLER_PORT=str(free_port()),
        KAFKA_DATA_DIR=str(tmp_path / "kafka"),
        KAFKA_HEAP_MB="256",
    )
    started = run("kafka", "start", env=env)
    try:
        assert started.returncode == 0, started.stderr
        assert started.stdout.strip() == f"127.0.0.1:{port}"
        # The storage was formatted on first use.
        assert (tmp_path / "kafka" / "log" / "meta.properties").exists()

        again = run("kafka", "start", env=env)
        assert again.returncode == 0
        assert "already running" in again.stderr

        status = run("kafka", "status", env=env)
        assert status.returncode == 0
        assert f"127.0.0.1:{port}" in status.stdout
    finally:
        stopped = run("kafka", "stop", env=env)
    assert stopped.returncode == 0
    status = run("kafka", "status", env=env)
    assert status.returncode == 3
    assert "not running" in status.stdout


def test_kafka_script_rejects_unknown_action() -> None:
    done = run("kafka", "restart-everything", env=dict(os.environ))
    assert done.returncode == 2
    assert "usage: scripts/kafka start|stop|status" in done.stderr


@pytest.mark.parametrize(
    ("tool", "package"),
    [("mvn", "Debian package 'maven'"), ("java", "Debian package 'openjdk-17-jre-headless'")],
)
def test_missing_tool_is_named_with_its_package(tmp_path: Path, tool: str, package: str) -> None:
    env = dict(
        os.environ,
        PATH=path_without(tmp_path, tool),
        PIPELINE_NO_APT="1",
        PIPELINE_JARS_DIR=str(tmp_path / "jars"),
    )
    done = run("fetch-jars", env=env)
    assert done.returncode == 1
    assert f"{tool} is missing and could not be installed" in done.stderr
    assert package in done.stderr
    assert "Traceback" not in done.stderr


def test_setup_names_the_browser_package_when_chromium_is_missing(tmp_path: Path) -> None:
    env = dict(
        os.environ, PATH=path_without(tmp_path, "chromium"), PIPELINE_NO_APT="1", VENV=str(tmp_path / "venv")
    )
    done = run("setup", "--with-browser", env=env)
    assert done.returncode == 1
    assert "chromium is missing and could not be installed" in done.stderr
    assert "Debian package 'chromium'" in done.stderr
    assert not (tmp_path / "venv").exists(), "it stops before installing anything else"


def test_unreachable_maven_registry_fails_clearly(tmp_path: Path) -> None:
    settings = tmp_path / "settings.xml"
    settings.write_text(
        "<settings><localRepository>{}</localRepository><mirrors><mirror><id>closed</id>"
        "<mirrorOf>*</mirrorOf><url>http://127.0.0.1:{}/maven2</url></mirror></mirrors></settings>".format(
            tmp_path / "m2", free_port()
        )
    )
    env = dict(
        os.environ,
        PIPELINE_MAVEN_SETTINGS=str(settings),
        PIPELINE_JARS_DIR=str(tmp_path / "jars"),
    )
    done = run("fetch-jars", env=env)
    assert done.returncode == 1
    assert "could not fetch 'kafka-broker' from Maven Central" in done.stderr
    assert "[ERROR]" in done.stderr  # Maven's own reason is shown, once
    assert not (tmp_path / "jars" / "kafka-3.9.1" / ".complete").exists()
