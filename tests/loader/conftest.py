"""Fixtures of the loader's integration tests."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from loader.runtime.spark_session import installed_spark_version
from loader.runtime.spark_versions import iceberg_refusal
from tests.fixtures.kafka import KafkaBroker
from tests.fixtures.spark import make_hive_session_active
from tests.loader.harness import Harness


@pytest.fixture
def harness(kafka_broker: KafkaBroker, registry_url: str, spark_warehouse: Path) -> Harness:
    """In-process runs share the session's SparkSession, so they use its warehouse and metastore; each
    test gets a database (and so a state directory) of its own."""
    return Harness(kafka=kafka_broker, registry_url=registry_url, warehouse=spark_warehouse)


@pytest.fixture(autouse=True)
def hive_session_active_after(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test on the worker's application leaves its Hive session the active one."""
    yield
    if "spark" in request.fixturenames:
        make_hive_session_active()


@pytest.fixture
def cli_harness(kafka_broker: KafkaBroker, registry_url: str, tmp_path: Path) -> Harness:
    """Subprocess runs get a warehouse and an embedded metastore of their own (Derby admits one JVM)."""
    return Harness(kafka=kafka_broker, registry_url=registry_url, warehouse=tmp_path / "warehouse")


@pytest.fixture
def ended_pid() -> int:
    """The pid of a process that has ended and been reaped: what a killed run's lock names."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def _needs_iceberg(item: pytest.Item) -> bool:
    """A test of Iceberg tables: in an Iceberg or REST catalog module (a REST catalog's tables are
    Iceberg's), or parametrized (itself or a fixture) with iceberg."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    name = item.module.__name__ if item.module is not None else ""
    in_module = "iceberg" in name or "rest_catalog" in name
    return in_module or "iceberg" in params.values()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a Spark line for which Apache Iceberg publishes no runtime, the loader refuses Iceberg tables
    (tests/loader/test_versions.py checks that refusal): their tests are deselected there, and the
    terminal says how many and why."""
    refusal = iceberg_refusal(installed_spark_version())
    if refusal is None:
        return
    deselected = [item for item in items if _needs_iceberg(item)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if item not in deselected]
        config.stash[_ICEBERG_DESELECTED] = (len(deselected), refusal)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    found = config.stash.get(_ICEBERG_DESELECTED, None)
    if found:
        count, refusal = found
        terminalreporter.write_line(f"{count} Iceberg tests deselected: {refusal}")


_ICEBERG_DESELECTED = pytest.StashKey[tuple[int, str]]()


def pytest_report_header(config: pytest.Config) -> str:
    version = installed_spark_version()
    refusal = iceberg_refusal(version)
    return f"Spark {version}" + (f"; Iceberg tests deselected: {refusal}" if refusal else "")
