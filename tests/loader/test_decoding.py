"""Decoding as a pass writes it, on Kafka-shaped rows made here: each record's header and body are read
once (the filter that leaves out bad records must not decode it again), the rows and counts are right, and
building a topic's query costs few calls into the JVM."""

from __future__ import annotations

import io
import json
import re
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import fastavro
import pytest
from py4j import protocol
from py4j.clientserver import ClientServerConnection
from pyspark.sql import Observation, SparkSession
from pyspark.sql import functions as F

from loader.formats import GROUP_MEMBER, group_rows_column
from loader.reading.decoding import KAFKA_COLUMNS, decode, rows_to_write, schema_id_sql, table_columns
from loader.reading.registry_client import SubjectSchemas
from loader.reading.value_formats.protobuf_read import is_message_sql, message_sql
from loader.run.topic_pass import rows_for_writer
from tests.loader.harness import executed_plan, record_schema

pytestmark = pytest.mark.integration

V1 = record_schema("Reading", [{"name": "n", "type": "long"}])
V2 = record_schema(
    "Reading", [{"name": "n", "type": "long"}, {"name": "unit", "type": "string", "default": "C"}]
)
KEY = record_schema("ReadingKey", [{"name": "sensor", "type": "string"}])
VALUES = SubjectSchemas("readings-value", 2, json.dumps(V2), {1: json.dumps(V1), 2: json.dumps(V2)})
KEYS = SubjectSchemas("readings-key", 3, json.dumps(KEY), {3: json.dumps(KEY)})


def framed(schema_id: int, schema: dict[str, Any], record: dict[str, Any]) -> bytes:
    body = io.BytesIO()
    fastavro.schemaless_writer(body, fastavro.parse_schema(schema), record)
    return b"\x00" + schema_id.to_bytes(4, "big") + body.getvalue()


def kafka_rows(spark: SparkSession, values: list[bytes | None], key: bytes | None = None) -> Any:
    at = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    rows = [("readings", 0, offset, at, key, value, None) for offset, value in enumerate(values)]
    return spark.createDataFrame(rows, KAFKA_COLUMNS)


def from_avro_calls(frame: Any) -> int:
    """How many Avro decodings the executed plan holds (each is one `from_avro` of one writer schema)."""
    return executed_plan(frame).count("from_avro(")


def value_header_reads(frame: Any) -> int:
    """How many times the executed plan reads the schema id off a value's header bytes."""
    plan = executed_plan(frame)
    return len(re.findall(r"substring\(value#\d+, 2, 4\)", plan))


@pytest.mark.parametrize("keys", [None, KEYS], ids=["value only", "with a key subject"])
def test_each_record_is_decoded_once_and_bad_records_are_left_out_and_counted(
    spark: SparkSession, keys: SubjectSchemas | None
) -> None:
    values = [
        framed(1, V1, {"n": 1}),
        framed(2, V2, {"n": 2, "unit": "F"}),
        framed(7, V1, {"n": 3}),  # an id that is no version of the subject
        b"\x00\x00\x00\x00\x02\xff",  # a known id whose body does not decode
        framed(2, V2, {"n": 4, "unit": "K"}),
    ]
    key = framed(3, KEY, {"sensor": "s-1"}) if keys is not None else None
    counter = Observation(f"test_{uuid.uuid4().hex}")
    held = (F.col("partition") == 0) & (F.col("offset") < 1)  # the table holds offset 0 already
    rows = rows_to_write(decode(kafka_rows(spark, values, key), VALUES, keys), counter, False, held)

    writer_schemas = len(VALUES.writer_schemas) + (len(keys.writer_schemas) if keys else 0)
    assert from_avro_calls(rows) == writer_schemas
    assert value_header_reads(rows) == 1, "every writer schema's branch and verdict tests one id"
    collected = rows.collect()
    got = sorted((r["_kafka_offset"], r["n"], r["unit"]) for r in collected)
    assert got == [(1, 2, "F"), (4, 4, "K")]
    assert (counter.get["rows"], counter.get["held"]) == (3, 1)
    if keys is not None:
        assert {r["_kafka_key_avro"]["sensor"] for r in collected} == {"s-1"}


