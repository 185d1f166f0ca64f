"""Decoding Confluent-framed Avro in the JVM, each record with its own writer schema, projected onto the
subject's latest schema in the same pass.

A message is: magic byte 0, the writer schema id as 4 bytes big-endian, the Avro body. For each writer id
of the subject there is one `from_avro(body, writer schema, avroSchema=latest)` branch; Avro's schema
resolution then fills added fields with their defaults, widens promoted types and drops removed fields.

Decoding failures are found reliably: spark-avro's PERMISSIVE mode returns a struct of NULLs for a body it
cannot decode, which a record whose fields are all NULL would look like too. So the reader schema gets one
extra boolean field with default `true` that no writer has: every record that decodes carries `true`
there, and a failure carries NULL.
"""

from __future__ import annotations

import json

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.avro.functions import from_avro

from loader.registry_client import SubjectSchemas

DECODED_FLAG = "__loader_decoded"
HEADER_BYTES = 5

# Kafka metadata kept with every row; user fields may not use these names.
METADATA_COLUMNS = ("_kafka_partition", "_kafka_offset", "_kafka_timestamp", "_schema_id")


def reader_schema(latest_schema: str) -> str:
    """The latest schema plus the decode flag (see the module docstring)."""
    schema = json.loads(latest_schema)
    schema["fields"] = [*schema["fields"], {"name": DECODED_FLAG, "type": "boolean", "default": True}]
    return json.dumps(schema)


def schema_id_column(value: str = "value") -> Column:
    return F.conv(F.hex(F.substring(value, 2, 4)), 16, 10).cast("int")


def decode(raw: DataFrame, schemas: SubjectSchemas) -> DataFrame:
    """Kafka rows (partition, offset, timestamp, key, value) -> the same with `schema_id`, the projected
    `event` struct (NULL when undecodable) and `bad_reason` (NULL for a good record)."""
    options = {
        "mode": "PERMISSIVE",
        "avroSchema": reader_schema(schemas.latest_schema),
        # Non-null unions become structs whose members are named by type (member_string, member_long),
        # so adding a branch never renames the others' columns.
        "enableStableIdentifiersForUnionType": "true",
    }
    schema_id = schema_id_column()
    body = F.expr(f"substring(value, {HEADER_BYTES + 1}, length(value) - {HEADER_BYTES})")
    event: Column | None = None
    for writer_id, writer_schema in sorted(schemas.writer_schemas.items()):
        branch = from_avro(body, writer_schema, options)
        event = (
            F.when(schema_id == writer_id, branch)
            if event is None
            else event.when(schema_id == writer_id, branch)
        )
    assert event is not None, "a subject always has its latest schema"
    known_ids = F.array(*[F.lit(i) for i in sorted(schemas.writer_schemas)])
    framed = (F.length("value") >= HEADER_BYTES) & (F.substring("value", 1, 1) == F.lit(b"\x00"))
    with_header = raw.withColumn("schema_id", F.when(framed, schema_id))
    decoded = with_header.withColumn("event", F.when(F.array_contains(known_ids, F.col("schema_id")), event))
    reason = (
        F.when(F.col("value").isNull(), F.lit("message has no value (a tombstone)"))
        .when(F.length("value") < HEADER_BYTES, F.lit("message is shorter than the 5-byte Confluent header"))
        .when(
            F.substring("value", 1, 1) != F.lit(b"\x00"),
            F.concat(
                F.lit("wrong magic byte "),
                F.conv(F.hex(F.substring("value", 1, 1)), 16, 10),
                F.lit(" (expected 0)"),
            ),
        )
        .when(
            ~F.array_contains(known_ids, F.col("schema_id")),
            F.concat(
                F.lit("schema id "),
                F.col("schema_id").cast("string"),
                F.lit(f" is not a version of subject {schemas.subject}"),
            ),
        )
        .when(
            F.col(f"event.{DECODED_FLAG}").isNull(),
            F.concat(F.lit("body does not decode with writer schema id "), F.col("schema_id").cast("string")),
        )
    )
    return decoded.withColumn("bad_reason", reason)


def good_rows(decoded: DataFrame) -> DataFrame:
    """The table's rows: the event's fields, then the Kafka metadata columns."""
    event_type = decoded.schema["event"].dataType
    fields = [f.name for f in event_type.fields if f.name != DECODED_FLAG]  # type: ignore[attr-defined]
    return decoded.where(F.col("bad_reason").isNull()).select(
        *[F.col("event").getField(name).alias(name) for name in fields],
        F.col("partition").alias("_kafka_partition"),
        F.col("offset").alias("_kafka_offset"),
        F.col("timestamp").alias("_kafka_timestamp"),
        F.col("schema_id").alias("_schema_id"),
    )


def bad_rows(decoded: DataFrame) -> DataFrame:
    """The quarantine's rows: everything needed to find, understand and replay the record."""
    return decoded.where(F.col("bad_reason").isNotNull()).select(
        "topic",
        "partition",
        "offset",
        "timestamp",
        "key",
        "value",
        "schema_id",
        F.col("bad_reason").alias("reason"),
    )


def _foreign_id(schemas: SubjectSchemas) -> Column:
    """A framed message whose schema id is no version of the subject."""
    return F.col("schema_id").isNotNull() & ~F.col("schema_id").isin(sorted(schemas.writer_schemas))


def foreign_schema_ids(decoded: DataFrame, schemas: SubjectSchemas, limit: int) -> list[int]:
    """The distinct framed schema ids that are no version of the subject (at most `limit` of them)."""
    found = decoded.where(_foreign_id(schemas)).select("schema_id").distinct().limit(limit).collect()
    return sorted(int(row["schema_id"]) for row in found)


def with_reasons_by_id(bad: DataFrame, schemas: SubjectSchemas, reasons: dict[int, str]) -> DataFrame:
    """Quarantine rows whose schema id is foreign get the reason found for that id in the registry."""
    if not reasons:
        return bad
    reason: Column = F.col("reason")
    foreign = _foreign_id(schemas)
    chosen: Column | None = None
    for schema_id, text in sorted(reasons.items()):
        condition = foreign & (F.col("schema_id") == schema_id)
        chosen = F.when(condition, F.lit(text)) if chosen is None else chosen.when(condition, F.lit(text))
    assert chosen is not None
    return bad.withColumn("reason", chosen.otherwise(reason))


def column_comments(latest_schema: str) -> dict[str, str]:
    """Top-level field docs, which become column comments."""
    schema = json.loads(latest_schema)
    return {f["name"]: f["doc"] for f in schema.get("fields", []) if isinstance(f.get("doc"), str)}
