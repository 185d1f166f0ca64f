"""The real parts fit: confluent-kafka writes, Spark reads exact offsets, spark-avro decodes."""

from __future__ import annotations

import io
import json

import fastavro
import pytest
from confluent_kafka import Producer
from pyspark.sql import SparkSession
from pyspark.sql.avro.functions import from_avro

from tests.fixtures.kafka import KafkaBroker

pytestmark = pytest.mark.integration

PAGE_VIEW = {
    "type": "record",
    "name": "PageView",
    "fields": [
        {"name": "member_id", "type": "long"},
        {"name": "url", "type": "string"},
        {"name": "referrer", "type": ["null", "string"], "default": None},
    ],
}


def avro_bytes(record: dict) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(PAGE_VIEW), record)
    return out.getvalue()


def produce(bootstrap: str, topic: str, records_by_partition: dict[int, list[dict]]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for partition, records in records_by_partition.items():
        for record in records:
            producer.produce(topic, value=avro_bytes(record), partition=partition)
    assert producer.flush(30) == 0


def test_exact_offset_ranges_are_read_and_decoded(kafka_broker: KafkaBroker, spark: SparkSession) -> None:
    topic = kafka_broker.create_topic(partitions=3)
    records = {
        partition: [
            {"member_id": partition * 100 + i, "url": f"/p{partition}/{i}", "referrer": ("/", None)[i % 2]}
            for i in range(6)
        ]
        for partition in range(3)
    }
    produce(kafka_broker.bootstrap, topic, records)

    # Ask for a different slice of each partition: [1, 4) of 0, [0, 6) of 1, [5, 6) of 2.
    ranges = {0: (1, 4), 1: (0, 6), 2: (5, 6)}
    frame = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", kafka_broker.bootstrap)
        .option("assign", json.dumps({topic: sorted(ranges)}))
        .option("startingOffsets", json.dumps({topic: {str(p): r[0] for p, r in ranges.items()}}))
        .option("endingOffsets", json.dumps({topic: {str(p): r[1] for p, r in ranges.items()}}))
        .load()
        .select("partition", "offset", from_avro("value", json.dumps(PAGE_VIEW)).alias("event"))
        .select("partition", "offset", "event.*")
    )
    got = sorted(tuple(row) for row in frame.collect())
    expected = sorted(
        (partition, offset, *records[partition][offset].values())
        for partition, (start, end) in ranges.items()
        for offset in range(start, end)
    )
    assert got == expected
    assert len(got) == 3 + 6 + 1