def test_a_topic_s_rows_for_the_writer_decode_each_record_once_in_one_code_stage(spark: SparkSession) -> None:
    """The rows a topic's pass hands the loader's writer: nothing filtered and nothing observed, so the
    decoding and the row are one stage of generated code; a record that is not a row has no member."""
    values = [
        framed(1, V1, {"n": 1}),
        framed(7, V1, {"n": 2}),  # an id that is no version of the subject
        b"\x00\x00\x00\x00\x02\xff",  # a known id whose body does not decode
        framed(2, V2, {"n": 3, "unit": "K"}),
        None,  # a tombstone, skipped
    ]
    decoded = decode(kafka_rows(spark, values), VALUES)
    rows = rows_for_writer(decoded, True, table_columns(decoded), None)

    plan = executed_plan(rows)
    assert from_avro_calls(rows) == len(VALUES.writer_schemas)
    assert value_header_reads(rows) == 1
    assert "CollectMetrics" not in plan and "Filter" not in plan
    assert set(re.findall(r"\*\((\d+)\)", plan)) == {"1"}, plan  # one stage of generated code
    got = rows.select(GROUP_MEMBER, f"{group_rows_column(0)}.*").collect()
    members = {r["_kafka_offset"]: r[GROUP_MEMBER] for r in got}
    assert members == {0: 0, 1: None, 2: None, 3: 0, 4: None}
    assert sorted((r["n"], r["unit"]) for r in got if r[GROUP_MEMBER] == 0) == [(1, "C"), (3, "K")]


@contextmanager
def jvm_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts the calls this thread makes into the JVM inside the block (each a round trip on the
    gateway). Not counted: other threads' calls, and the releases of Java objects that Python's garbage
    collector happens to free meanwhile, whose number depends on what the tests before left behind."""
    count = [0]
    send = ClientServerConnection.send_command
    release = protocol.MEMORY_COMMAND_NAME + protocol.MEMORY_DEL_SUBCOMMAND_NAME
    caller = threading.get_ident()

    def counted(self: ClientServerConnection, command: str, *args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == caller and not command.startswith(release):
            count[0] += 1
        return send(self, command, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(ClientServerConnection, "send_command", counted)
        yield count


def test_a_topic_query_costs_a_few_jvm_calls_per_field(
    spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every Column function is a call into the JVM, and PySpark 4 adds more to record its Python call
    site unless the session turns that off: built from Column functions, a one-field topic's query took
    about 2,000 calls with it on and 400 with it off, 46 and 6 per field. Built as SQL text (see
    `loader.reading.sql_text`) it takes about 80, and 1 per field."""

    def build(fields: int) -> int:
        schema = record_schema("Wide", [{"name": f"f{i}", "type": "long"} for i in range(fields)])
        values = SubjectSchemas("wide-value", 1, json.dumps(schema), {1: json.dumps(schema)})
        raw = kafka_rows(spark, [framed(1, schema, {f"f{i}": i for i in range(fields)})])
        with jvm_calls(monkeypatch) as calls:
            rows_to_write(decode(raw, values), Observation(f"test_{uuid.uuid4().hex}"), False, F.lit(False))
        return calls[0]

    build(1)  # the first query of a session looks classes up once
    narrow = build(1)
    per_field = (build(41) - narrow) / 40
    assert per_field <= 2, per_field
    assert narrow <= 150, narrow


def test_a_protobuf_records_message_is_read_by_its_writer_id_and_message_indexes(spark: SparkSession) -> None:
    """Confluent's message indexes after the header, in each of their forms, name a message of the
    writer's own file (the same indexes are another message in another writer's file), however deep or
    large."""
    messages = {
        "shop.Order": {"0": (7, 8)},
        "shop.Refund": {"1": (7,), "2": (8,)},
        "shop.Order.Line": {"0.1": (8,)},
        "shop.Far": {"70": (8,)},
        "shop.Deep": {"0.0.0.0": (8,)},
    }
    cases = [
        (7, b"\x00", "shop.Order"),
        (8, b"\x02\x00", "shop.Order"),  # [0] written out
        (7, b"\x02\x02", "shop.Refund"),
        (8, b"\x02\x02", None),  # writer 8's file has no message at [1]
        (8, b"\x02\x04", "shop.Refund"),
        (8, b"\x04\x00\x02", "shop.Order.Line"),
        (8, b"\x06\x00\x02\x04", None),
        (8, b"\x08\x00\x00\x00\x00", "shop.Deep"),  # four levels deep
        (8, b"\x02\x8c\x01", "shop.Far"),  # index 70: two bytes
        (8, b"\x01", None),  # a negative count
        (8, b"", None),  # nothing after the header
    ]
    rows = [
        (bytes([0]) + schema_id.to_bytes(4, "big") + indexes + b"\x08\x01",)
        for schema_id, indexes, _ in cases
    ]
    frame = spark.createDataFrame(rows, "value binary")
    got = frame.selectExpr(
        f"{message_sql('value', schema_id_sql('value'), messages)} AS message",
        f"{is_message_sql('value', schema_id_sql('value'), messages, ['shop.Refund', 'shop.Far'])} AS chosen",
    ).collect()
    assert [r["message"] for r in got] == [m for _, _, m in cases]
    assert [r["chosen"] for r in got] == [m in ("shop.Refund", "shop.Far") for _, _, m in cases]
