"""The loader's metrics, freshness and log lines as pure functions of a run's report (no Spark, no Kafka)."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from loader.observability.logs import JsonLines, JvmLines, LoggedLines, log_run, run_events
from loader.observability.metrics import (
    OTHER,
    Samples,
    audit_metrics,
    bounded,
    exposition,
    parse_samples,
    run_metrics,
    samples_of,
    topic_numbers,
)
from loader.observability.phases import START
from loader.observability.sinks import MetricsSinks, audit_file, write_atomically
from loader.operations.audit import AuditReport, WindowAudit
from loader.outcome.report import RunReport, TopicReport
from loader.planning.freshness import parse_timestamp, timestamp_text, valid_through
from loader.planning.offsets import OffsetRange
from tests.fixtures.ports import free_port

STARTED = "2026-11-28T12:00:00+00:00"
STARTED_S = datetime(2026, 11, 28, 12, tzinfo=UTC).timestamp()


def _report(
    *topics: TopicReport, exit_code: int = 0, committed: bool = True, seconds: float = 30.0
) -> RunReport:
    phases = {"recover": 1.0, "plan": 2.0, "load": 20.0}
    if committed:
        phases["commit"] = 3.0
    return RunReport(
        run_id="r1",
        started=STARTED,
        database="lake",
        topics=list(topics),
        seconds=seconds,
        exit_code=exit_code,
        phases=phases,
    )


def _loaded(name: str = "orders", **values: object) -> TopicReport:
    topic = TopicReport(
        name,
        "loaded",
        table=f"lake.{name}",
        partitions=2,
        offsets={0: (0, 60), 1: (10, 50)},
        records=90,
        quarantined=7,
        tombstones=3,
        lost=4,
        tables={f"lake.{name}": 90},
        newest_record="2026-11-28T11:59:00+00:00",
        valid_through=STARTED,
    )
    for key, value in values.items():
        setattr(topic, key, value)
    return topic


def _value(samples: Samples, name: str, **labels: str) -> float:
    matches = [v for (n, ls), v in samples.items() if n == name and dict(ls).items() >= labels.items()]
    assert len(matches) == 1, (name, labels, matches)
    return matches[0]


def _samples(report: RunReport, previous: Samples | None = None, max_topics: int = 100) -> Samples:
    """Through the text format and back, as the next run reads them."""
    return parse_samples(exposition(run_metrics(report, previous or {}, max_topics)).decode())


def test_a_loaded_topic_has_its_counts_lag_and_freshness() -> None:
    samples = _samples(_report(_loaded()))
    topic = {"database": "lake", "topic": "orders", "table": "lake.orders"}
    assert _value(samples, "loader_topic_records_loaded_total", **topic) == 90
    assert _value(samples, "loader_topic_records_quarantined_total", **topic) == 7
    assert _value(samples, "loader_topic_records_lost_total", **topic) == 4
    assert _value(samples, "loader_topic_tombstones_total", **topic) == 3
    assert _value(samples, "loader_table_rows_committed_total", **topic) == 90
    assert _value(samples, "loader_topic_lag_offsets", **topic) == 0
    assert _value(samples, "loader_topic_lag_seconds", **topic) == 0
    assert _value(samples, "loader_topic_newest_record_timestamp_seconds", **topic) == STARTED_S - 60
    assert _value(samples, "loader_topic_valid_through_timestamp_seconds", **topic) == STARTED_S
    assert _value(samples, "loader_topic_failed", **topic) == 0
    assert _value(samples, "loader_last_run_exit_code", database="lake") == 0
    assert _value(samples, "loader_last_run_timestamp_seconds") == STARTED_S + 30
    assert _value(samples, "loader_last_success_timestamp_seconds") == STARTED_S + 30
    assert _value(samples, "loader_last_run_phase_duration_seconds", phase="load") == 20
    assert _value(samples, "loader_topics", status="loaded") == 1
    assert _value(samples, "loader_topics", status="failed") == 0
    assert _value(samples, "loader_runs_total", outcome="success") == 1
    # Only the database, topic and table (and a run's phase, status, outcome) label any sample.
    labels = {name for (_, ls) in samples for name, _ in ls}
    assert labels == {"database", "topic", "table", "phase", "status", "outcome"}


def test_a_run_s_duration_counts_from_its_process_s_start_and_the_start_up_is_a_phase() -> None:
    report = _report(_loaded())
    assert _value(_samples(report), "loader_last_run_duration_seconds") == 30  # a run in a process of its own
    report.phases = {START: 17.5, **report.phases}  # Python, the driver JVM and Spark, before the run
    samples = _samples(report)
    assert _value(samples, "loader_last_run_duration_seconds") == 47.5
    assert _value(samples, "loader_last_run_phase_duration_seconds", phase="start") == 17.5
    assert _value(samples, "loader_last_run_timestamp_seconds") == STARTED_S + 30  # when it ended


def test_a_process_s_start_is_a_moment_before_it_asks() -> None:
    """A `loader run`'s start-up phase runs from it: a fresh process starts a moment before it asks."""
    child = subprocess.run(
        [sys.executable, "-c", "import time; from loader.observability.phases import process_started as p; "
         "print(time.time() - p())"],
        capture_output=True, text=True, check=True, timeout=60, cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert 0 < float(child.stdout) < 5


def test_counters_go_on_from_the_previous_run_and_a_failed_run_keeps_the_last_success() -> None:
    first = _samples(_report(_loaded()))
    failed = _loaded(status="failed", reason="orders: boom", newest_record=None, valid_through=None)
    second = _samples(_report(failed, exit_code=1, seconds=10.0), first)
    topic = {"topic": "orders"}
    assert _value(second, "loader_topic_records_loaded_total", **topic) == 90  # nothing more committed
    assert _value(second, "loader_topic_failed", **topic) == 1
    # A failed topic keeps its offsets: what it read is lag again.
    assert _value(second, "loader_topic_lag_offsets", **topic) == 60 + 40
    assert _value(second, "loader_topic_lag_seconds", **topic) == 60  # behind its newest loaded record
    assert _value(second, "loader_topic_newest_record_timestamp_seconds", **topic) == STARTED_S - 60
    assert _value(second, "loader_last_run_exit_code") == 1
    assert _value(second, "loader_last_success_timestamp_seconds") == STARTED_S + 30  # the first run's
    assert _value(second, "loader_runs_total", outcome="success") == 1
    assert _value(second, "loader_runs_total", outcome="failed") == 1
    third = _samples(_report(_loaded()), second)
    assert _value(third, "loader_topic_records_loaded_total", **topic) == 180
    assert _value(third, "loader_topic_records_quarantined_total", **topic) == 14


def test_a_run_that_stopped_before_its_commit_counts_nothing() -> None:
    samples = _samples(_report(_loaded(), exit_code=1, committed=False))
    assert _value(samples, "loader_topic_records_loaded_total", topic="orders") == 0
    assert _value(samples, "loader_topic_lag_offsets", topic="orders") == 100
    assert _value(samples, "loader_last_success_timestamp_seconds") == 0  # never succeeded


def test_a_bounded_run_reports_lag_in_offsets_and_seconds_and_keeps_the_valid_through() -> None:
    before = _samples(_report(_loaded()))
    behind = _loaded(remaining=500, valid_through=None, newest_record="2026-11-28T10:00:00+00:00")
    samples = _samples(_report(behind), before)
    assert _value(samples, "loader_topic_lag_offsets", topic="orders") == 500
    assert _value(samples, "loader_topic_lag_seconds", topic="orders") == 7200
    assert _value(samples, "loader_topic_valid_through_timestamp_seconds", topic="orders") == STARTED_S


def test_a_run_committed_but_not_complete_counts_its_records() -> None:
    report = _report(_loaded(), exit_code=4, committed=False)
    report.committed = True  # past the commit point; its partitions are registered by the next run
    samples = _samples(report)
    assert _value(samples, "loader_topic_records_loaded_total", topic="orders") == 90
    assert _value(samples, "loader_runs_total", outcome="exit_4") == 1
    assert _value(samples, "loader_last_success_timestamp_seconds") == 0


def test_a_run_that_stopped_before_knowing_its_topics_keeps_their_series() -> None:
    before = _samples(_report(_loaded()))
    samples = _samples(_report(exit_code=1, committed=False), before)
    assert _value(samples, "loader_topic_records_loaded_total", topic="orders") == 90
    assert _value(samples, "loader_topic_valid_through_timestamp_seconds", topic="orders") == STARTED_S
    assert _value(samples, "loader_table_rows_committed_total", topic="orders") == 90


def test_beyond_max_topics_the_failed_and_furthest_behind_keep_series_and_the_rest_are_summed() -> None:
    topics = [_loaded(f"t{i}", remaining=i * 10, valid_through=None) for i in range(6)]
    topics[0].status = "failed"
    samples = _samples(_report(*topics), max_topics=3)
    named = {dict(ls)["topic"] for (n, ls) in samples if n == "loader_topic_lag_offsets"}
    assert named == {"t0", "t5", "t4", OTHER}
    assert _value(samples, "loader_topic_lag_offsets", topic=OTHER) == 30 + 20 + 10
    assert _value(samples, "loader_topic_records_loaded_total", topic=OTHER) == 3 * 90
    assert _value(samples, "loader_topics_summed_into_other") == 3
    # With room for every topic, none is summed.
    kept, summed = bounded([topic_numbers(_report(), t, {}) for t in topics], 6)  # type: ignore[misc]
    assert summed == 0 and OTHER not in {n.topic for n in kept}


def test_skipped_topics_have_no_series_but_are_counted_by_status() -> None:
    skipped = TopicReport("noschema", "skipped", reason="no schema registered for subject noschema-value")
    samples = _samples(_report(_loaded(), skipped))
    assert {dict(ls)["topic"] for (n, ls) in samples if n == "loader_topic_failed"} == {"orders"}
    assert _value(samples, "loader_topics", status="skipped") == 1


def test_samples_of_agrees_with_the_text_format() -> None:
    families = run_metrics(_report(_loaded()), {}, 100)
    assert samples_of(families) == parse_samples(exposition(families).decode())
    text = exposition(families).decode()
    assert "# TYPE loader_topic_records_loaded_total counter" in text
    assert "# TYPE loader_topic_lag_offsets gauge" in text


def test_audit_metrics_count_mismatches() -> None:
    report = AuditReport(
        "lake",
        windows=[
            WindowAudit("a", "lake.a", "2026-11-28 12:00", 10, 10, 0),
            WindowAudit("a", "lake.a", "w", 10, 7, 1),
        ],
        unreadable={"lake.b": "gone"},
    )
    samples = samples_of(audit_metrics(report, datetime(2026, 11, 28, tzinfo=UTC)))
    assert _value(samples, "loader_audit_windows") == 2
    assert _value(samples, "loader_audit_mismatched_windows") == 1
    assert _value(samples, "loader_audit_difference_records") == 2
    assert _value(samples, "loader_audit_unreadable_tables") == 1


def test_valid_through_is_the_planning_time_only_when_every_partition_was_read_to_its_end() -> None:
    planned = datetime(2026, 11, 28, 12, tzinfo=UTC)
    caught_up = [
        OffsetRange("t", 0, 0, 10),
        OffsetRange("t", 1, 5, 5),
    ]  # an idle partition holds nothing back
    assert valid_through(planned, caught_up) == planned
    assert valid_through(planned, [*caught_up, OffsetRange("t", 2, 0, 10, remaining=3)]) is None
    assert timestamp_text(planned) == "2026-11-28T12:00:00Z"
    assert parse_timestamp("2026-11-28T12:00:00Z") == planned
    assert parse_timestamp("garbage") is None


def test_the_file_sink_writes_atomically_and_reads_back_the_previous_run(tmp_path: Path) -> None:
    path = tmp_path / "textfile" / "loader.prom"
    sinks = MetricsSinks(path, None, "lake")
    assert sinks.previous(pytest.fail) == {}
    sinks.publish(run_metrics(_report(_loaded()), {}, 100), pytest.fail)
    assert [p.name for p in path.parent.iterdir()] == ["loader.prom"]  # no temporary file left
    assert _value(sinks.previous(pytest.fail), "loader_topic_records_loaded_total") == 90
    write_atomically(path, b"garbage {\n")
    warnings: list[str] = []
    assert sinks.previous(warnings.append) == {}
    assert "could not be read" in warnings[0]
    assert audit_file(path) == path.with_name("loader_audit.prom")


def test_a_failed_topic_is_one_line_with_its_whole_reason_in_both_formats() -> None:
    reason = "orders: Py4JJavaError: An error occurred\n\tat org.apache.Something\nCaused by: disk full"
    report = _report(_loaded(), _loaded("bad", status="failed", reason=reason), exit_code=1)
    events = run_events(report)
    failed = [e for e in events if e.fields.get("status") == "failed"]
    assert len(failed) == 1 and "\n" not in failed[0].message and "Caused by: disk full" in failed[0].message
    for log_format, handler_formatter in (("text", logging.Formatter("%(message)s")), ("json", JsonLines())):
        out = io.StringIO()
        handler = logging.StreamHandler(out)
        handler.setFormatter(handler_formatter)
        logger = logging.getLogger(f"test.loader.{log_format}")
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
        log_run(report, log_format, logger)
        lines = out.getvalue().splitlines()
        bad = [line for line in lines if "topic bad failed" in line]
        assert len(bad) == 1 and "Caused by: disk full" in bad[0]
        if log_format == "text":
            assert len(lines) == 1  # text: the failed topic's line only (the table says the rest)
        else:
            objects = [json.loads(line) for line in lines]
            assert all(o["run_id"] == "r1" for o in objects)
            assert [o["event"] for o in objects] == ["topic", "topic", "run"]
            assert objects[-1]["exit_code"] == 1 and objects[1]["reason"].endswith("disk full")


def test_console_lines_become_log_records() -> None:
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    logger = logging.getLogger("test.loader.console")
    logger.addHandler(Keep())
    logger.setLevel(logging.INFO)
    lines = LoggedLines(logger)
    lines.write("note: a\nnote: ")
    lines.write("b\n")
    assert records == ["note: a", "note: b"]


AT = datetime(2026, 12, 6, 9, 15, tzinfo=UTC)


def test_the_driver_jvm_s_lines_become_json_objects_with_their_level_and_logger() -> None:
    lines = JvmLines()
    said = [
        json.loads(lines.record(line, AT))
        for line in (
            "WARNING: Using incubator modules: jdk.incubator.vector\n",
            "26/12/06 09:15:00 WARN NativeCodeLoader: Unable to load native-hadoop library\n",
            "Using Spark's default log4j profile: org/apache/spark/log4j2-defaults.properties\n",
            "26/12/06 09:15:02 ERROR Executor: Exception in task 0.0\n",
            "java.io.IOException: No space left on device\n",
            "\tat java.base/java.io.FileOutputStream.writeBytes(Native Method)\n",
            'Caused by: java.lang.RuntimeException: "quoted"\n',
            '{"level": "INFO", "logger": "loader.run", "message": "the loader\'s own"}\n',
        )
    ]
    levels = [(s.get("level"), s.get("logger")) for s in said]
    assert levels == [
        ("WARN", "jvm"),
        ("WARN", "NativeCodeLoader"),
        ("INFO", "jvm"),
        *[("ERROR", "Executor")] * 4,  # the exception's lines belong to the line that logged it
        ("INFO", "loader.run"),  # passed through as it was
    ]
    assert said[0]["message"] == "Using incubator modules: jdk.incubator.vector"
    assert said[1]["message"] == "Unable to load native-hadoop library"
    assert said[5]["message"] == "\\tat java.base/java.io.FileOutputStream.writeBytes(Native Method)"
    assert said[6]["message"] == 'Caused by: java.lang.RuntimeException: "quoted"'
    assert {s.get("event") for s in said[:-1]} == {"jvm"} and "event" not in said[-1]
    assert said[0]["timestamp"] == "2026-12-06T09:15:00.000+00:00"


def test_a_process_started_while_its_stderr_is_relayed_writes_only_json_lines(tmp_path: Path) -> None:
    """The relay as a `loader run --log-format json` has it around its driver JVM's start: a child's lines
    (here a shell's) and this process's own, before and after."""
    script = tmp_path / "relay.py"
    script.write_text(
        "import logging, subprocess\n"
        "from loader.observability.logs import jvm_lines_as_json, use_json_lines\n"
        "use_json_lines()\n"
        "with jvm_lines_as_json(True):\n"
        "    logging.getLogger('loader.run').info('while the child starts')\n"
        "    child = subprocess.Popen(['sh', '-c', 'echo \"WARNING: a JVM warning\" >&2; sleep 0.2; "
        'echo "later, plain text" >&2\'])\n'
        "logging.getLogger('loader.run').info('after')\n"
        "child.wait()\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = [json.loads(line) for line in done.stderr.splitlines()]  # every line, or this fails
    messages = {s["message"]: s for s in said}
    assert set(messages) == {"while the child starts", "after", "a JVM warning", "later, plain text"}
    assert messages["a JVM warning"]["level"] == "WARN" and messages["later, plain text"]["event"] == "jvm"


def test_librdkafka_s_own_lines_are_json_lines_too(tmp_path: Path) -> None:
    """The C library writes its log lines (`%3|...|FAIL|...`) onto stderr itself unless given a logger:
    a Kafka client of the loader's that cannot connect says so in the run's JSON lines."""
    script = tmp_path / "kafka_down.py"
    script.write_text(
        "import sys\n"
        "from loader.observability.logs import use_json_lines\n"
        "from loader.reading.kafka_metadata import KafkaUnavailable, list_topics\n"
        "use_json_lines()\n"
        "try:\n"
        "    list_topics(f'127.0.0.1:{sys.argv[1]}', timeout_s=1.5)\n"
        "except KafkaUnavailable:\n"
        "    print('unavailable')\n"
    )
    done = subprocess.run(
        [sys.executable, str(script), str(free_port())], capture_output=True, text=True, timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert done.stdout.strip() == "unavailable", done.stderr
    said = [json.loads(line) for line in done.stderr.splitlines()]  # every line, or this fails
    assert [s for s in said if s["logger"] == "loader.kafka" and "Connection refused" in s["message"]]
