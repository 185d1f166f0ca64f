"""Decoding Kafka records in the JVM: the Confluent-framed value (and key, when the topic has a key
schema), each with its own writer schema, projected onto the subject's latest schema in the same pass.

A framed message is: magic byte 0, the writer schema id as 4 bytes big-endian, the body. For Avro, each
writer id of the subject has one `from_avro(body, writer schema, avroSchema=latest)` branch (Spark's own
`from_avro`, see `loader.reading.value_formats.avro_read`); Avro's schema resolution then fills added fields
with their defaults, widens promoted types and drops removed fields. A JSON Schema body is read by Spark's
JSON reader on the latest schema's type (`loader.reading.value_formats.json_read`), a Protobuf body by the
loader's decoder in its JVM module (`loader.reading.value_formats.protobuf_read`).

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

from loader.reading.registry_client import SubjectSchemas
from loader.reading.sql_text import (
    aliased,
    binary_literal,
    case_when,
    field,
    identifier,
    named_struct,
    string_literal,
)
from loader.reading.value_formats.avro_read import AvroRead
from loader.reading.value_formats.json_read import CORRUPT, JsonRead
from loader.reading.value_formats.lookup import JSON, PROTOBUF
from loader.reading.value_formats.protobuf_read import (
    ProtobufRead,
    is_message_sql,
    message_sql,
)
from loader.reading.value_formats.spark_types import struct_fields

# a value's decoding as data: `only_where`, and `column()` to run it
ValueRead = AvroRead | JsonRead | ProtobufRead

DECODED_FLAG = "__loader_decoded"
KEY_DECODED = "__loader_key_decoded"  # the decoded key, before its verdict is known
HEADER_BYTES = 5
MAGIC = b"\x00"  # the first byte of a framed message

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


def schema_id_sql(value: str = "value") -> str:
    """The writer schema id in the header of the binary column `value` (SQL text)."""
    return f"CAST(conv(hex(substring({identifier(value)}, 2, 4)), 16, 10) AS INT)"


def schema_id_column(value: str = "value") -> Column:
    return F.expr(schema_id_sql(value))


def _framed_sql(column: str) -> str:
    bytes_ = identifier(column)
    return f"(length({bytes_}) >= {HEADER_BYTES} AND substring({bytes_}, 1, 1) = {binary_literal(MAGIC)})"


@dataclass(frozen=True)
class FramedValue:
    """What one binary column holds when read as a Confluent-framed value of a subject (SQL text)."""

    schema_id: str  # the header's schema id; NULL when the bytes are not framed
    known: str  # framed, and the id is a version of the subject
    decoded: ValueRead  # projected onto the latest schema (its marker field included); NULL unless known
    failure: Literal["flag", "null", "never", "corrupt"]  # how a failed decode shows in `decoded`
    fields: tuple[str, ...]  # the latest schema's top-level fields when it is a record
    # A known id whose record is not of the table's type, and why (SQL text): a Protobuf record whose
    # message indexes name another message of its writer's file, or none. Not decoded.
    other_type: tuple[str, str] | None = None

    def failed(self, decoded: str) -> str:
        """A known id whose body does not decode, read off the column named `decoded`: the column a
        projection below computed from `self.decoded`, so that each body is decoded once, not again
        for its verdict."""
        if self.failure == "flag":
            return f"({self.known} AND {field(decoded, DECODED_FLAG)} IS NULL)"
        if self.failure == "corrupt":
            unread = f"{identifier(decoded)} IS NULL OR {field(decoded, CORRUPT)} IS NOT NULL"
            return f"({self.known} AND ({unread}))"
        if self.failure == "null":
            return f"({self.known} AND {identifier(decoded)} IS NULL)"
        return "false"

    def without_flag(self, decoded: str) -> str:
        """The column named `decoded` as the latest schema reads it, without its marker field."""
        if self.failure not in ("flag", "corrupt"):
            return identifier(decoded)
        fields = named_struct((name, field(decoded, name)) for name in self.fields)
        return case_when([(f"{identifier(decoded)} IS NULL", "NULL")], fields)


def protobuf_messages(schemas: SubjectSchemas) -> dict[str, dict[str, tuple[int, ...]]]:
    """Where each writer's file has each message (`SubjectSchemas.messages`); for schemas made without
    (a subject read before they were known), the table's message first in every writer's file."""
    if schemas.messages:
        return {name: dict(paths) for name, paths in schemas.messages.items()}
    return {schemas.message: {"0": tuple(sorted(schemas.writer_schemas))}}


def framed_schema_id_sql(column: str = "value") -> str:
    """The writer schema id of the binary `column`, NULL when its bytes are not framed (SQL text)."""
    return case_when([(_framed_sql(column), schema_id_sql(column))])


def read_framed(column: str, schemas: SubjectSchemas, header_id: str | None = None) -> FramedValue:
    """`header_id`: a column that already holds `framed_schema_id_sql(column)`. Every writer schema's
    branch and the verdicts test the id; read from the bytes in each of them, it is converted (to hex,
    then from base 16) several times per record, a measurable share of a big topic's decoding
    (benchmarks/JOURNAL.md, "The header's schema id read once")."""
    bytes_ = identifier(column)
    schema_id = identifier(header_id) if header_id else framed_schema_id_sql(column)
    body = f"substring({bytes_}, {HEADER_BYTES + 1}, length({bytes_}) - {HEADER_BYTES})"
    ids = ", ".join(str(i) for i in sorted(schemas.writer_schemas))
    known = f"coalesce({schema_id} IN ({ids}), false)"
    latest = json.loads(schemas.latest_schema)
    if schemas.schema_type == JSON:
        read = JsonRead(body, known, f"{struct_fields(latest)}, {identifier(CORRUPT)}: STRING")
        return FramedValue(schema_id, known, read, "corrupt", tuple(f["name"] for f in latest["fields"]))
    if schemas.schema_type == PROTOBUF:  # by the loader's decoder (its JVM module): NULL when it fails
        messages = protobuf_messages(schemas)
        message = message_sql(bytes_, schema_id, messages)  # only read for a record left out (its reason)
        of_table = is_message_sql(bytes_, schema_id, messages, [schemas.message])
        protobuf = ProtobufRead(
            body, f"{known} AND {of_table}", struct_fields(latest), schemas.descriptors, schemas.message
        )
        # Short: the reason's text is part of the projection's generated code, which every record runs
        what = "key message" if column == "key" else "message"
        not_table = string_literal(f", not the table's {schemas.message}")
        reason = (
            f"concat('{what} indexes of writer schema id ', CAST({schema_id} AS STRING), "
            f"coalesce(concat(' name message ', {message}, {not_table}), ' name no message of its file'))"
        )
        return FramedValue(schema_id, known, protobuf, "null", (), (f"({known} AND NOT {of_table})", reason))
    reader, flagged = reader_schema(schemas.latest_schema)
    options = {
        "mode": "PERMISSIVE",
        "avroSchema": reader,
        # Non-null unions become structs whose members are named by type (member_string, member_long),
        # so adding a branch never renames the others' columns.
        "enableStableIdentifiersForUnionType": "true",
    }
    decoded = AvroRead(
        body, schema_id, known, tuple(sorted(schemas.writer_schemas.items())), tuple(options.items())
    )
    failure = "flag" if flagged else "never" if _admits_null(schemas.latest_schema) else "null"
    fields = tuple(f["name"] for f in latest["fields"]) if flagged else ()
    return FramedValue(schema_id, known, decoded, failure, fields)


@dataclass(frozen=True)
class DecodedNames:
    """The names of the columns `decode` adds: plain in a topic's own query; in a query over several
    topics (see `loader.run.topic_group_pass`), numbered for each topic where a record of another topic
    has no value (its decoded value and key), plain for a column whose value each record has, computed
    by its own topic's rules (`shared`)."""

    event: str = "event"
    key_decoded: str = KEY_DECODED  # the decoded key, before its verdict is known
    key_avro: str = "key_avro"
    key_string: str = "key_string"
    frame_reason: str = "frame_reason"  # what is wrong with the value's framing, whatever its subject
    bad_reason: str = "bad_reason"

    @classmethod
    def numbered(cls, number: int) -> DecodedNames:
        """Topic `number`'s names in a query over several topics."""
        plain = cls()
        return cls(
            **{
                name: value if plain.shared(value) else f"{value}_{number}"
                for name, value in plain.__dict__.items()
            }
        )

    def shared(self, name: str) -> bool:
        """Whether the column `name` (one of these) is one column for every topic of a query over several."""
        return name in (self.key_string, self.frame_reason, self.bad_reason)


