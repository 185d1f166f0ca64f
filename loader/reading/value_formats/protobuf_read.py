"""The Column that decodes a framed Protobuf body into the table's row: the loader's decoder
(`tableloader.ProtobufRows`, its JVM module), a function object holding the schema's files and the row's
type, made once per topic's query and sent to the tasks with it.

Writing each record as JSON for Spark's JSON reader, and passing the files as a SQL argument, were both
measured slower (1,000,000 records: 2.0x to 2.5x Avro's time; benchmarks/JOURNAL.md, "Avro, JSON Schema
and Protobuf").

Which message a record is, the query decides (`is_message_sql`): by its writer schema id and the message
indexes after the header, in its writer's file; the decoder reads the indexes past.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

from pyspark import SparkContext
from pyspark.sql import Column
from pyspark.sql import functions as F

from loader.reading.sql_text import case_when, string_literal

HEADER_BYTES = 5  # the magic byte and the schema id, before the message indexes


@dataclass(frozen=True)
class ProtobufRead:
    """A framed Protobuf body's decoding, as data."""

    body: str  # the body after the 5-byte header, binary (SQL text)
    guard: str  # decoded only where this holds, NULL elsewhere (SQL text)
    struct_fields: str  # the table's columns as Spark DDL (`name: TYPE, ...`)
    descriptors: str  # the schema's files, a base64 `FileDescriptorSet`, imports first
    message: str  # the full name of the table's message

    def only_where(self, condition: str) -> ProtobufRead:
        """The same, decoded only where `condition` holds too (SQL text)."""
        return replace(self, guard=f"({condition}) AND ({self.guard})")

    def column(self) -> Column:
        jvm = SparkContext._jvm
        assert jvm is not None, "a Spark session is running"
        rows = jvm.tableloader.ProtobufRows.column(
            F.expr(self.body)._jc, self.descriptors, self.message, f"STRUCT<{self.struct_fields}>"
        )
        return F.when(F.expr(self.guard), Column(rows))


def indexes_bytes(path: str) -> list[bytes]:
    """The bytes Confluent's framing writes for message indexes `path` (`0`, `1`, `0.2`): a zigzag varint
    count, then each index so; `[0]` also in its short form, a zero byte. Varints delimit themselves, so
    the bytes are a record's indexes exactly when they begin its body."""
    indexes = [int(i) for i in path.split(".")]
    written = b"".join(_zigzag_varint(n) for n in (len(indexes), *indexes))
    return [b"\x00", written] if indexes == [0] else [written]


def _zigzag_varint(n: int) -> bytes:
    value, out = 2 * n, bytearray()  # zigzag: a non-negative n is 2n
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def message_condition(
    value: str, schema_id: str, paths: Mapping[str, tuple[int, ...]], writer_ids: Collection[int]
) -> str:
    """Whether a framed Protobuf value (the binary column `value`, its writer id `schema_id`, both SQL
    text) is the message that is at `paths` (message indexes -> the writer ids whose file has it there,
    `TableOf.messages`) among a subject's `writer_ids`; NULL where `value` is. The indexes' bytes are
    compared as written, the writer id only when the message is not at one place in every writer's file,
    so the common case, a file's first message, is two comparisons of bytes per record."""
    clauses = []
    for path, ids in sorted(paths.items()):
        body = HEADER_BYTES + 1
        match = " OR ".join(
            f"substring({value}, {body}, {len(written)}) = X'{written.hex()}'"
            for written in indexes_bytes(path)
        )
        if set(ids) != set(writer_ids):
            match = f"({match}) AND {schema_id} IN ({', '.join(map(str, sorted(ids)))})"
        clauses.append(f"({match})")
    return " OR ".join(clauses) if clauses else "false"


def message_sql(value: str, schema_id: str, messages: Mapping[str, Mapping[str, tuple[int, ...]]]) -> str:
    """The full name of the message a framed Protobuf value is, by its indexes in its writer's file
    (`TableOf.messages`); NULL for indexes that name none (SQL text, as `message_condition`)."""
    writer_ids = _writer_ids(messages)
    branches = [
        (message_condition(value, schema_id, paths, writer_ids), string_literal(name))
        for name, paths in sorted(messages.items())
    ]
    return case_when(branches) if branches else "CAST(NULL AS STRING)"


def is_message_sql(
    value: str, schema_id: str, messages: Mapping[str, Mapping[str, tuple[int, ...]]], names: Collection[str]
) -> str:
    """Whether a framed Protobuf value is one of the messages `names`; false where `value` is NULL or its
    indexes name none of them (SQL text, as `message_condition`)."""
    writer_ids = _writer_ids(messages)
    chosen = [
        message_condition(value, schema_id, messages[n], writer_ids) for n in sorted(names) if n in messages
    ]
    return f"coalesce({' OR '.join(f'({c})' for c in chosen)}, false)" if chosen else "false"


def _writer_ids(messages: Mapping[str, Mapping[str, tuple[int, ...]]]) -> set[int]:
    """Every writer id `messages` names: the subject's writers."""
    return {i for paths in messages.values() for ids in paths.values() for i in ids}
