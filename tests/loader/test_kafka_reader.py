"""The loader's sessions read Kafka through Spark's V2 reader, not the V1 relation whose scan turns every
record into a `Row` and back (loader.spark_session.read_kafka_with_v2_reader); the records read are the
planned ranges, as before. Real broker, real Spark."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from loader.planning.offsets import OffsetRange
from loader.reading.topic_read import read_ranges
from loader.spark_session import V1_SOURCES, interpreted_session, without_kafka
from tests.loader.harness import Harness, executed_plan


def test_without_kafka_keeps_every_other_v1_source_as_it_was() -> None:
    assert without_kafka("avro,csv,json,kafka,orc,parquet,text") == "avro,csv,json,orc,parquet,text"
    assert without_kafka(" Kafka , orc") == "orc"
    assert without_kafka("orc,parquet") == "orc,parquet"
    assert without_kafka("kafka") == ""
    assert without_kafka("") == ""


@pytest.mark.integration
def test_both_of_a_runs_sessions_read_the_planned_ranges_with_the_v2_reader(
    harness: Harness, spark: SparkSession
) -> None:
    topic = harness.topic(partitions=2)
    harness.produce_raw(topic, [b"a0", b"a1", b"a2"], partition=0)
    harness.produce_raw(topic, [b"b0", b"b1"], partition=1)
    ranges = [OffsetRange(topic, 0, 1, 3), OffsetRange(topic, 1, 0, 1)]
    for session in (spark, interpreted_session(spark)):
        assert "kafka" not in session.conf.get(V1_SOURCES).lower().split(",")
        frame = read_ranges(session, harness.settings(), ranges)
        plan = executed_plan(frame)
        assert "BatchScan" in plan and "KafkaRelation" not in plan and "DeserializeToObject" not in plan
        rows = sorted((r["partition"], r["offset"], bytes(r["value"])) for r in frame.collect())
        assert rows == [(0, 1, b"a1"), (0, 2, b"a2"), (1, 0, b"b0")]
