"""The Column that decodes a framed Protobuf body into the table's row: the loader's decoder
(`tableloader.ProtobufRows`, its JVM module), a function object holding the schema's files and the row's
type, made once per topic's query and sent to the tasks with it.

Writing each record as JSON for Spark's JSON reader, and passing the files as a SQL argument, were both
measured slower (1,000,000 records: 2.0x to 2.5x Avro's time; benchmarks/JOURNAL.md, "Avro, JSON Schema
and Protobuf").

Which message a record is, the query decides (`message_sql`): by its writer schema id and the message
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
MAX_DEPTH = 3  # message indexes read in SQL: a message nested at most this deep, each index below 64


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


def message_indexes_sql(value: str) -> str:
    """The message indexes of the framed binary column `value` (SQL text) as text, `0`, `1`, `0.2`; NULL
    for indexes deeper than `MAX_DEPTH` levels, an index past 63 (two bytes), or bytes that are none. Each
    is a zigzag varint after the header: a count, then the indexes (`[0]` in short, a zero byte)."""

    def byte(position: int) -> str:
        return f"CAST(conv(hex(substring({value}, {position}, 1)), 16, 10) AS INT)"

    def index(position: int) -> str:
        return f"CAST({byte(position)} DIV 2 AS STRING)"

    first = HEADER_BYTES + 1
    branches = [(f"{byte(first)} = 0", "'0'")]
    for depth in range(1, MAX_DEPTH + 1):
        positions = range(first + 1, first + 1 + depth)
        readable = " AND ".join(f"{byte(p)} < 128 AND {byte(p)} % 2 = 0" for p in positions)
        path = ", '.', ".join(index(p) for p in positions)
        branches.append((f"{byte(first)} = {2 * depth} AND {readable}", f"concat({path})"))
    return case_when(branches)


def message_sql(value: str, schema_id: str, messages: Mapping[str, Mapping[str, tuple[int, ...]]]) -> str:
    """The full name of the message a framed Protobuf value (the binary column `value`, its writer id
    `schema_id`, both SQL text) is, by its indexes in its writer's file (`TableOf.messages`); NULL for
    indexes that name none."""
    indexes = message_indexes_sql(value)
    branches = [
        (
            f"{indexes} = {string_literal(path)} AND {schema_id} IN ({', '.join(map(str, ids))})",
            string_literal(name),
        )
        for name, paths in sorted(messages.items())
        for path, ids in sorted(paths.items())
    ]
    return case_when(branches) if branches else "CAST(NULL AS STRING)"


def is_message_sql(message: str, names: Collection[str]) -> str:
    """Whether the message `message` (SQL text, `message_sql`) is one of `names`; false for NULL."""
    listed = ", ".join(string_literal(n) for n in sorted(names))
    return f"coalesce({message} IN ({listed}), false)" if names else "false"
