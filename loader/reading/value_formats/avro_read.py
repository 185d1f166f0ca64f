"""The Column that decodes a framed Avro body: Spark's own `from_avro`, one branch per writer schema.

Spark's `from_avro` is a SQL function from Spark 4.0 on only; its Column function exists on every
supported line (3.5 included), so the decoding is built here as a Column (`avro_column`) from `AvroRead`,
the decoding as data around the SQL text of the rest of a topic's query (`loader.reading.decoding`). It
costs a few calls into the JVM per writer schema, not per field. The loader once had an Avro decoder of
its own in its jar, for a measured 5 ms per writer schema and task of a small topic's interpreted query;
it was built on Spark's internal classes and broke on each new Spark line, and was retired
(benchmarks/JOURNAL.md, "One code base for every Spark line").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql.avro.functions import from_avro


@dataclass(frozen=True)
class AvroRead:
    """`from_avro` of a framed binary column, one branch per writer schema, as data: Spark's `from_avro`
    is a SQL function only from Spark 4.0 on, so the decoding is made a Column by `avro_column` (on every
    Spark line alike), around SQL text for the rest."""

    body: str  # the Avro body (SQL text)
    schema_id: str  # the header's schema id (SQL text)
    guard: str  # decoded only where this holds, NULL elsewhere (SQL text)
    writer_schemas: tuple[tuple[int, str], ...]  # (writer schema id, its schema), by id
    options: tuple[tuple[str, str], ...]  # `from_avro`'s options

    def only_where(self, condition: str) -> AvroRead:
        """The same, decoded only where `condition` holds too (SQL text)."""
        return replace(self, guard=f"({condition}) AND ({self.guard})")

    def column(self) -> Column:
        return avro_column(self)


def avro_column(read: AvroRead) -> Column:
    """`read` as a Column: NULL where its guard does not hold, else its writer schema's decoding."""
    body = F.expr(read.body)
    options = dict(read.options)
    branches: Column | None = None
    for writer_id, writer_schema in read.writer_schemas:
        matches = F.expr(f"{read.schema_id} = {writer_id}")
        decoded = from_avro(body, writer_schema, options)
        branches = F.when(matches, decoded) if branches is None else branches.when(matches, decoded)
    assert branches is not None, "a subject has at least one writer schema"
    return F.when(F.expr(read.guard), branches)