@dataclass(frozen=True)
class Decoding:
    """The columns of `decode` as three projections of Kafka rows, as SQL text by name: `schema_id`
    (the value's header id, every topic's alike) comes first, `decoding` decodes each body once by it,
    beside `framing`, which reads the raw record only (the text key and the value's framing verdict, when
    asked for apart), and `judging` reads the verdicts off what the second one computed."""

    schema_id: str
    decoding: dict[str, ValueRead]
    framing: dict[str, str]
    judging: dict[str, str]
    names: DecodedNames
    has_key_schema: bool


def decoding_columns(
    values: SubjectSchemas,
    keys: SubjectSchemas | None = None,
    names: DecodedNames = DecodedNames(),
    framing_apart: bool = False,
) -> Decoding:
    """The columns `decode` adds, under `names`. `framing_apart`: the text key and the value's framing
    verdict as `framing` columns, which several topics' query shares (they read no subject's schema);
    else in `judging`, as a topic's own query keeps them (with them apart, a topic of 1,000,000 records
    took 1.07x the load phase in one side-by-side measurement, benchmarks/JOURNAL.md)."""
    value = read_framed("value", values, header_id="schema_id")
    decoding = {names.event: value.decoded}
    framing: dict[str, str] = {}
    judging: dict[str, str] = {}
    key_is_avro = key_failed = "false"
    if keys is not None:
        key = read_framed("key", keys)
        decoding[names.key_decoded] = key.decoded
        key_is_avro, key_failed = key.known, key.failed(names.key_decoded)
        judging[names.key_avro] = case_when([(f"NOT {key_failed}", key.without_flag(names.key_decoded))])
    value_failed = value.failed(names.event)
    # A text key (a user id, an order number): readable as a string. Framed Avro and bytes that are not
    # UTF-8 stay in `_kafka_key` only. Valid UTF-8 is what reads back as the same bytes (Java's decoder
    # replaces what is not): Spark's `is_valid_utf8` exists only from Spark 4.0.
    as_text = "CAST(`key` AS STRING)"
    valid = f"encode({as_text}, 'UTF-8') = `key`"
    text_key = f"`key` IS NOT NULL AND NOT {_framed_sql('key')} AND NOT {key_is_avro} AND {valid}"
    first_byte = "substring(`value`, 1, 1)"
    tombstone = ("`value` IS NULL", "CAST(NULL AS STRING)")  # a row, not a bad record
    unframed = [
        (
            f"length(`value`) < {HEADER_BYTES}",
            string_literal(f"message is shorter than the {HEADER_BYTES}-byte Confluent header"),
        ),
        (
            f"{first_byte} != {binary_literal(MAGIC)}",
            f"concat('wrong magic byte ', conv(hex({first_byte}), 16, 10), ' (expected 0)')",
        ),
    ]
    if framing_apart:
        framing[names.key_string] = case_when([(text_key, as_text)])
        framing[names.frame_reason] = case_when([tombstone, *unframed])  # NULL: a tombstone, or framed
        frame_reason = identifier(names.frame_reason)
        unframed = [(f"{frame_reason} IS NOT NULL", frame_reason)]
    else:
        judging[names.key_string] = case_when([(text_key, as_text)])
    reasons = [
        tombstone,
        *unframed,
        (
            f"NOT {value.known}",
            f"concat('schema id ', CAST({value.schema_id} AS STRING), "
            f"{string_literal(f' is not a version of subject {values.subject}')})",
        ),
        *([value.other_type] if value.other_type else []),
        (
            value_failed,
            f"concat('body does not decode with writer schema id ', CAST({value.schema_id} AS STRING))",
        ),
    ]
    if keys is not None:
        if key.other_type:
            reasons.append(key.other_type)
        reasons.append(
            (
                key_failed,
                f"concat('key does not decode with schema id ', CAST({key.schema_id} AS STRING), "
                f"{string_literal(f' of subject {keys.subject}')})",
            )
        )
    judging[names.bad_reason] = case_when(reasons)
    return Decoding(framed_schema_id_sql("value"), decoding, framing, judging, names, keys is not None)


