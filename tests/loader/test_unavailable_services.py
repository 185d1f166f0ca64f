"""A broker or registry that does not answer stops the run with a clear error and moves no offset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.observability.metrics import parse_samples
from loader.outcome.report import EXIT_FAILED
from tests.fixtures.ports import free_port
from tests.loader.harness import Harness, record_schema

pytestmark = pytest.mark.integration

EVENT = record_schema("Ping", [{"name": "n", "type": "long", "doc": "Sequence number."}])


def commits(harness: Harness) -> list[Path]:
    directory = harness.warehouse / "_loader_state" / harness.database / "commits"
    return sorted(directory.glob("*.json")) if directory.exists() else []


def test_unreachable_broker(harness: Harness, spark: SparkSession) -> None:
    port = free_port()
    report = harness.run(spark, bootstrap_servers=f"127.0.0.1:{port}", metadata_timeout_s=3)
    assert report.exit_code == EXIT_FAILED
    assert report.error is not None
    assert report.error.startswith(f"could not list topics from 127.0.0.1:{port}")
    assert report.error.endswith(
        "; nothing was committed, no offset moved; check that the brokers run and answer from this host, "
        "then run again"
    )
    assert report.topics == []
    assert commits(harness) == []


# What a driver JVM's start prints on stderr, whatever the run's log format.
JVM_STARTED = ("Using Spark's default log4j profile", "Setting default log level")


def test_a_loader_run_without_its_registry_or_brokers_fails_before_its_driver_jvm_starts(
    cli_harness: Harness, tmp_path: Path
) -> None:
    """Each named within its timeout, in the run's error line, its report and its metrics' exit status,
    without starting Spark; the run's one phase is its start-up."""
    registry, broker = free_port(), free_port()
    for dependency, named in (
        (
            ["--registry-url", f"http://127.0.0.1:{registry}"],
            f"schema registry at http://127.0.0.1:{registry}",
        ),
        (["--bootstrap-servers", f"127.0.0.1:{broker}"], f"could not list topics from 127.0.0.1:{broker}"),
    ):
        report_json, metrics = tmp_path / "report.json", tmp_path / "loader.prom"
        done = cli_harness.run_cli(
            *dependency, "--metadata-timeout-s", "2", "--report-json", str(report_json),
            "--metrics-file", str(metrics),
        )  # fmt: skip
        said = " ".join(done.stdout.split())
        assert done.returncode == EXIT_FAILED, said + done.stderr[-3000:]
        assert f"error: {named}" in said, said
        assert not [line for line in JVM_STARTED if line in done.stderr], done.stderr[-3000:]
        report = json.loads(report_json.read_text())
        assert report["error"].startswith(named) and report["topics"] == []
        assert list(report["phases"]) == ["start"]
        exit_code = ("loader_last_run_exit_code", (("database", cli_harness.database),))
        assert parse_samples(metrics.read_text())[exit_code] == EXIT_FAILED
    assert commits(cli_harness) == []


def test_unreachable_registry_then_recovery(harness: Harness, spark: SparkSession) -> None:
    topic = harness.topic()
    harness.produce(topic, EVENT, [{"n": 1}, {"n": 2}])
    port = free_port()
    down = harness.run(spark, registry_url=f"http://127.0.0.1:{port}", metadata_timeout_s=3)
    assert down.exit_code == EXIT_FAILED
    assert down.error is not None
    assert down.error.startswith(f"schema registry at http://127.0.0.1:{port} did not answer")
    assert down.error.endswith("; check that the registry runs and answers from this host, then run again")
    assert commits(harness) == []

    back = harness.run(spark)  # the registry answers again: everything loads, nothing was skipped
    [loaded] = [t for t in back.topics if t.topic == topic]
    assert (back.exit_code, loaded.records, loaded.offsets) == (0, 2, {0: (0, 2)})
