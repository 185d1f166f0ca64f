"""The Column that decodes a framed Protobuf body into the table's row: the loader's decoder
(`tableloader.ProtobufRows`, its JVM module), a function object holding the schema's files and the row's
type, made once per topic's query and sent to the tasks with it.

Writing each record as JSON for Spark's JSON reader, and passing the files as a SQL argument, were both
measured slower (1,000,000 records: 2.0x to 2.5x Avro's time; benchmarks/JOURNAL.md, "Avro, JSON Schema
and Protobuf").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pyspark import SparkContext
from pyspark.sql import Column
from pyspark.sql import functions as F


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
