"""The Column that decodes a framed JSON Schema body: Spark's own JSON reader (`from_json`) on the Spark
type of the subject's latest schema (`loader.reading.value_formats.json_schema_tables`).

JSON names its properties in every record, so one reading serves every writer schema: a property the
latest schema declares and an older record lacks reads NULL, one the latest schema no longer declares is
not read. A record that is no JSON object of the declared types (malformed text, a string where a number
is declared) is told apart by the reader's corrupt-record field (`CORRUPT`), which holds the record's text
then and NULL otherwise, or by a NULL decoding (a body that is no JSON object at all).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pyspark.sql import Column
from pyspark.sql import functions as F

from loader.reading.sql_text import string_literal, string_map

CORRUPT = "__loader_corrupt"  # the reader's corrupt-record field: the record's text when it does not read


@dataclass(frozen=True)
class JsonRead:
    """`from_json` of a framed binary column's body, as data (SQL text)."""

    body: str  # the JSON body, binary (SQL text)
    guard: str  # decoded only where this holds, NULL elsewhere (SQL text)
    struct_fields: str  # the latest schema's fields as Spark DDL (`name: TYPE, ...`), the corrupt field too

    def only_where(self, condition: str) -> JsonRead:
        """The same, decoded only where `condition` holds too (SQL text)."""
        return replace(self, guard=f"({condition}) AND ({self.guard})")

    def sql(self) -> str:
        options = string_map({"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT})
        struct = string_literal(f"STRUCT<{self.struct_fields}>")
        decoded = f"from_json(CAST({self.body} AS STRING), {struct}, {options})"
        return f"CASE WHEN {self.guard} THEN {decoded} END"

    def column(self) -> Column:
        return F.expr(self.sql())
