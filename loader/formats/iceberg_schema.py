"""An evolution plan (`loader.schema.table_evolution`) as Iceberg schema updates, decided without Spark:
columns are added by field id (nested fields inside their struct, array element or map value), with the
Avro default as the column's `initial-default` where it has one a column can carry
(`loader.schema.column_defaults`), so rows written before read it; columns are widened where Iceberg can
(int -> long, float -> double); other widenings that ORC reads are refused, since Iceberg would reject them.

The updates go through Iceberg's Java API (`loader.formats.iceberg_alter`), not Spark SQL: Spark's DDL
cannot set a column's `initial-default` (apache/iceberg#16698)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    DataType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructType,
)

from loader.schema.column_defaults import Default
from loader.schema.table_evolution import EvolutionPlan, UnrepresentableChange

ICEBERG_WIDENINGS = {("int", "bigint"), ("float", "double")}
# The types of the widenings the plan allows (`loader.schema.table_evolution.READABLE_WIDENINGS`), by name.
_TYPES: dict[str, DataType] = {
    t.simpleString(): t
    for t in (IntegerType(), LongType(), FloatType(), DoubleType(), StringType(), BinaryType())
}


@dataclass(frozen=True)
class AddColumn:
    parent: str | None  # Iceberg's name of the struct the column goes in (`items.element`); None: the table
    name: str
    data_type: DataType
    doc: str | None = None
    default: Default | None = None  # what rows written before read


@dataclass(frozen=True)
class WidenColumn:
    name: str  # Iceberg's name of the column
    data_type: str  # "bigint" or "double"


def iceberg_name(path: str) -> str:
    """`a.b[].c{}.d` (the plan's notation) -> `a.b.element.c.value.d` (Iceberg's name of the field)."""
    parts = []
    for name in path.split("."):
        suffixes = []
        while name.endswith("[]") or name.endswith("{}"):
            suffixes.insert(0, "element" if name.endswith("[]") else "value")
            name = name[:-2]
        parts.append(name)
        parts.extend(suffixes)
    return ".".join(parts)


def schema_updates(plan: EvolutionPlan, defaults: dict[str, Default]) -> list[AddColumn | WidenColumn]:
    """What Iceberg must change for the plan (`defaults`: the Avro defaults by field path); raises
    UnrepresentableChange for a widening Iceberg refuses."""
    updates: list[AddColumn | WidenColumn] = []
    for change in plan.changes:
        if change.kind == "added":
            parent, _, name = change.path.rpartition(".")
            added = _field_type(plan.schema, change.path)
            doc = _top_level_comment(plan.schema, change.path) if not parent else None
            where = iceberg_name(parent) if parent else None
            updates.append(AddColumn(where, name, added, doc, defaults.get(change.path)))
        elif change.kind == "widened":
            assert change.old_type and change.new_type
            if (change.old_type, change.new_type) not in ICEBERG_WIDENINGS:
                raise UnrepresentableChange(
                    change.path,
                    _TYPES[change.old_type],
                    _TYPES[change.new_type],
                    "Iceberg widens only int -> long and float -> double. Register the change under a new "
                    "field name, or load the topic into a new table.",
                )
            updates.append(WidenColumn(iceberg_name(change.path), change.new_type))
    return updates


def _field_type(schema: StructType, path: str) -> DataType:
    """The type of the field at `path` in `schema`."""
    current: DataType = schema
    for part in path.split("."):
        name = part.rstrip("[]{}")
        assert isinstance(current, StructType)
        current = next(f.dataType for f in current.fields if f.name.lower() == name.lower())
        for suffix in part[len(name) :: 2]:
            if suffix == "[":
                assert isinstance(current, ArrayType)
                current = current.elementType
            else:
                assert isinstance(current, MapType)
                current = current.valueType
    return current


def _top_level_comment(schema: StructType, name: str) -> str | None:
    field = next(f for f in schema.fields if f.name == name)
    return field.metadata.get("comment")


def without_defaults(updates: list[AddColumn | WidenColumn]) -> list[AddColumn | WidenColumn]:
    """`updates` for a table of format version 2, which has no column defaults: its added columns read NULL
    in the rows written before them, as a Hive table's nested fields do."""
    return [replace(u, default=None) if isinstance(u, AddColumn) else u for u in updates]