def expressions(columns: dict[str, str]) -> dict[str, Column]:
    """SQL text by name as Columns, one call into the JVM each (see `loader.reading.sql_text`)."""
    return {name: F.expr(text) for name, text in columns.items()}


def decode(raw: DataFrame, values: SubjectSchemas, keys: SubjectSchemas | None = None) -> DataFrame:
    """Kafka rows -> the same with `schema_id`, the projected `event` struct (NULL for a tombstone or an
    undecodable value), the key as `key_string` (and `key_avro` with a key subject), and `bad_reason`
    (NULL for a good record).

    Three projections: the first reads the header's schema id, the second decodes by it, the third
    judges from the decoded columns. Spark does not merge them (the id and the decoded struct are each
    used more than once and are not cheap), so each header and each body is read once. A filter on
    `bad_reason` is still pushed below them and would decode every body again: a topic's write filters
    through `rows_to_write`, which puts a barrier between."""
    columns = decoding_columns(values, keys)
    identified = raw.withColumn("schema_id", F.expr(columns.schema_id))
    stage = identified.withColumns({name: read.column() for name, read in columns.decoding.items()})
    judged = stage.withColumns(expressions(columns.judging))
    return judged.drop(KEY_DECODED) if keys is not None else judged


def user_fields(decoded: DataFrame, event: str = "event") -> list[str]:
    """The latest value schema's top-level fields, in order."""
    event_type = decoded.schema[event].dataType
    return [f.name for f in event_type.fields if f.name != DECODED_FLAG]  # type: ignore[attr-defined]


