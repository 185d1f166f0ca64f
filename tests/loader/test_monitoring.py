"""A real `loader run` against the real Kafka broker pushes its metrics to a real Pushgateway and writes
them as a textfile; the test asks a real Prometheus for them and finds the run's values, then a failing
run keeps the last success and the shipped "not succeeding" alert fires (with a test threshold)."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from confluent_kafka import Producer

from loader.observability.metrics import parse_samples
from loader.planning.freshness import parse_timestamp
from loader.schema.naming import table_name
from tests.fixtures.monitoring import TEST_THRESHOLDS, Prometheus, Pushgateway
from tests.loader.harness import Harness, record_schema

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

EVENT = record_schema("Reading", [{"name": "n", "type": "long", "doc": "Sequence number."}])


def _one(prometheus: Prometheus, expression: str) -> float:
    (sample,) = prometheus.wait_for(expression)
    return float(sample["value"][1])


def test_a_run_s_metrics_reach_prometheus_and_a_failing_loader_fires_the_alert(
    cli_harness: Harness, pushgateway: Pushgateway, prometheus: Prometheus, tmp_path: Path
) -> None:
    harness = cli_harness
    topic = harness.topic(partitions=2)
    newest = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
    harness.produce(topic, EVENT, [{"n": i} for i in range(6)], at=newest - timedelta(minutes=30))
    harness.produce(topic, EVENT, [{"n": i} for i in range(6, 10)], at=newest)
    tombstones = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    for _ in range(2):
        tombstones.produce(topic, value=None, partition=1, timestamp=int(newest.timestamp() * 1000) - 60_000)
    assert tombstones.flush(30) == 0
    textfile, report_json = tmp_path / "textfile" / "loader.prom", tmp_path / "report.json"
    metrics = ["--pushgateway-url", pushgateway.url, "--metrics-file", str(textfile)]

    done = harness.run_cli(*metrics, "--report-json", str(report_json), "--log-format", "json")
    assert done.returncode == 0, done.stderr
    # Every line on stderr is a JSON object, the driver JVM's own among them (its start, Spark's log4j).
    logged = [json.loads(line) for line in done.stderr.splitlines()]
    assert [e for e in logged if e.get("event") == "jvm"], "the JVM's lines, as JSON"
    assert [e["message"] for e in logged if e.get("event") == "run"], "the run's own line"
    assert "escapedStringLiterals" not in done.stderr  # no deprecated setting of the loader's own
    report = json.loads(report_json.read_text())
    (loaded,) = report["topics"]
    assert (loaded["records"], loaded["tombstones"], loaded["status"]) == (12, 2, "loaded")

    # Not firing right after a success.
    database, table = harness.database, f"{harness.database}.{table_name(topic)}"
    of_run = f'database="{database}",job="loader"'
    success = _one(prometheus, f"loader_last_success_timestamp_seconds{{{of_run}}}")
    firing = f'ALERTS{{alertname="LoaderNotSucceeding",alertstate="firing",database="{database}"}}'
    assert prometheus.query(firing) == []

    # What Prometheus scraped from the Pushgateway is what the run reported.
    of_topic = f'database="{database}",topic="{topic}",table="{table}",job="loader",instance="{database}"'
    assert _one(prometheus, f"loader_topic_records_loaded_total{{{of_topic}}}") == loaded["records"]
    assert _one(prometheus, f"loader_topic_tombstones_total{{{of_topic}}}") == 2
    assert _one(prometheus, f"loader_topic_records_quarantined_total{{{of_topic}}}") == 0
    assert _one(prometheus, f"loader_topic_records_lost_total{{{of_topic}}}") == 0
    assert _one(prometheus, f"loader_table_rows_committed_total{{{of_topic}}}") == loaded["tables"][table]
    assert _one(prometheus, f"loader_topic_lag_offsets{{{of_topic}}}") == 0
    assert _one(prometheus, f"loader_topic_lag_seconds{{{of_topic}}}") == 0
    assert (
        _one(prometheus, f"loader_topic_newest_record_timestamp_seconds{{{of_topic}}}") == newest.timestamp()
    )
    started = parse_timestamp(report["started"])
    assert started is not None and loaded["valid_through"] is not None
    through = _one(prometheus, f"loader_topic_valid_through_timestamp_seconds{{{of_topic}}}")
    assert through == parse_timestamp(loaded["valid_through"]).timestamp()  # type: ignore[union-attr]
    assert started.timestamp() - 1 <= through <= started.timestamp()  # whole seconds of the run's start
    assert _one(prometheus, f"loader_last_run_exit_code{{{of_run}}}") == 0
    assert success == pytest.approx(started.timestamp() + report["seconds"], abs=0.01)
    # The duration counts from the process's start: Python, the driver JVM and Spark starting are its
    # first phase.
    start_up = report["phases"]["start"]
    assert 0 < start_up < report["seconds"] + start_up
    duration = _one(prometheus, f"loader_last_run_duration_seconds{{{of_run}}}")
    assert duration == pytest.approx(report["seconds"] + start_up, abs=0.001)
    for phase, seconds in report["phases"].items():
        assert (
            _one(prometheus, f'loader_last_run_phase_duration_seconds{{{of_run},phase="{phase}"}}') == seconds
        )
    assert list(report["phases"]) == ["start", "recover", "plan", "load", "commit"]
    assert _one(prometheus, f'loader_topics{{{of_run},status="loaded"}}') == 1
    assert _one(prometheus, f'loader_runs_total{{{of_run},outcome="success"}}') == 1
    # The textfile holds the same samples as the Pushgateway's group.
    in_file = parse_samples(textfile.read_text())
    topic_labels = (("database", database), ("table", table), ("topic", topic))
    assert in_file[("loader_topic_records_loaded_total", topic_labels)] == loaded["records"]
    assert in_file[("loader_last_success_timestamp_seconds", (("database", database),))] == success

    # The audit pushes its own group, and prints JSON with --format json.
    audited = harness.run_cli(*metrics, "--format", "json", command="audit")
    assert audited.returncode == 0, audited.stderr
    audit = json.loads(audited.stdout)
    assert audit["ok"] and sum(w["kafka"] for w in audit["windows"]) == loaded["records"]
    of_audit = f'database="{database}",job="loader_audit",instance="{database}"'
    assert _one(prometheus, f"loader_audit_windows{{{of_audit}}}") == len(audit["windows"])
    assert _one(prometheus, f"loader_audit_mismatched_windows{{{of_audit}}}") == 0
    assert (
        parse_samples(textfile.with_name("loader_audit.prom").read_text())[
            ("loader_audit_mismatched_windows", (("database", database),))
        ]
        == 0
    )

    # A run that cannot reach the registry fails: it pushes its exit status and keeps the last success;
    # with --log-format json its stderr is JSON lines, the run's line with its id and the whole reason.
    unreachable = [
        "--registry-url",
        "http://127.0.0.1:9",
        "--metadata-timeout-s",
        "2",
        "--log-format",
        "json",
    ]
    failed = harness.run_cli(*metrics, *unreachable)
    assert failed.returncode == 1, failed.stderr
    lines = [json.loads(line) for line in failed.stderr.splitlines() if line.startswith("{")]
    (ended,) = [line for line in lines if line.get("event") == "run"]
    assert ended["exit_code"] == 1 and ended["run_id"] and "127.0.0.1:9" in ended["error"]
    assert failed.stdout == ""  # no table for people in the JSON format
    prometheus.wait_for(f"loader_last_run_exit_code{{{of_run}}} == 1")
    assert _one(prometheus, f"loader_last_success_timestamp_seconds{{{of_run}}}") == success
    assert _one(prometheus, f'loader_runs_total{{{of_run},outcome="failed"}}') == 1
    assert _one(prometheus, f"loader_topic_records_loaded_total{{{of_topic}}}") == loaded["records"]
    assert (
        parse_samples(textfile.read_text())[
            ("loader_last_success_timestamp_seconds", (("database", database),))
        ]
        == success
    )

    # The load stays down: past the (test) threshold after the last success, the alert fires.
    threshold = float(TEST_THRESHOLDS["LoaderNotSucceeding"][1].removeprefix("> "))
    wait = max(0.0, success + threshold - time.time()) + 30
    (alert,) = prometheus.wait_for(firing, timeout_s=wait)
    assert alert["metric"]["severity"] == "page"
    assert time.time() - success > threshold
