"""`loader status` shows each topic's lag; records deleted by retention before a load are counted as lost."""

from __future__ import annotations

import pytest
from confluent_kafka import TopicPartition
from pyspark.sql import SparkSession
from rich.console import Console

from loader.operations import status
from loader.schema.naming import table_name
from tests.loader.harness import Harness, record_schema

pytestmark = pytest.mark.integration

EVENT = record_schema("Tick", [{"name": "n", "type": "long", "doc": "Sequence number."}])


def test_status_shows_saved_end_and_lag(harness: Harness, spark: SparkSession) -> None:
    loaded, never = harness.topic(partitions=2), harness.topic()
    harness.produce(loaded, EVENT, [{"n": i} for i in range(4)])
    harness.run(spark, include_topics=loaded)
    harness.produce(loaded, EVENT, [{"n": i} for i in range(4, 7)])
    harness.produce_raw(never, [b"x", b"y"])

    console = Console(record=True, width=200)
    assert status.show(harness.settings(), console, spark) == 0
    lines = {line.split("│")[1].strip(): line for line in console.export_text().splitlines() if "│" in line}
    assert [cell.strip() for cell in lines[loaded].split("│")[2:7]] == [
        f"{harness.database}.{table_name(loaded)}", "2", "4", "7", "3",
    ]  # fmt: skip
    assert [cell.strip() for cell in lines[never].split("│")[2:7]] == ["- (never loaded)", "1", "-", "2", "2"]


def test_records_deleted_by_retention_are_reported_lost(harness: Harness, spark: SparkSession) -> None:
    topic = harness.topic()
    harness.produce(topic, EVENT, [{"n": i} for i in range(2)])
    harness.run(spark)
    harness.produce(topic, EVENT, [{"n": i} for i in range(2, 6)])
    # Retention (here: an explicit delete) removes offsets 2..3 before the next load sees them.
    admin = harness.kafka.admin()  # must outlive its futures
    for future in admin.delete_records([TopicPartition(topic, 0, 4)]).values():
        future.result(timeout=30)

    report = harness.run(spark)
    [topic_report] = [t for t in report.topics if t.topic == topic]
    assert (topic_report.lost, topic_report.records, topic_report.offsets) == (2, 2, {0: (4, 6)})
    assert topic_report.reason == "2 record(s) deleted by retention before they were loaded"
