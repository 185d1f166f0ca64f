"""Avro field defaults as the values old rows read in a column added later.

When a field with a default is added, rows loaded before the change have no such column in their files.
Spark reads a missing column as the column's *existence default* (the `EXISTS_DEFAULT` field metadata,
stored with the table's schema), so the table gives those rows the Avro default, as Avro's own schema
resolution would, instead of NULL. The value belongs to the column's history: it is set when the column
is added and kept after (see `loader.schema.table_evolution`).

Only defaults with an exact SQL literal are carried: strings, enums, booleans and numbers without a
logical type. Other defaults (bytes, records, arrays, maps, timestamps...) leave old rows NULL. Hive tables
carry top-level fields' defaults only; Iceberg tables carry those of nested fields too, as the column's
`initial-default` (`field_defaults`, used by `loader.formats.iceberg_schema`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal

from pyspark.sql.types import StructField, StructType

from loader.schema.avro_fields import record_fields

EXISTS_DEFAULT = "EXISTS_DEFAULT"

_SQL_TYPES = {"int": "INT", "long": "BIGINT", "float": "FLOAT", "double": "DOUBLE"}


@dataclass(frozen=True)
class Default:
    """An Avro default that a column can carry exactly: the Avro type it is of, and the value."""

    avro_type: Literal["string", "boolean", "int", "long", "float", "double"]
    value: str | bool | int | float


def existence_defaults(latest_schema: str) -> dict[str, str]:
    """Top-level field name -> SQL literal of its Avro default, for the fields that have one."""
    schema = json.loads(latest_schema)
    found = {}
    for field in schema.get("fields", []):
        if "default" not in field:
            continue
        literal = sql_literal(field["type"], field["default"])
        if literal is not None:
            found[field["name"]] = literal
    return found


def field_defaults(latest_schema: str) -> dict[str, Default]:
    """The path of every field, nested ones included (`loader.schema.avro_fields`), -> its Avro default, for
    the fields whose default a column can carry exactly."""
    found = {}
    for path, field in record_fields(latest_schema):
        if "default" in field and (default := representable_default(field["type"], field["default"])):
            found[path] = default
    return found


def sql_literal(avro_type: Any, value: Any) -> str | None:
    """The default as a Spark SQL literal of the column's type, or None when there is no exact one."""
    default = representable_default(avro_type, value)
    if default is None:
        return None
    if isinstance(default.value, str):
        return "'" + default.value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(default.value, bool):
        return "TRUE" if default.value else "FALSE"
    return f"CAST({default.value!r} AS {_SQL_TYPES[default.avro_type]})"


def representable_default(avro_type: Any, value: Any) -> Default | None:
    """The default with the Avro type it is of, or None when a column cannot carry it exactly."""
    if isinstance(avro_type, list):  # Avro 1.12: the default belongs to the first branch it matches
        branch = next((b for b in avro_type if _matches(b, value)), None)
        return None if branch is None else representable_default(branch, value)
    if isinstance(avro_type, dict):
        if avro_type.get("logicalType"):
            return None
        if avro_type.get("type") == "enum":
            return Default("string", value) if isinstance(value, str) else None
        avro_type = avro_type.get("type")
    if value is None:
        return None
    if avro_type == "string":
        return Default("string", value) if isinstance(value, str) else None
    if avro_type == "boolean" and isinstance(value, bool):
        return Default("boolean", value)
    if avro_type in _SQL_TYPES and isinstance(value, int | float) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return Default(avro_type, value)
    return None


def _matches(avro_type: Any, value: Any) -> bool:
    """Whether ``value`` is of the JSON kind of ``avro_type`` (the schema was validated when registered)."""
    kind = avro_type.get("type") if isinstance(avro_type, dict) else avro_type
    if isinstance(kind, dict | list):  # {"type": {...}} nests a type; a union cannot contain one
        return _matches(kind, value)
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind in ("int", "long"):
        bits = 31 if kind == "int" else 63
        return isinstance(value, int) and not isinstance(value, bool) and -(2**bits) <= value < 2**bits
    if kind in ("float", "double"):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "enum":
        return value in avro_type.get("symbols", ())
    if kind in ("string", "bytes", "fixed"):
        return isinstance(value, str)
    if kind == "array":
        return isinstance(value, list)
    return isinstance(value, dict)  # map, record, or a named type's reference


def with_column_metadata(
    schema: StructType, comments: dict[str, str], defaults: dict[str, str]
) -> StructType:
    """Top-level columns with their Avro doc as comment and their Avro default as existence default."""
    fields = []
    for f in schema.fields:
        metadata: dict[str, str] = {}
        if f.name in comments:
            metadata["comment"] = comments[f.name]
        if f.name in defaults:
            metadata[EXISTS_DEFAULT] = defaults[f.name]
        fields.append(StructField(f.name, f.dataType, True, metadata))
    return StructType(fields)


def without_existence_default(metadata: dict[str, Any]) -> dict[str, Any]:
    """A column's metadata (its comment, ...) without the existence default."""
    return {k: v for k, v in metadata.items() if k != EXISTS_DEFAULT}


def without_existence_defaults(schema: StructType) -> StructType:
    """The columns a new table is made with. A column made with its table has no rows from before it, so
    its existence default would never be read; left out, the table is made by its `CREATE TABLE` alone
    (DDL cannot say the default) instead of one more metastore call per table. Columns added later get
    theirs (`loader.schema.table_evolution` keeps what the table has, and adds nothing to old columns)."""
    return StructType(
        [
            StructField(f.name, f.dataType, f.nullable, without_existence_default(f.metadata))
            for f in schema.fields
        ]
    )
