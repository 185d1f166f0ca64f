"""Fixtures of the loader's integration tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.fixtures.kafka import KafkaBroker
from tests.loader.harness import Harness


@pytest.fixture
def harness(kafka_broker: KafkaBroker, registry_url: str, spark_warehouse: Path) -> Harness:
    """In-process runs share the session's SparkSession, so they use its warehouse and metastore; each
    test gets a database (and so a state directory) of its own."""
    return Harness(kafka=kafka_broker, registry_url=registry_url, warehouse=spark_warehouse)


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
