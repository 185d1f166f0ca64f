"""The loader's own `from_avro` (loader/jvm/tableloader/FromAvro.java) gives what Spark's gives, type and
rows, for every Avro type the loader meets, evolved and broken bodies included, generated and interpreted;
and the loader falls back to Spark's without its jar."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from typing import Any

import fastavro
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, Row, SparkSession

from loader.reading import avro_decoder as decoder_module
from loader.reading.avro_decoder import SPARK_FROM_AVRO, avro_decoder
from loader.reading.decoding import reader_schema
from loader.reading.sql_text import string_literal, string_map
from loader.spark_session import interpreted_session
from tests.loader.harness import executed_plan

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


def decoded_with(frame: DataFrame, function: str, writer: Any, reader: str | None) -> DataFrame:
    options = {"mode": "PERMISSIVE", "enableStableIdentifiersForUnionType": "true"}
    if reader is not None:
        options["avroSchema"] = reader
    call = f"{function}(`body`, {string_literal(json.dumps(writer))}, {string_map(options)})"
    return frame.selectExpr("n", f"{call} AS decoded")


def in_order(frame: DataFrame) -> list[Row]:
    return sorted(frame.collect(), key=lambda row: row["n"])


@pytest.fixture(params=["generated", "interpreted"])
def session(request: pytest.FixtureRequest, spark: SparkSession) -> SparkSession:
    return spark if request.param == "generated" else interpreted_session(spark)


def bodies(spark: SparkSession, values: list[bytes | None]) -> DataFrame:
    return spark.createDataFrame(list(enumerate(values)), "n int, body binary")


def test_the_loaders_decoder_gives_what_spark_from_avro_gives(session: SparkSession) -> None:
    name = avro_decoder(session)
    assert name == "tableloader_from_avro"
    good = body(WRITER, RECORD)
    values = [good, good[:7], b"\xff\xff\xff\xff\xff", b"", None, body(WRITER, {**RECORD, "either": "s"})]
    reader, _ = reader_schema(json.dumps(LATEST))
    frame = bodies(session, values)
    ours = decoded_with(frame, name, WRITER, reader)
    spark_s = decoded_with(frame, SPARK_FROM_AVRO, WRITER, reader)
    plan = executed_plan(ours)
    decoding = next(line for line in plan.splitlines() if "tableloader_from_avro(" in line)
    # Its own generated code in a session that generates code (whole-stage: `*(n)`), no fallback.
    assert decoding.lstrip(" +-:").startswith("*(") == (
        session.conf.get("spark.sql.codegen.wholeStage") == "true"
    )
    assert ours.schema == spark_s.schema
    rows, expected = in_order(ours), in_order(spark_s)
    assert rows == expected
    first = rows[0]["decoded"]
    assert (first["id"], first["note"], first["either"]["member_long"], first["__loader_decoded"]) == (
        7,
        "none",
        42,
        True,
    )
    assert first["amount"] == Decimal("12.34") and first["address"]["city"] == "Oslo"
    # A truncated or garbage body reads as a struct of NULLs (the decode flag NULL), NULL stays NULL.
    for broken in rows[1:4]:
        assert broken["decoded"] is not None and set(broken["decoded"].asDict().values()) == {None}
    assert rows[4]["decoded"] is None
    assert rows[5]["decoded"]["either"]["member_string"] == "s"


def test_a_type_that_is_not_a_record_reads_null_when_it_does_not_decode(session: SparkSession) -> None:
    frame = bodies(session, [body("string", "k-1"), b"\x09", None])
    ours = decoded_with(frame, avro_decoder(session), "string", None)
    spark_s = decoded_with(frame, SPARK_FROM_AVRO, "string", None)
    assert ours.schema == spark_s.schema
    assert (
        [r["decoded"] for r in ours.collect()]
        == [r["decoded"] for r in spark_s.collect()]
        == [
            "k-1",
            None,
            None,
        ]
    )


def test_arguments_the_decoder_cannot_take_are_refused_clearly(spark: SparkSession) -> None:
    name = avro_decoder(spark)
    frame = bodies(spark, [b"\x00"])
    with pytest.raises(Exception, match="writer schema as a string literal"):
        frame.selectExpr(f"{name}(`body`, CAST(n AS STRING), map('mode', 'PERMISSIVE'))").collect()
    with pytest.raises(AnalysisException, match="decodes binary"):
        frame.selectExpr(f"{name}(n, '\"string\"', map('mode', 'PERMISSIVE'))").collect()
    with pytest.raises(AnalysisException, match="PERMISSIVE mode only"):
        frame.selectExpr(f"{name}(`body`, '\"string\"', map('mode', 'FAILFAST'))").collect()


def test_without_the_loaders_jar_spark_from_avro_decodes(
    spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(decoder_module, "DECODER_CLASS", "NoSuchDecoder")
    assert avro_decoder(spark) == SPARK_FROM_AVRO


def test_a_session_registers_the_decoder_once(spark: SparkSession) -> None:
    """Every pass asks for the decoder; Spark would warn of each registration after the first."""
    name = avro_decoder(spark)
    identifier = spark._jvm.org.apache.spark.sql.catalyst.FunctionIdentifier.apply(name)
    registry = spark._jsparkSession.sessionState().functionRegistry()
    builder = registry.lookupFunctionBuilder(identifier).get()
    assert avro_decoder(spark) == name
    assert registry.lookupFunctionBuilder(identifier).get().equals(builder)