def is_good_sql(skip_tombstones: bool = False, bad_reason: str = "bad_reason") -> str:
    """A row of the table (tombstones left out when they are to be skipped), as SQL text."""
    good = f"{identifier(bad_reason)} IS NULL"
    return f"({good} AND `value` IS NOT NULL)" if skip_tombstones else good


def is_good(skip_tombstones: bool = False, bad_reason: str = "bad_reason") -> Column:
    return F.expr(is_good_sql(skip_tombstones, bad_reason))


def table_columns(decoded: DataFrame) -> dict[str, str]:
    """The table's columns: the event's fields, then the Kafka metadata columns."""
    return table_columns_of(user_fields(decoded), DecodedNames(), "key_avro" in decoded.columns)


def table_columns_of(fields: list[str], names: DecodedNames, key_avro: bool) -> dict[str, str]:
    """`table_columns` over the columns `decoding_columns` named `names`, given the event's fields: SQL
    text by column name."""
    return {
        **{name: field(names.event, name) for name in fields},
        "_kafka_partition": "`partition`",
        "_kafka_offset": "`offset`",
        "_kafka_timestamp": "`timestamp`",
        "_schema_id": "`schema_id`",
        "_kafka_key": "`key`",
        "_kafka_key_string": identifier(names.key_string),
        **({"_kafka_key_avro": identifier(names.key_avro)} if key_avro else {}),
        # Spark's Kafka source gives NULL for a record without headers: an empty list reads better.
        "_kafka_headers": f"coalesce(`headers`, CAST(array() AS {HEADERS_TYPE}))",
        "_kafka_deleted": "`value` IS NULL",
    }


