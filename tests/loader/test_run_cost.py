"""What a run costs at scale, asserted as behaviour (the timings are in benchmarks/): a quiet topic costs no
Spark job and no table work, a first run over a backlog commits in bounded steps, and the audit's counts
stay exact when a run's windows are more than the histogram can hold."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from confluent_kafka import Producer
from pyspark.sql import SparkSession

from loader import job
from loader.formats.hive.table_alter import table_data_schema
from loader.operations.audit import audit
from loader.reading import topic_read
from loader.schema.column_defaults import EXISTS_DEFAULT
from loader.schema.naming import table_name
from tests.fixtures.ports import free_port
from tests.loader.harness import Harness, record_schema

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

V1 = record_schema("Reading", [{"name": "n", "type": "long"}])
V2 = record_schema(
    "Reading", [{"name": "n", "type": "long"}, {"name": "unit", "type": "string", "default": "C"}]
)


def spark_jobs(spark: SparkSession) -> int:
    return int(spark.sparkContext._jsc.sc().statusStore().jobsList(None).size())


def only(report: Any, topic: str) -> Any:
    return next(t for t in report.topics if t.topic == topic)


def test_a_quiet_topic_costs_no_spark_job_and_no_table_work_until_its_schema_changes(
    harness: Harness, spark: SparkSession
) -> None:
    busy, quiet = harness.topic(prefix="busy"), harness.topic(prefix="quiet")
    harness.produce(busy, V1, [{"n": 1}])
    harness.produce(quiet, V1, [{"n": 1}])
    assert harness.run(spark).exit_code == 0

    harness.produce(busy, V1, [{"n": 2}])
    jobs_before = spark_jobs(spark)
    report = harness.run(spark)
    quiet_report = only(report, quiet)
    assert (quiet_report.status, quiet_report.table_action, quiet_report.seconds) == ("up to date", None, 0.0)
    assert only(report, busy).records == 1
    assert spark_jobs(spark) - jobs_before == 1  # the busy topic's pass, and nothing for the quiet one

    jobs_before = spark_jobs(spark)
    nothing = harness.run(spark)  # nothing new anywhere: no job at all
    assert {t.status for t in nothing.topics} == {"up to date"}
    assert spark_jobs(spark) == jobs_before

    harness.serializer(quiet, V2)({"n": 3, "unit": "F"})  # registers version 2, produces nothing
    evolved = only(harness.run(spark), quiet)
    assert (evolved.status, evolved.table_action) == ("up to date", "evolved")
    assert "unit" in spark.table(evolved.table).columns  # the table takes the schema before any record


def test_a_table_is_made_by_its_create_statement_alone_and_found_unchanged_after(
    harness: Harness, spark: SparkSession
) -> None:
    """A column made with its table has no rows from before it, so no existence default is set in a
    second metastore call; and none is missing for the next run to alter."""
    schema = record_schema(
        "Reading",
        [{"name": "n", "type": "long"}, {"name": "unit", "type": "string", "default": "C", "doc": "of n"}],
    )
    topic = harness.topic()
    harness.produce(topic, schema, [{"n": 1, "unit": "K"}])
    created = only(harness.run(spark), topic)
    assert created.table_action == "created"
    columns = table_data_schema(spark, created.table)
    assert columns["unit"].metadata == {"comment": "of n"}
    assert not [f.name for f in columns.fields if EXISTS_DEFAULT in f.metadata]

    harness.produce(topic, schema, [{"n": 2, "unit": "F"}])
    again = only(harness.run(spark), topic)
    assert (again.records, again.table_action) == (1, "unchanged")
    rows = spark.sql(f"SELECT n, unit, _kafka_deleted FROM {created.table} ORDER BY n").collect()
    assert [tuple(r) for r in rows] == [(1, "K", False), (2, "F", False)]


def test_a_backlog_is_loaded_in_bounded_runs_each_its_own_commit(
    harness: Harness, spark: SparkSession
) -> None:
    topic = harness.topic(partitions=2)
    harness.produce(topic, V1, [{"n": i} for i in range(23)])  # 12 and 11 records in the two partitions

    first = only(harness.run(spark, max_records_per_partition=5), topic)
    assert (first.records, first.offsets, first.remaining) == (10, {0: (0, 5), 1: (0, 5)}, 13)

    reports = job.run_until_caught_up(harness.settings(max_records_per_partition=5), spark)
    assert [only(r, topic).records for r in reports] == [10, 3]
    assert [only(r, topic).remaining for r in reports] == [3, 0]
    loaded = spark.sql(f"SELECT n FROM {first.table}").collect()
    assert sorted(r["n"] for r in loaded) == list(range(23))
    audit_records = (harness.warehouse / "_loader_state" / harness.database / "audit").glob("*.json")
    assert len(list(audit_records)) == 3  # three committed runs, each with its record of what it read
    assert [w for w in audit(harness.settings(), spark, "loader_quarantine").windows if not w.ok] == []


def test_a_run_with_nothing_to_load_needs_no_metastore_and_one_with_records_names_it_and_loses_nothing(
    cli_harness: Harness,
) -> None:
    topic = cli_harness.topic()
    cli_harness.produce(topic, V1, [{"n": 1}])
    assert cli_harness.run_cli().returncode == 0
    down = f"thrift://127.0.0.1:{free_port()}"  # nothing listens there

    quiet = cli_harness.run_cli("--metastore-uri", down)

    assert quiet.returncode == 0, quiet.stdout[-3000:] + quiet.stderr[-3000:]
    assert "up to date" in quiet.stdout

    cli_harness.produce(topic, V1, [{"n": 2}])
    refused = cli_harness.run_cli("--metastore-uri", down)
    assert refused.returncode == 1, refused.stdout[-3000:] + refused.stderr[-3000:]
    said = " ".join(refused.stdout.split())  # the report's lines are wrapped to the console's width
    assert f"the Hive metastore could not be opened ({down}). Nothing was loaded" in said
    for command in ("audit", "maintain"):  # the other commands that need the metastore say it alike
        stopped = cli_harness.run_cli("--metastore-uri", down, command=command)
        said = " ".join((stopped.stdout + stopped.stderr).split())
        assert stopped.returncode == 1, said[-3000:]
        assert f"the Hive metastore could not be opened ({down}). Nothing was done." in said

    # The metastore back: the record comes, once (the run, its table read and audited in one application).
    back, [rows], audited = cli_harness.run_query_and_audit_cli(
        f"SELECT n FROM {cli_harness.database}.{table_name(topic)} ORDER BY n"
    )
    assert back["exit_code"] == 0, back
    assert [r["n"] for r in rows] == [1, 2]
    assert audited["ok"], audited


def test_until_caught_up_from_the_command_line_writes_every_runs_report(cli_harness: Harness) -> None:
    topic = cli_harness.topic()
    cli_harness.produce(topic, V1, [{"n": i} for i in range(7)])
    report_file = cli_harness.warehouse.parent / "runs.json"

    done = cli_harness.run_cli(
        "--max-records-per-partition", "3", "--until-caught-up", "--report-json", str(report_file)
    )

    assert done.returncode == 0, done.stderr[-3000:]
    runs = json.loads(report_file.read_text())["runs"]
    assert [next(t for t in r["topics"] if t["topic"] == topic)["records"] for r in runs] == [3, 3, 1]
    assert done.stderr.count("left to load: going on") == 2


@pytest.mark.parametrize("topics", [1, 3], ids=["a topic alone", "topics in one query"])
def test_counts_stay_exact_when_a_run_spans_more_windows_than_the_histogram_holds(
    harness: Harness, spark: SparkSession, monkeypatch: pytest.MonkeyPatch, topics: int
) -> None:
    monkeypatch.setattr(topic_read, "HISTOGRAM_BINS", 2)
    monkeypatch.setattr("loader.reading.window_counts.HISTOGRAM_BINS", 2)
    names = [harness.topic() for _ in range(topics)]
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    # An hour ago, not a fixed date: records older than the topic's retention (seven days) are deleted
    # by the broker, so a fixed date makes the test fail once it is a week old.
    hour_ago = (int(time.time()) - 3600) * 1000
    for t, topic in enumerate(names):
        serialize = harness.serializer(topic, V1)
        for i in range(6 - t):  # 6 - t windows, ten minutes apart, two records each
            for _ in range(2):
                producer.produce(topic, value=serialize({"n": i}), timestamp=hour_ago + i * 600_000)
    assert producer.flush(30) == 0

    run = harness.run(spark)
    audited = audit(harness.settings(), spark, "loader_quarantine").windows
    for t, topic in enumerate(names):
        report = only(run, topic)
        assert report.records == 12 - 2 * t
        assert sorted(report.windows.values()) == [2] * (6 - t)
        windows = [w for w in audited if w.topic == topic]
        assert [(w.kafka, w.table_rows, w.ok) for w in windows] == [(2, 2, True)] * (6 - t)
