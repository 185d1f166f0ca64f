"""The loader's sessions read Kafka through Spark's V2 reader, not the V1 relation whose scan turns every
record into a `Row` and back (loader.runtime.spark_session.read_kafka_with_v2_reader); the records read
are the planned ranges, as before; and a run's records do not stay on the heap in Spark's Kafka pools
(loader.runtime.spark_session.KAFKA_SOURCE_POOLS). Real broker, real Spark."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.planning.offsets import OffsetRange
from loader.reading.topic_read import read_ranges
from loader.runtime.spark_session import V1_SOURCES, interpreted_session, without_kafka
from tests.loader.harness import Harness, executed_plan, record_schema


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


KAFKA_RECORD = "org.apache.kafka.clients.consumer.ConsumerRecord"


def live_instances(spark: SparkSession, class_name: str) -> int:
    """How many objects of `class_name` the driver JVM's heap holds, by the JVM's own class histogram
    (`jcmd <pid> GC.class_histogram`, which collects the garbage first)."""
    jvm = spark._jvm
    jcmd = Path(jvm.System.getProperty("java.home")) / "bin" / "jcmd"
    pid = str(jvm.ProcessHandle.current().pid())
    histogram = subprocess.run(
        [str(jcmd), pid, "GC.class_histogram"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    for line in histogram.splitlines():
        columns = line.split()
        if len(columns) >= 4 and columns[3] == class_name:
            return int(columns[1])
    return 0


@pytest.mark.integration
def test_a_run_s_records_leave_spark_s_kafka_pools_within_seconds(
    harness: Harness, spark: SparkSession
) -> None:
    """Spark keeps each topic partition's last polled batch for five minutes by default, for a streaming
    query's next micro-batch; no later query of the loader takes it, so it was only memory held."""
    schema = record_schema("Pooled", [{"name": "n", "type": "long"}])
    topics = [harness.topic(partitions=2) for _ in range(3)]
    for topic in topics:
        harness.produce(topic, schema, [{"n": i} for i in range(200)])
    report = harness.run(spark)
    assert [t.records for t in report.topics] == [200, 200, 200]
    deadline = time.monotonic() + 20
    while (left := live_instances(spark, KAFKA_RECORD)) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert left == 0, f"{left} Kafka records still on the heap after the run"
