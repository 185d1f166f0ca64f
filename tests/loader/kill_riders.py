"""Topics of other kinds that ride along a kill test's runs: a transactional topic, a topic of several
event types, and a Protobuf and a JSON Schema topic. Their runs take the commit path of the test's table
format, so the same kills, in the same `loader run` processes, prove that each kind too is loaded exactly
once after them; the tests of the first two kinds kill runs of their own only in the full tier (at every
step, then from outside)."""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from loader.schema.naming import table_name
from tests.loader.event_types import click, numbered, order, produce, table, view
from tests.loader.harness import (
    Harness,
    committed_offsets,
    in_transaction,
    record_schema,
    transactional_producer,
)

Rows = list[list[dict[str, Any]]]


@dataclass(frozen=True)
class Rider:
    """`produce(i)` before the kill test's i-th run; after its last run, `check` on the rows of
    `statements` (read in the same application as the test's own)."""

    produce: Callable[[int], None]
    statements: tuple[str, ...]
    check: Callable[[Rows], None]


TRANSACTIONAL_EVENT = record_schema(
    "Payment", [{"name": "n", "type": "long"}, {"name": "target", "type": "string"}]
)


def transactional(harness: Harness) -> Rider:
    """Each round five records in a committed transaction and three in an aborted one: every committed
    record is loaded once, no aborted one (the run's offsets go past the transactions' markers)."""
    topic = harness.topic(partitions=2, prefix="transactional")
    serialize = harness.serializer(topic, TRANSACTIONAL_EVENT)
    producer = transactional_producer(harness)
    produced = 0

    def more(_: int) -> None:
        nonlocal produced
        values = [serialize({"n": produced + i, "target": "ok"}) for i in range(5)]
        in_transaction(producer, topic, values, commit=True)
        aborted = [serialize({"n": -1, "target": "aborted"}) for _ in range(3)]
        in_transaction(producer, topic, aborted, commit=False)
        produced += 5

    def check(rows: Rows) -> None:
        (loaded,) = rows
        pairs = sorted((row["p"], row["o"]) for row in loaded)
        assert pairs == committed_offsets(harness, topic), "a committed record was lost or loaded twice"
        assert {row["target"] for row in loaded} == {"ok"}, "an aborted record was loaded"
        assert sorted(row["n"] for row in loaded) == list(range(produced))

    statement = (
        f"SELECT _kafka_partition AS p, _kafka_offset AS o, n, target "
        f"FROM {harness.database}.{table_name(topic)}"
    )
    return Rider(more, (statement,), check)


def several_event_types(harness: Harness, evolved_from: int = 2) -> Rider:
    """Each round two records of each of three types (under TopicNameStrategy, RecordNameStrategy and
    TopicRecordNameStrategy) interleaved in two partitions, the types evolving from round `evolved_from`:
    every record once, in its type's table."""
    topic = harness.topic(partitions=2, prefix="types")
    produced = 0

    def more(round_: int) -> None:
        nonlocal produced
        v2 = round_ >= evolved_from
        produce(harness, topic, [
            (order(harness, v2), "topic", numbered(produced, 2)),
            (click(harness, v2), "record", numbered(produced + 2, 2, page="p")),
            (view(harness, v2), "topic_record", numbered(produced + 4, 2, url="u")),
        ])  # fmt: skip
        produced += 6

    def check(rows: Rows) -> None:
        loaded = [row for rows_of_a_table in rows for row in rows_of_a_table]
        pairs = sorted((row["p"], row["o"]) for row in loaded)
        assert pairs == committed_offsets(harness, topic), "a record was lost or loaded twice"
        assert sorted(row["n"] for row in loaded) == list(range(produced))

    statements = tuple(
        f"SELECT _kafka_partition AS p, _kafka_offset AS o, n FROM {table(harness, topic, suffix)}"
        for suffix in ("", "__click", "__view")
    )
    return Rider(more, statements, check)


COUNTED_PROTO = (
    'syntax = "proto3";\npackage riders;\n\nmessage Counted {\n  int64 n = 1;\n  string note = 2;\n}\n'
)
COUNTED_JSON = {"type": "object", "properties": {"n": {"type": "integer"}, "note": {"type": "string"}}}


def counted_message() -> type:
    """`COUNTED_PROTO`'s message class, in a pool of its own."""
    file = descriptor_pb2.FileDescriptorProto(name="counted.proto", package="riders", syntax="proto3")
    message = file.message_type.add(name="Counted")
    field = descriptor_pb2.FieldDescriptorProto
    message.field.add(name="n", number=1, type=field.TYPE_INT64, label=field.LABEL_OPTIONAL)
    message.field.add(name="note", number=2, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("riders.Counted"))


def protobuf_and_json(harness: Harness) -> Rider:
    """Each round four records in a Protobuf topic (the loader's JVM module decodes them) and four in a
    JSON Schema topic, framed as confluent-kafka's serializers frame them: every record once."""
    protobuf, json_topic = harness.topic(prefix="proto"), harness.topic(prefix="json")
    ids = {}
    for topic, body in (
        (protobuf, {"schema": COUNTED_PROTO, "schemaType": "PROTOBUF"}),
        (json_topic, {"schema": json.dumps(COUNTED_JSON), "schemaType": "JSON"}),
    ):
        answer = requests.post(
            f"{harness.registry_url}/subjects/{topic}-value/versions", json=body, timeout=30
        )
        assert answer.status_code == 200, answer.text
        ids[topic] = answer.json()["id"]
    counted = counted_message()
    produced = 0

    def header(topic: str) -> bytes:
        return b"\x00" + struct.pack(">I", ids[topic])

    def more(_: int) -> None:
        nonlocal produced
        numbers = range(produced, produced + 4)
        harness.produce_raw(
            protobuf,
            [header(protobuf) + b"\x00" + counted(n=n, note="p").SerializeToString() for n in numbers],
        )
        harness.produce_raw(
            json_topic, [header(json_topic) + json.dumps({"n": n, "note": "j"}).encode() for n in numbers]
        )
        produced += 4

    def check(rows: Rows) -> None:
        for loaded, topic, note in zip(rows, (protobuf, json_topic), ("p", "j"), strict=True):
            pairs = sorted((row["p"], row["o"]) for row in loaded)
            assert pairs == committed_offsets(harness, topic), f"a record of {topic} was lost or loaded twice"
            assert sorted(row["n"] for row in loaded) == list(range(produced))
            assert {row["note"] for row in loaded} == {note}

    statements = tuple(
        f"SELECT _kafka_partition AS p, _kafka_offset AS o, n, note "
        f"FROM {harness.database}.{table_name(topic)}"
        for topic in (protobuf, json_topic)
    )
    return Rider(more, statements, check)
