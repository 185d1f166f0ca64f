"""The project's own scripts: the broker's life cycle, and clear failures when a prerequisite is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.kafka import KafkaBroker, broker_version, default_broker_version
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
    version = broker_version()  # KAFKA_VERSION passes through to the script
    started = run("kafka", "start", env=env)
    try:
        assert started.returncode == 0, started.stderr
        assert started.stdout.strip() == f"127.0.0.1:{port}"
        # The storage was formatted on first use, in the version's own directory.
        assert (tmp_path / "kafka" / version / "log" / "meta.properties").exists()
        assert f"Kafka version: {version} " in (tmp_path / "kafka" / version / "broker.log").read_text()

        again = run("kafka", "start", env=env)
        assert again.returncode == 0
        assert f"Kafka {version} is already running" in again.stderr

        status = run("kafka", "status", env=env)
        assert status.returncode == 0
        assert f"Kafka {version} is running" in status.stdout
        assert f"127.0.0.1:{port}" in status.stdout
    finally:
        stopped = run("kafka", "stop", env=env)
    assert stopped.returncode == 0
    status = run("kafka", "status", env=env)
    assert status.returncode == 3
    assert "not running" in status.stdout


# The two broker lines scripts/kafka is tested with: the pom's default (the newest Kafka 4.x) and Kafka 3.9.
KAFKA_3 = "3.9.1"


@pytest.mark.integration
def test_kafka_versions_keep_storages_of_their_own(tmp_path: Path) -> None:
    """Kafka 4 formats a storage Kafka 3.9 cannot read: each version starts only its own, one broker runs
    per data dir at a time, and the storage of an earlier scripts/kafka (one for all, always Kafka 3.9.1)
    becomes 3.9.1's rather than being started by Kafka 4."""
    newest_version = default_broker_version()
    assert newest_version.startswith("4."), newest_version
    port = free_port()
    data = tmp_path / "kafka"
    base = dict(
        os.environ,
        KAFKA_PORT=str(port),
        KAFKA_CONTROLLER_PORT=str(free_port()),
        KAFKA_DATA_DIR=str(data),
        KAFKA_HEAP_MB="256",
    )
    old, new = dict(base, KAFKA_VERSION=KAFKA_3), dict(base, KAFKA_VERSION=newest_version)

    def broker_topics() -> set[str]:
        admin = KafkaBroker(f"127.0.0.1:{port}", base).admin()
        return set(admin.list_topics(timeout=30).topics)

    assert run("kafka", "start", env=old).returncode == 0
    try:
        KafkaBroker(f"127.0.0.1:{port}", old).create_topic("kept-by-3")
        refused = run("kafka", "start", env=new)
        assert refused.returncode == 1
        assert f"Kafka {KAFKA_3} is running" in refused.stderr
        assert f"not Kafka {newest_version}: stop it first" in refused.stderr
        # status and stop find the running broker whatever KAFKA_VERSION says.
        assert f"Kafka {KAFKA_3} is running" in run("kafka", "status", env=new).stdout
    finally:
        assert run("kafka", "stop", env=new).returncode == 0
    assert run("kafka", "status", env=old).returncode == 3

    # The layout of an earlier scripts/kafka: one storage, data/log, which Kafka 3.9.1 formatted.
    (data / KAFKA_3 / "log").rename(data / "log")
    started = run("kafka", "start", env=new)
    try:
        assert started.returncode == 0, started.stderr
        assert f"moved the storage of an earlier scripts/kafka (Kafka {KAFKA_3})" in started.stderr
        assert (data / KAFKA_3 / "log" / "meta.properties").exists()
        assert not (data / "log").exists()
        assert f"Kafka {newest_version} is running" in run("kafka", "status", env=old).stdout
        assert "kept-by-3" not in broker_topics()  # a storage of its own, formatted by Kafka 4
    finally:
        assert run("kafka", "stop", env=new).returncode == 0
    started = run("kafka", "start", env=old)
    try:
        assert started.returncode == 0, started.stderr
        assert "kept-by-3" in broker_topics()
    finally:
        assert run("kafka", "stop", env=old).returncode == 0


@pytest.mark.parametrize("version", ["2.8.2", "4.4", "latest"])
def test_kafka_script_refuses_a_version_it_cannot_run(version: str) -> None:
    done = run("kafka", "status", env=dict(os.environ, KAFKA_VERSION=version))
    assert done.returncode == 1
    assert "error: " in done.stderr and version in done.stderr
    assert "3.9" in done.stderr and "4." in done.stderr  # names what it runs


def test_kafka_script_rejects_unknown_action() -> None:
    done = run("kafka", "restart-everything", env=dict(os.environ))
    assert done.returncode == 2
    assert "usage: scripts/kafka start|stop|status|fetch" in done.stderr


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
    assert not (tmp_path / "jars" / f"kafka-{broker_version()}" / ".complete").exists()
