"""Decoding Kafka records in the JVM: the Confluent-framed Avro value (and key, when the topic has a key
schema), each with its own writer schema, projected onto the subject's latest schema in the same pass.

A framed message is: magic byte 0, the writer schema id as 4 bytes big-endian, the Avro body. For each
writer id of the subject there is one `from_avro(body, writer schema, avroSchema=latest)` branch; Avro's
schema resolution then fills added fields with their defaults, widens promoted types and drops removed
fields.

Decoding failures are found reliably: spark-avro's PERMISSIVE mode returns a struct of NULLs for a body it
cannot decode, which a record whose fields are all NULL would look like too. So a record reader schema
gets one extra boolean field with default `true` that no writer has: every record that decodes carries
`true` there, and a failure carries NULL. (A key schema that is not a record, such as `"string"`, cannot
carry the flag: a NULL there is a failure unless the schema admits null.)

A record without a value is a tombstone, the delete marker of a compacted topic: a row of its own with
`_kafka_deleted` true, never a bad record.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F
from pyspark.sql.avro.functions import from_avro

from loader.reading.registry_client import SubjectSchemas

DECODED_FLAG = "__loader_decoded"
KEY_DECODED = "__loader_key_decoded"  # the decoded key, before its verdict is known
HEADER_BYTES = 5

# Kafka metadata kept with every row, after the value's fields; user fields may not use these names.
METADATA_COLUMNS = (
    "_kafka_partition",
    "_kafka_offset",
    "_kafka_timestamp",
    "_schema_id",
    "_kafka_key",
    "_kafka_key_string",
    "_kafka_key_avro",  # only for topics with a `<topic>-key` subject
    "_kafka_headers",
    "_kafka_deleted",
)
# What rows loaded before a metadata column existed read in it (SQL literals, see
# loader.schema.column_defaults).
METADATA_DEFAULTS = {"_kafka_deleted": "FALSE"}
# The Kafka source's columns the decoding reads (what an empty read must have too).
HEADERS_TYPE = "array<struct<key: string, value: binary>>"
KAFKA_COLUMNS = (
    "topic string, partition int, offset long, timestamp timestamp, key binary, value binary, "
    f"headers {HEADERS_TYPE}"
)


def reader_schema(latest_schema: str) -> tuple[str, bool]:
    """The latest schema, plus the decode flag when it is a record (see the module docstring)."""
    schema = json.loads(latest_schema)
    if not (isinstance(schema, dict) and schema.get("type") == "record"):
        return latest_schema, False
    schema["fields"] = [*schema["fields"], {"name": DECODED_FLAG, "type": "boolean", "default": True}]
    return json.dumps(schema), True


def _admits_null(schema_text: str) -> bool:
    schema = json.loads(schema_text)
    return schema == "null" or (isinstance(schema, list) and "null" in schema)


def schema_id_column(value: str = "value") -> Column:
    return F.conv(F.hex(F.substring(value, 2, 4)), 16, 10).cast("int")


def _framed(column: str) -> Column:
    return (F.length(column) >= HEADER_BYTES) & (F.substring(column, 1, 1) == F.lit(b"\x00"))


@dataclass(frozen=True)
class FramedAvro:
    """What one binary column holds when read as Confluent-framed Avro of a subject."""

    schema_id: Column  # the header's schema id; NULL when the bytes are not framed
    known: Column  # framed, and the id is a version of the subject
    decoded: Column  # projected onto the latest schema (flag included); NULL unless known
    failure: Literal["flag", "null", "never"]  # how a failed decode shows in `decoded`

    def failed(self, decoded: Column) -> Column:
        """A known id whose body does not decode, read off `decoded`: the column a projection below
        computed from `self.decoded`, so that each body is decoded once, not again for its verdict."""
        if self.failure == "flag":
            return self.known & decoded.getField(DECODED_FLAG).isNull()
        if self.failure == "null":
            return self.known & decoded.isNull()
        return F.lit(False)


def read_framed(column: str, schemas: SubjectSchemas) -> FramedAvro:
    reader, flagged = reader_schema(schemas.latest_schema)
    options = {
        "mode": "PERMISSIVE",
        "avroSchema": reader,
        # Non-null unions become structs whose members are named by type (member_string, member_long),
        # so adding a branch never renames the others' columns.
        "enableStableIdentifiersForUnionType": "true",
    }
    raw_id = schema_id_column(column)
    body = F.expr(f"substring(`{column}`, {HEADER_BYTES + 1}, length(`{column}`) - {HEADER_BYTES})")
    decoded: Column | None = None
    for writer_id, writer_schema in sorted(schemas.writer_schemas.items()):
        branch = from_avro(body, writer_schema, options)
        decoded = (
            F.when(raw_id == writer_id, branch)
            if decoded is None
            else decoded.when(raw_id == writer_id, branch)
        )
    assert decoded is not None, "a subject always has its latest schema"
    schema_id = F.when(_framed(column), raw_id)
    known = F.coalesce(schema_id.isin(sorted(schemas.writer_schemas)), F.lit(False))
    failure = "flag" if flagged else "never" if _admits_null(schemas.latest_schema) else "null"
    return FramedAvro(schema_id, known, F.when(known, decoded), failure)


@dataclass(frozen=True)
class DecodedNames:
    """The names of the columns `decode` adds: plain in a topic's own query, numbered for each topic of a
    query over several (see `loader.topic_group_pass`)."""

    event: str = "event"
    key_decoded: str = KEY_DECODED  # the decoded key, before its verdict is known
    key_avro: str = "key_avro"
    key_string: str = "key_string"
    bad_reason: str = "bad_reason"

    @classmethod
    def numbered(cls, number: int) -> DecodedNames:
        plain = cls()
        return cls(*(f"{name}_{number}" for name in plain.__dict__.values()))


@dataclass(frozen=True)
class Decoding:
    """The columns of `decode` as two projections of Kafka rows: `decoding` decodes each body once,
    `judging` reads the verdicts off what the first one decoded. `schema_id` is every topic's alike."""

    schema_id: Column
    decoding: dict[str, Column]
    judging: dict[str, Column]
    names: DecodedNames
    has_key_schema: bool


