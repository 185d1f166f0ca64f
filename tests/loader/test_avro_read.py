"""The decoding Column (`loader.reading.value_formats.avro_read.avro_column`: Spark's own `from_avro`, one
branch per writer schema) for every Avro type the loader meets, evolved and broken bodies included,
generated and interpreted, on every supported Spark line."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from typing import Any

import fastavro
import pytest
from pyspark.sql import DataFrame, Row, SparkSession

from loader.reading.decoding import reader_schema
from loader.reading.value_formats.avro_read import AvroRead, avro_column
from loader.runtime.spark_session import interpreted_session

pytestmark = pytest.mark.integration

WRITER = {
    "type": "record",
    "name": "Order",
    "namespace": "shop",
    "fields": [
        {"name": "id", "type": "int"},
        {"name": "dropped", "type": "string"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "either", "type": ["null", "string", "long"]},
        {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID"]}},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "attrs", "type": {"type": "map", "values": "double"}},
        {
            "name": "address",
            "type": {"type": "record", "name": "Address", "fields": [{"name": "city", "type": "string"}]},
        },
        {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 2}},
    ],
}
# The latest version: a field removed, one added with a default, int widened to long.
LATEST = {
    **WRITER,
    "fields": [
        {"name": "id", "type": "long"},
        *[f for f in WRITER["fields"] if f["name"] not in ("id", "dropped")],
        {"name": "note", "type": "string", "default": "none"},
    ],
}
RECORD = {
    "id": 7,
    "dropped": "gone",
    "amount": Decimal("12.34"),
    "at": 1_764_000_000_000,
    "day": 20_000,
    "either": 42,
    "status": "PAID",
    "tags": ["a", "b"],
    "attrs": {"x": 1.5},
    "address": {"city": "Oslo"},
    "hash": b"\x01\x02",
}


def body(schema: Any, datum: Any) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), datum)
    return out.getvalue()


def decoded_with(
    frame: DataFrame, writers: dict[int, Any], reader: str | None, guard: str = "true"
) -> DataFrame:
    """`frame`'s `body` decoded by the writer schema its `writer` column names."""
    options = {"mode": "PERMISSIVE", "enableStableIdentifiersForUnionType": "true"}
    if reader is not None:
        options["avroSchema"] = reader
    read = AvroRead(
        "`body`",
        "`writer`",
        guard,
        tuple((i, json.dumps(w)) for i, w in sorted(writers.items())),
        tuple(options.items()),
    )
    return frame.select("n", avro_column(read).alias("decoded"))


def in_order(frame: DataFrame) -> list[Row]:
    return sorted(frame.collect(), key=lambda row: row["n"])


@pytest.fixture(params=["generated", "interpreted"])
def session(request: pytest.FixtureRequest, spark: SparkSession) -> SparkSession:
    return spark if request.param == "generated" else interpreted_session(spark)


def bodies(spark: SparkSession, values: list[bytes | None], writer: int = 1) -> DataFrame:
    return spark.createDataFrame(
        [(n, v, writer) for n, v in enumerate(values)], "n int, body binary, writer int"
    )


def test_an_evolved_record_of_every_type_decodes_and_broken_bodies_read_as_nulls(
    session: SparkSession,
) -> None:
    good = body(WRITER, RECORD)
    values = [good, good[:7], b"\xff\xff\xff\xff\xff", b"", None, body(WRITER, {**RECORD, "either": "s"})]
    reader, _ = reader_schema(json.dumps(LATEST))
    rows = in_order(decoded_with(bodies(session, values), {1: WRITER}, reader))
    first = rows[0]["decoded"]
    assert (first["id"], first["note"], first["either"]["member_long"], first["__loader_decoded"]) == (
        7,
        "none",
        42,
        True,
    )
    assert first["amount"] == Decimal("12.34") and first["address"]["city"] == "Oslo"
    assert first["tags"] == ["a", "b"] and first["attrs"] == {"x": 1.5} and first["hash"] == b"\x01\x02"
    assert "dropped" not in first.asDict()
    # A truncated or garbage body reads as a struct of NULLs (the decode flag NULL), NULL stays NULL.
    for broken in rows[1:4]:
        assert broken["decoded"] is not None and set(broken["decoded"].asDict().values()) == {None}
    assert rows[4]["decoded"] is None
    assert rows[5]["decoded"]["either"]["member_string"] == "s"


def test_a_type_that_is_not_a_record_reads_null_when_it_does_not_decode(session: SparkSession) -> None:
    frame = bodies(session, [body("string", "k-1"), b"\x09", None])
    decoded = decoded_with(frame, {1: "string"}, None)
    assert [r["decoded"] for r in in_order(decoded)] == ["k-1", None, None]


def test_each_body_decodes_with_its_own_writer_schema_and_only_where_the_guard_holds(
    spark: SparkSession,
) -> None:
    old = {"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}
    new = {**old, "fields": [*old["fields"], {"name": "b", "type": "string", "default": "x"}]}
    frame = bodies(spark, [body(old, {"a": 1})], writer=1).unionByName(
        bodies(spark, [body(new, {"a": 2, "b": "y"})], writer=2).selectExpr("n + 1 AS n", "body", "writer")
    )
    reader, _ = reader_schema(json.dumps(new))
    rows = in_order(decoded_with(frame, {1: old, 2: new}, reader))
    assert [(r["decoded"]["a"], r["decoded"]["b"]) for r in rows] == [(1, "x"), (2, "y")]
    guarded = in_order(decoded_with(frame, {1: old, 2: new}, reader, guard="`writer` = 2"))
    assert guarded[0]["decoded"] is None and guarded[1]["decoded"]["b"] == "y"
