"""Each commit records the table's valid-through (Hive: a table property, rewritten once it is a step
behind; Iceberg: the snapshot summary), `loader status` shows it, and a run that leaves a partition behind
does not advance it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.formats.hive.table_catalog import TableCatalog
from loader.formats.hive.table_properties import record_valid_through
from loader.operations import status
from loader.outcome.report import RunReport, TopicReport
from loader.planning.freshness import PROPERTY, parse_timestamp
from loader.planning.state_store import StateStore
from loader.schema.naming import table_name
from tests.loader.harness import Harness, record_schema

pytestmark = pytest.mark.integration

EVENT = record_schema("Tick", [{"name": "n", "type": "long", "doc": "Sequence number."}])


def _hive_property(spark: SparkSession, table: str) -> str | None:
    rows = [r for r in spark.sql(f"SHOW TBLPROPERTIES {table}").collect() if r["key"] == PROPERTY]
    return rows[0]["value"] if rows else None


def _iceberg_summaries(spark: SparkSession, table: str) -> list[str | None]:
    """Each snapshot's loader.valid-through, oldest first."""
    rows = spark.sql(
        f"SELECT summary['{PROPERTY}'] AS v FROM {table}.snapshots ORDER BY committed_at"
    ).collect()
    return [r["v"] for r in rows]


@pytest.mark.parametrize("table_format", ["hive", "iceberg"])
def test_a_commit_records_valid_through_and_status_shows_it(
    harness: Harness, spark: SparkSession, iceberg_spark: SparkSession, table_format: str
) -> None:
    session = iceberg_spark if table_format == "iceberg" else spark
    harness.table_format = table_format
    topic = harness.topic(partitions=2)
    table = f"{harness.database}.{table_name(topic)}"
    try:
        harness.produce(topic, EVENT, [{"n": i} for i in range(6)])
        first = harness.run(session)
        assert first.exit_code == 0, first.to_json()
        (loaded,) = first.topics
        started = parse_timestamp(first.started)
        through = parse_timestamp(loaded.valid_through)
        assert started is not None and through is not None
        assert 0 <= started.timestamp() - through.timestamp() < 1  # the run's start, in whole seconds
        assert loaded.newest_record is not None
        if table_format == "hive":
            assert _hive_property(session, table) == loaded.valid_through
        else:
            assert _iceberg_summaries(session, table) == [loaded.valid_through]

        # Three offsets a partition per run: the next run leaves offsets behind and does not advance it.
        harness.produce(topic, EVENT, [{"n": i} for i in range(6, 20)])
        bounded = harness.run(session, max_records_per_partition=3)
        assert bounded.exit_code == 0, bounded.to_json()
        assert bounded.topics[0].remaining > 0 and bounded.topics[0].valid_through is None
        if table_format == "hive":
            assert _hive_property(session, table) == loaded.valid_through
        else:
            assert _iceberg_summaries(session, table) == [loaded.valid_through, None]

        found = status.collect(harness.settings(), session)
        (shown,) = [t for t in found.topics if t.topic == topic]
        assert shown.valid_through == loaded.valid_through and shown.tables == [table]
        assert json.loads(found.to_json())["topics"][0]["valid_through"] == loaded.valid_through

        # Valid-through is a run's start in whole seconds: the next run starts in a later second.
        time.sleep(max(0.0, through.timestamp() + 1 - time.time()))
        caught_up = harness.run(session)
        assert caught_up.exit_code == 0 and caught_up.topics[0].remaining == 0
        newer = caught_up.topics[0].valid_through
        assert newer is not None and newer > loaded.valid_through  # type: ignore[operator]
        if table_format == "hive":
            # A Hive table's property is rewritten once it is a step behind (valid-through-step-s, 600 s
            # by default): seconds newer is not due yet, and the table says the older, still true, value.
            assert _hive_property(session, table) == loaded.valid_through
            assert status.collect(harness.settings(), session).topics[0].valid_through == loaded.valid_through
            harness.produce(topic, EVENT, [{"n": 20}])
            time.sleep(max(0.0, parse_timestamp(newer).timestamp() + 1 - time.time()))  # type: ignore[union-attr]
            every_run = harness.run(session, valid_through_step_s=0)
            assert every_run.exit_code == 0, every_run.to_json()
            newer = every_run.topics[0].valid_through
            assert newer is not None and _hive_property(session, table) == newer
        assert status.collect(harness.settings(), session).topics[0].valid_through == newer
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)


def test_a_table_the_metastore_refuses_is_named_in_a_warning_and_the_committed_run_stands(
    spark: SparkSession, tmp_path: Path
) -> None:
    """After the commit point a refused ALTER TABLE (here: the table is gone) is a warning naming the
    table; the other tables still get their value."""
    spark.sql("CREATE DATABASE IF NOT EXISTS valid_through_refused")
    spark.sql("CREATE TABLE IF NOT EXISTS valid_through_refused.kept (n BIGINT) USING orc")
    catalog = TableCatalog(spark, StateStore(spark, str(tmp_path)), "valid_through_refused")
    through = "2026-12-06T10:00:00Z"
    topic = TopicReport("t", "loaded", valid_through=through)
    topic.tables = {"valid_through_refused.gone": 3, "valid_through_refused.kept": 2}
    report = RunReport(run_id="r", started=through, database="valid_through_refused", topics=[topic])
    warnings: list[str] = []
    record_valid_through(catalog, report, 600.0, warnings.append)
    (warning,) = warnings
    assert warning.startswith("valid_through_refused.gone: loader.valid-through not recorded: ")
    assert _hive_property(spark, "valid_through_refused.kept") == through
