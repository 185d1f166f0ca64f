"""The Spark type (DDL) of a table schema in Avro's JSON form, as Spark's `from_avro` would read it, for
the forms the value formats other than Avro give (`json_schema_tables`, `protobuf_tables`): a record's
columns are then the same as an Avro topic's of that schema, and Spark's JSON reader decodes into them."""

from __future__ import annotations

from typing import Any

_SCALARS = {
    "int": "INT",
    "long": "BIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "boolean": "BOOLEAN",
    "string": "STRING",
    "bytes": "BINARY",
}
_LOGICAL = {"timestamp-micros": "TIMESTAMP", "date": "DATE"}


def spark_type(avro_type: Any) -> str:
    """The Spark type (DDL) of an Avro-form type: nullable unions of one type, records, arrays, maps,
    the scalars, `timestamp-micros`, `date` and `decimal`."""
    if isinstance(avro_type, str):
        return _SCALARS[avro_type]
    if isinstance(avro_type, list):
        [single] = [t for t in avro_type if t != "null"]
        return spark_type(single)
    kind = avro_type["type"]
    if kind == "record":
        fields = ", ".join(f"{_quoted(f['name'])}: {spark_type(f['type'])}" for f in avro_type["fields"])
        return f"STRUCT<{fields}>"
    if kind == "array":
        return f"ARRAY<{spark_type(avro_type['items'])}>"
    if kind == "map":
        return f"MAP<STRING, {spark_type(avro_type['values'])}>"
    if avro_type.get("logicalType") == "decimal":
        return f"DECIMAL({avro_type['precision']},{avro_type.get('scale', 0)})"
    return _LOGICAL[avro_type["logicalType"]]


def struct_fields(record: dict) -> str:
    """The fields of an Avro-form record, as the inside of a Spark `STRUCT<...>` (DDL)."""
    return spark_type(record)[len("STRUCT<") : -1]


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