def select_list(columns: dict[str, str]) -> list[str]:
    """`table_columns` as a `selectExpr` list."""
    return [aliased(text, name) for name, text in columns.items()]


def good_rows(
    decoded: DataFrame, skip_tombstones: bool = False, columns: dict[str, str] | None = None
) -> DataFrame:
    """The table's rows. The filter decodes each row again unless a barrier stands between it and
    `decode` (see there): fine for a schema or a small read, not for a topic's write. `columns`: the
    `table_columns` of `decoded` when the caller has them already (they take a look at its schema)."""
    good = decoded.where(is_good(skip_tombstones))
    return good.selectExpr(*select_list(columns or table_columns(decoded)))


def rows_to_write(
    decoded: DataFrame,
    counter: Observation,
    skip_tombstones: bool,
    is_held: Column,
    columns: dict[str, str] | None = None,
) -> DataFrame:
    """The table's rows that it does not hold already, counted on the way in `counter` (`rows`: the
    good rows, `held`: those among them the table holds). Counted before the filter, which is then not
    pushed into the decoding: every record is decoded once (see `decode`)."""
    good = is_good(skip_tombstones)
    counted = decoded.observe(counter, *_write_counts(good, is_held))
    return counted.where(good & ~is_held).selectExpr(*select_list(columns or table_columns(decoded)))


def _write_counts(good: Column, is_held: Column) -> tuple[Column, Column]:
    return F.count_if(good).alias("rows"), F.count_if(good & is_held).alias("held")


def counted_for_writing(decoded: DataFrame, skip_tombstones: bool, is_held: Column) -> dict[str, int]:
    """What `rows_to_write` counts, counted by a query of its own (a second read of the records): for a
    write whose observation Spark left empty. Spark 3.5's adaptive execution does that to a write that gets
    no row at all (every one already held), having replaced the plan below it by an empty relation."""
    row = decoded.agg(*_write_counts(is_good(skip_tombstones), is_held)).first()
    assert row is not None
    return {"rows": int(row["rows"]), "held": int(row["held"])}


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
    found = F.expr(framed_schema_id_sql("value")).alias("schema_id")
    wanted = F.col("schema_id").isNotNull()
    if excluded:
        wanted &= ~F.col("schema_id").isin(sorted(excluded))
    rows = raw.select(found).where(wanted).distinct().limit(limit).collect()
    return sorted(int(row["schema_id"]) for row in rows)


def value_message_sql(schemas: SubjectSchemas) -> str:
    """The Protobuf message a Kafka row's value is, by its writer schema id and message indexes in the
    writer's file of `schemas` (`protobuf_read.message_sql`); NULL for none (SQL text)."""
    return message_sql(identifier("value"), schema_id_sql("value"), protobuf_messages(schemas))


def value_is_message_sql(schemas: SubjectSchemas, names: Collection[str]) -> str:
    """Whether a Kafka row's value is one of the Protobuf messages `names` of `schemas`' files (SQL text,
    `protobuf_read.is_message_sql`)."""
    return is_message_sql(identifier("value"), schema_id_sql("value"), protobuf_messages(schemas), names)


def found_messages(
    raw: DataFrame, schemas: SubjectSchemas, excluded: Collection[str], limit: int
) -> list[str]:
    """The distinct Protobuf messages, other than `excluded`, that framed values of Kafka rows `raw` with
    a writer id of `schemas` are (at most `limit` of them)."""
    ids = ", ".join(str(i) for i in sorted(schemas.writer_schemas))
    message = value_message_sql(schemas)
    wanted = f"{_framed_sql('value')} AND {schema_id_sql('value')} IN ({ids}) AND {message} IS NOT NULL"
    if excluded:
        listed = ", ".join(string_literal(n) for n in sorted(excluded))
        wanted += f" AND NOT coalesce({message} IN ({listed}), false)"
    rows = (
        raw.where(F.expr(wanted)).select(F.expr(message).alias("message")).distinct().limit(limit).collect()
    )
    return sorted(str(row["message"]) for row in rows)


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