def decoding_columns(
    values: SubjectSchemas, keys: SubjectSchemas | None = None, names: DecodedNames = DecodedNames()
) -> Decoding:
    """The columns `decode` adds, under `names`."""
    value = read_framed("value", values)
    decoding = {names.event: value.decoded}
    if keys is not None:
        key = read_framed("key", keys)
        decoding[names.key_decoded] = key.decoded
    judging: dict[str, Column] = {}
    key_is_avro = F.lit(False)
    key_failed: Column = F.lit(False)
    if keys is not None:
        key_is_avro, key_failed = key.known, key.failed(F.col(names.key_decoded))
        decoded_key = F.col(names.key_decoded)
        if key.failure == "flag":
            decoded_key = decoded_key.dropFields(DECODED_FLAG)
        judging[names.key_avro] = F.when(~key_failed, decoded_key)
    value_failed = value.failed(F.col(names.event))
    # A text key (a user id, an order number): readable as a string. Framed Avro and bytes that are not
    # UTF-8 stay in `_kafka_key` only.
    as_text = F.col("key").cast("string")
    judging[names.key_string] = F.when(
        F.col("key").isNotNull() & ~_framed("key") & ~key_is_avro & F.is_valid_utf8(as_text), as_text
    )
    reason = (
        F.when(F.col("value").isNull(), F.lit(None).cast("string"))  # a tombstone: a row, not a bad record
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
            ~value.known,
            F.concat(
                F.lit("schema id "),
                value.schema_id.cast("string"),
                F.lit(f" is not a version of subject {values.subject}"),
            ),
        )
        .when(
            value_failed,
            F.concat(F.lit("body does not decode with writer schema id "), value.schema_id.cast("string")),
        )
    )
    if keys is not None:
        reason = reason.when(
            key_failed,
            F.concat(
                F.lit("key does not decode with schema id "),
                key.schema_id.cast("string"),
                F.lit(f" of subject {keys.subject}"),
            ),
        )
    judging[names.bad_reason] = reason
    return Decoding(value.schema_id, decoding, judging, names, keys is not None)


def decode(raw: DataFrame, values: SubjectSchemas, keys: SubjectSchemas | None = None) -> DataFrame:
    """Kafka rows -> the same with `schema_id`, the projected `event` struct (NULL for a tombstone or an
    undecodable value), the key as `key_string` (and `key_avro` with a key subject), and `bad_reason`
    (NULL for a good record).

    Two projections: the first decodes, the second judges from the decoded columns. Spark does not merge
    them (the decoded struct is used twice and is not cheap), so each body is decoded once. A filter
    on `bad_reason` is still pushed below both and would decode every body again: a topic's write
    filters through `rows_to_write`, which puts a barrier between."""
    columns = decoding_columns(values, keys)
    stage = raw.withColumns({"schema_id": columns.schema_id, **columns.decoding})
    judged = stage.withColumns(columns.judging)
    return judged.drop(KEY_DECODED) if keys is not None else judged


