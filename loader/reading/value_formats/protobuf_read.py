"""The Column that decodes a framed Protobuf body: the loader's decoder (`tableloader.ProtobufJson`, its
JVM module) writes each record as JSON, which Spark's JSON reader reads on the table's type as a JSON
Schema record's (`loader.reading.value_formats.json_read`).

The decoder is a function object holding the schema's files, made once per topic's query and sent to the
tasks with it: passing the files as a SQL argument instead converted and hashed them for every record
(1,000,000 records took 2.5x Avro's time; benchmarks/JOURNAL.md, "Avro, JSON Schema and Protobuf").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pyspark import SparkContext
from pyspark.sql import Column
from pyspark.sql import functions as F

from loader.reading.value_formats.json_read import CORRUPT


@dataclass(frozen=True)
class ProtobufRead:
    """A framed Protobuf body's decoding, as data."""

    body: str  # the body after the 5-byte header, binary (SQL text)
    guard: str  # decoded only where this holds, NULL elsewhere (SQL text)
    struct_fields: str  # the table's columns as Spark DDL (`name: TYPE, ...`), the corrupt field too
    descriptors: str  # the schema's files, a base64 `FileDescriptorSet`, imports first
    message: str  # the full name of the table's message

    def only_where(self, condition: str) -> ProtobufRead:
        """The same, decoded only where `condition` holds too (SQL text)."""
        return replace(self, guard=f"({condition}) AND ({self.guard})")

    def column(self) -> Column:
        jvm = SparkContext._jvm
        assert jvm is not None, "a Spark session is running"
        decoder = jvm.tableloader.ProtobufJson
        as_json = Column(decoder.column(F.expr(self.body)._jc, self.descriptors, self.message))
        options = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT}
        decoded = F.from_json(as_json, f"STRUCT<{self.struct_fields}>", options)
        return F.when(F.expr(self.guard), decoded)
