"""The audit as a stream: a committed run's per-topic, per-window counts, produced to a Kafka topic as
Avro registered in the registry and marked with the run's id."""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext
from fastavro import parse_schema, schemaless_reader

from loader.observability.audit_stream import SCHEMA, audit_counts, framed, key_of
from loader.outcome.report import RunReport, TopicReport
from tests.loader.harness import Harness, record_schema

EVENT = record_schema("Visit", [{"name": "n", "type": "long", "doc": "Sequence number."}])


def test_a_run_s_counts_are_one_record_per_topic_and_window_marked_with_the_run() -> None:
    loaded = TopicReport(
        "orders",
        "loaded",
        table="lake.orders",
        windows={"2026-11-28 12:00": 5, "2026-11-28 12:10": 2},
        skipped_windows={"2026-11-28 12:10": 1},
    )
    failed = TopicReport("users", "failed", table="lake.users", windows={"2026-11-28 12:00": 9})
    rows = audit_counts(RunReport("r7", "2026-11-28T12:30:00+00:00", "lake", topics=[loaded, failed]))
    assert rows == [
        {"run_id": "r7", "database": "lake", "topic": "orders", "table": "lake.orders",
         "window_start": "2026-11-28 12:00", "records": 5, "skipped": 0},
        {"run_id": "r7", "database": "lake", "topic": "orders", "table": "lake.orders",
         "window_start": "2026-11-28 12:10", "records": 2, "skipped": 1},
    ]  # fmt: skip
    value = framed(42, rows[1])
    assert value[:5] == b"\x00\x00\x00\x00\x2a"
    assert schemaless_reader(io.BytesIO(value[5:]), parse_schema(SCHEMA)) == rows[1]  # type: ignore[call-overload]
    assert key_of(rows[1]) == b"r7/orders/2026-11-28 12:10"


@pytest.mark.integration
def test_a_committed_run_produces_its_counts_to_the_audit_topic(cli_harness: Harness, tmp_path: Path) -> None:
    harness = cli_harness
    topic = harness.topic(partitions=2)
    harness.produce(topic, EVENT, [{"n": i} for i in range(7)])
    audit_topic = f"audit.{uuid.uuid4().hex[:8]}"  # outside the harness's prefix: never loaded itself
    harness.kafka.create_topic(audit_topic, partitions=1)
    report_json = tmp_path / "report.json"
    done = harness.run_cli("--audit-topic", audit_topic, "--report-json", str(report_json))
    assert done.returncode == 0, done.stderr
    report = json.loads(report_json.read_text())
    (loaded,) = report["topics"]

    consumer = Consumer(
        {
            "bootstrap.servers": harness.kafka.bootstrap,
            "group.id": uuid.uuid4().hex,
            "auto.offset.reset": "earliest",
        }
    )
    consumer.subscribe([audit_topic])
    deserialize = AvroDeserializer(SchemaRegistryClient({"url": harness.registry_url}))
    context = SerializationContext(audit_topic, MessageField.VALUE)
    found = []
    try:
        while len(found) < len(loaded["windows"]):
            message = consumer.poll(30)
            assert message is not None, f"only {len(found)} audit record(s) in 30 s"
            assert message.error() is None, message.error()
            found.append((message.key(), deserialize(message.value(), context)))
    finally:
        consumer.close()
    assert {record["window_start"]: record["records"] for _, record in found} == loaded["windows"]
    assert {record["run_id"] for _, record in found} == {report["run_id"]}
    assert {(record["topic"], record["table"], record["database"]) for _, record in found} == {
        (topic, loaded["table"], harness.database)
    }
    assert all(key == key_of(record) for key, record in found)