def user_fields(decoded: DataFrame, event: str = "event") -> list[str]:
    """The latest value schema's top-level fields, in order."""
    event_type = decoded.schema[event].dataType
    return [f.name for f in event_type.fields if f.name != DECODED_FLAG]  # type: ignore[attr-defined]


def is_good(skip_tombstones: bool = False, bad_reason: str = "bad_reason") -> Column:
    """A row of the table (tombstones left out when they are to be skipped)."""
    return F.col(bad_reason).isNull() & (F.col("value").isNotNull() if skip_tombstones else F.lit(True))


def table_columns(decoded: DataFrame) -> list[Column]:
    """The table's columns: the event's fields, then the Kafka metadata columns."""
    return table_columns_of(user_fields(decoded), DecodedNames(), "key_avro" in decoded.columns)


def table_columns_of(fields: list[str], names: DecodedNames, key_avro: bool) -> list[Column]:
    """`table_columns` over the columns `decoding_columns` named `names`, given the event's fields."""
    avro_key = [F.col(names.key_avro).alias("_kafka_key_avro")] if key_avro else []
    return [
        *[F.col(names.event).getField(name).alias(name) for name in fields],
        F.col("partition").alias("_kafka_partition"),
        F.col("offset").alias("_kafka_offset"),
        F.col("timestamp").alias("_kafka_timestamp"),
        F.col("schema_id").alias("_schema_id"),
        F.col("key").alias("_kafka_key"),
        F.col(names.key_string).alias("_kafka_key_string"),
        *avro_key,
        # Spark's Kafka source gives NULL for a record without headers: an empty list reads better.
        F.coalesce("headers", F.array().cast(HEADERS_TYPE)).alias("_kafka_headers"),
        F.col("value").isNull().alias("_kafka_deleted"),
    ]


def good_rows(
    decoded: DataFrame, skip_tombstones: bool = False, columns: list[Column] | None = None
) -> DataFrame:
    """The table's rows. The filter decodes each row again unless a barrier stands between it and
    `decode` (see there): fine for a schema or a small read, not for a topic's write. `columns`: the
    `table_columns` of `decoded` when the caller has them already (each costs a few JVM calls)."""
    return decoded.where(is_good(skip_tombstones)).select(*(columns or table_columns(decoded)))


def rows_to_write(
    decoded: DataFrame,
    counter: Observation,
    skip_tombstones: bool,
    is_held: Column,
    columns: list[Column] | None = None,
) -> DataFrame:
    """The table's rows that it does not hold already, counted on the way in `counter` (`rows`: the
    good rows, `held`: those among them the table holds). Counted before the filter, which is then not
    pushed into the decoding: every record is decoded once (see `decode`)."""
    good = is_good(skip_tombstones)
    counted = decoded.observe(
        counter, F.count_if(good).alias("rows"), F.count_if(good & is_held).alias("held")
    )
    return counted.where(good & ~is_held).select(*(columns or table_columns(decoded)))


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
        "headers",
    )


def _foreign_id(schemas: SubjectSchemas) -> Column:
    """A framed message whose schema id is no version of the subject."""
    return F.col("schema_id").isNotNull() & ~F.col("schema_id").isin(sorted(schemas.writer_schemas))


def foreign_schema_ids(decoded: DataFrame, schemas: SubjectSchemas, limit: int) -> list[int]:
    """The distinct framed schema ids that are no version of the subject (at most `limit` of them)."""
    found = decoded.where(_foreign_id(schemas)).select("schema_id").distinct().limit(limit).collect()
    return sorted(int(row["schema_id"]) for row in found)


def framed_schema_ids(raw: DataFrame, excluded: Collection[int], limit: int) -> list[int]:
    """The distinct schema ids in the framed values of Kafka rows `raw`, leaving out `excluded` (at most
    `limit` of them)."""
    found = F.when(_framed("value"), schema_id_column()).alias("schema_id")
    wanted = F.col("schema_id").isNotNull()
    if excluded:
        wanted &= ~F.col("schema_id").isin(sorted(excluded))
    rows = raw.select(found).where(wanted).distinct().limit(limit).collect()
    return sorted(int(row["schema_id"]) for row in rows)


def of_schema_ids(ids: Collection[int], tombstones: bool) -> Column:
    """Kafka rows whose value's header names one of `ids` (whatever its first byte: a row is one event
    type's by its id alone, so each row is exactly one type's or none), and tombstones if asked for."""
    chosen = F.coalesce(schema_id_column().isin(sorted(ids)), F.lit(False))
    return chosen | F.col("value").isNull() if tombstones else chosen


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
