"""Bad records beyond the basic reasons (see test_load_job): whose schema id a message carries, and the
share of bad records a run tolerates before it exits 3."""

from __future__ import annotations

import json
import struct

import pytest
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from pyspark.sql import SparkSession

from loader.outcome.report import EXIT_BAD_RECORDS
from tests.loader.harness import Harness, record_schema

pytestmark = pytest.mark.integration

EVENT = record_schema("Event", [{"name": "id", "type": "long"}])


def framed(schema_id: int, body: bytes = b"\x02") -> bytes:
    return b"\x00" + struct.pack(">I", schema_id) + body


def test_foreign_schema_id_is_named_unknown_or_another_subjects(
    harness: Harness, spark: SparkSession
) -> None:
    topic = harness.topic()
    harness.produce(topic, EVENT, [{"id": 1}])
    other_subject = f"{harness.prefix}.other-value"
    other = record_schema(f"Other{harness.prefix}", [{"name": "name", "type": "string"}])
    client = SchemaRegistryClient({"url": harness.registry_url})
    other_id = client.register_schema(other_subject, Schema(json.dumps(other), "AVRO"))
    unknown_id = 1_900_000_000
    harness.produce_raw(topic, [framed(other_id), framed(unknown_id), framed(other_id)])

    report = harness.run(spark)

    [loaded] = [t for t in report.topics if t.topic == topic]
    assert (loaded.records, loaded.quarantined) == (1, 3)
    reasons = spark.sql(
        f"SELECT offset, reason FROM {harness.database}.loader_quarantine "
        f"WHERE topic = '{topic}' ORDER BY offset"
    ).collect()
    subject = f"{topic}-value"
    wrong_topic = (
        f"schema id {other_id} belongs to another subject ({other_subject} version 1), not to subject "
    )
    assert [(r["offset"], r["reason"]) for r in reasons] == [
        (1, wrong_topic + subject),
        (2, f"schema id {unknown_id} is unknown to the registry (not a version of subject {subject})"),
        (3, wrong_topic + subject),
    ]


def test_max_bad_ratio_below_exits_0_and_above_exits_3(harness: Harness, spark: SparkSession) -> None:
    topic = harness.topic()
    harness.produce(topic, EVENT, [{"id": i} for i in range(3)])
    harness.produce_raw(topic, [b"\x07bad"])  # 1 bad of 4: 25 %

    below = harness.run(spark, max_bad_ratio=0.3)

    [first] = [t for t in below.topics if t.topic == topic]
    assert (first.records, first.quarantined, below.exit_code) == (3, 1, 0)

    harness.produce(topic, EVENT, [{"id": 3}])
    harness.produce_raw(topic, [b"\x07bad"])  # 1 bad of 2 in this run: 50 %
    above = harness.run(spark, max_bad_ratio=0.3)

    [second] = [t for t in above.topics if t.topic == topic]
    assert (second.records, second.quarantined, above.exit_code) == (1, 1, EXIT_BAD_RECORDS)
    # The good records loaded all the same, and the bad ones are kept.
    assert spark.table(first.table).count() == 4
    assert (
        spark.sql(f"SELECT * FROM {harness.database}.loader_quarantine WHERE topic = '{topic}'").count() == 2
    )


def test_topics_loaded_side_by_side_share_one_new_quarantine_table(
    harness: Harness, spark: SparkSession
) -> None:
    """Four new topics, each with a bad record, in a database that has no quarantine table yet, loaded
    by four threads: the table is created once, and every topic's good and bad records arrive."""
    topics = [harness.topic() for _ in range(4)]
    for n, topic in enumerate(topics):
        harness.produce(topic, EVENT, [{"id": n}])
        harness.produce_raw(topic, [b"\x07bad"])

    report = harness.run(spark, topic_threads=4, max_bad_ratio=1.0)

    assert report.exit_code == 0, report.to_json()
    assert [(t.status, t.records, t.quarantined) for t in report.topics] == [("loaded", 1, 1)] * 4
    quarantined = spark.sql(f"SELECT topic FROM {harness.database}.loader_quarantine").collect()
    assert sorted(r["topic"] for r in quarantined) == sorted(topics)
    for n, topic in enumerate(topics):
        table = next(t.table for t in report.topics if t.topic == topic)
        assert [r["id"] for r in spark.table(table).collect()] == [n]
