"""Topics of several event types, as confluent-kafka's AvroSerializer writes them with RecordNameStrategy
and TopicRecordNameStrategy: the record schemas, and records of several types interleaved in a topic's
partitions (the multi-type tests', and a kill test's topic of this kind)."""

from __future__ import annotations

import json
from typing import Any

from confluent_kafka import Producer
from confluent_kafka.schema_registry import (
    SchemaRegistryClient,
    record_subject_name_strategy,
    topic_record_subject_name_strategy,
    topic_subject_name_strategy,
)
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from loader.schema.naming import table_name
from tests.loader.harness import Harness

STRATEGIES = {
    "record": record_subject_name_strategy,
    "topic_record": topic_record_subject_name_strategy,
    "topic": topic_subject_name_strategy,
}


def event(harness: Harness, name: str, fields: list[dict[str, Any]]) -> dict[str, Any]:
    """A record schema in a namespace of the test's own: record-named subjects are global."""
    return {"type": "record", "name": name, "namespace": f"{harness.prefix}.shop", "fields": fields}


def click(harness: Harness, v2: bool = False) -> dict[str, Any]:
    extra = [{"name": "button", "type": "string", "default": "left"}] if v2 else []
    return event(
        harness, "Click", [{"name": "n", "type": "long"}, {"name": "page", "type": "string"}, *extra]
    )


def view(harness: Harness, v2: bool = False) -> dict[str, Any]:
    extra = [{"name": "seconds", "type": "double", "default": 0.0}] if v2 else []
    return event(harness, "View", [{"name": "n", "type": "long"}, {"name": "url", "type": "string"}, *extra])


def buy(harness: Harness, v2: bool = False) -> dict[str, Any]:
    extra = [{"name": "currency", "type": "string", "default": "EUR"}] if v2 else []
    return event(harness, "Buy", [{"name": "n", "type": "long"}, {"name": "cents", "type": "long"}, *extra])


def order(harness: Harness, v2: bool = False) -> dict[str, Any]:
    extra = [{"name": "channel", "type": "string", "default": "web"}] if v2 else []
    return event(harness, "Order", [{"name": "n", "type": "long"}, *extra])


def produce(
    harness: Harness, topic: str, batches: list[tuple[dict[str, Any], str, list[dict[str, Any]]]]
) -> None:
    """Records of several types interleaved in each partition, each serialized by the strategy named."""
    client = SchemaRegistryClient({"url": harness.registry_url})
    context = SerializationContext(topic, MessageField.VALUE)
    serialized = []
    for schema, strategy, records in batches:
        serializer = AvroSerializer(
            client, json.dumps(schema), conf={"subject.name.strategy": STRATEGIES[strategy]}
        )
        serialized.append([serializer(r, context) for r in records])
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    partitions = harness.partitions_of(topic)
    i = 0
    while any(serialized):
        for values in serialized:
            if values:
                producer.produce(topic, value=values.pop(0), partition=i % partitions)
                i += 1
    assert producer.flush(30) == 0


def numbered(start: int, count: int, **fields: Any) -> list[dict[str, Any]]:
    return [{"n": start + i, **fields} for i in range(count)]


def table(harness: Harness, topic: str, suffix: str = "") -> str:
    return f"{harness.database}.{table_name(topic)}{suffix}"
