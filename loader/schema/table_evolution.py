"""How a table's columns must change when its topic's latest schema changes, or why they cannot.

Tables are stored as ORC because its reader converts every numeric widening that Avro allows
(int -> long/float/double, long -> float/double, float -> double) when old files are read with the new
column type, and matches struct fields by name, so fields added inside structs, arrays of structs and maps
of structs read as NULL from old files. (Spark 4.0's Parquet reader refuses int -> float and
long -> float/double.) ORC reads old binary data as hex text under a string column, so bytes -> string is
refused rather than silently shown wrong; string -> bytes reads correctly.

The plan only ever adds: existing columns keep their place (a field removed from the schema keeps its
column, for history, and new rows leave it NULL), new columns are appended, nested fields are appended
inside their struct. Everything is decided on pyspark's type objects, with no Spark session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

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
    StructField,
    StructType,
)

from loader.schema.column_defaults import EXISTS_DEFAULT, without_existence_default

# Widening conversions the table format's reader performs on old files (see the module docstring).
READABLE_WIDENINGS: frozenset[tuple[type[DataType], type[DataType]]] = frozenset(
    {
        (IntegerType, LongType),
        (IntegerType, FloatType),
        (IntegerType, DoubleType),
        (LongType, FloatType),
        (LongType, DoubleType),
        (FloatType, DoubleType),
        (StringType, BinaryType),
    }
)

ChangeKind = Literal["added", "widened", "kept_removed", "renamed"]


@dataclass(frozen=True)
class ColumnChange:
    """One change of the table, for the run report."""

    kind: ChangeKind
    path: str
    old_type: str | None = None
    new_type: str | None = None
    new_name: str | None = None  # of a renamed column (`loader.schema.alias_renames`)

    def describe(self) -> str:
        if self.kind == "added":
            return f"added column {self.path} {self.new_type}"
        if self.kind == "renamed":
            return f"renamed column {self.path} to {self.new_name} (rows loaded before keep their values)"
        if self.kind == "widened":
            return f"widened column {self.path} {self.old_type} -> {self.new_type}"
        return f"kept column {self.path} {self.old_type} (no longer in the schema; new rows are NULL)"


@dataclass(frozen=True)
class EvolutionPlan:
    """The table's new data columns and what changed; `changes` empty means nothing to alter."""

    schema: StructType
    changes: list[ColumnChange] = field(default_factory=list)

    @property
    def needs_alter(self) -> bool:
        return any(change.kind != "kept_removed" for change in self.changes)


class UnrepresentableChange(ValueError):
    """The table cannot follow the schema without rewriting or misreading data already loaded."""

    def __init__(self, path: str, old_type: DataType, new_type: DataType, remedy: str) -> None:
        self.path = path
        self.old_type = old_type.simpleString()
        self.new_type = new_type.simpleString()
        self.remedy = remedy
        super().__init__(
            f"column {path} is {self.old_type} in the table but {self.new_type} in the latest schema, "
            f"which the table format cannot read from the files already loaded. {remedy}"
        )


_GENERIC_REMEDY = (
    "Register the change under a new field name (and stop writing the old one), or load the topic into a "
    "new table: drop or rename the existing table and reset the topic's saved offsets."
)


def plan_evolution(current: StructType, latest: StructType) -> EvolutionPlan:
    """The columns a table with `current` data columns must have to hold rows of the `latest` schema."""
    changes: list[ColumnChange] = []
    schema = _merge_struct(current, latest, "", changes)
    return EvolutionPlan(schema=schema, changes=changes)


def _merge_struct(
    current: StructType, latest: StructType, prefix: str, changes: list[ColumnChange]
) -> StructType:
    latest_by_name = {f.name.lower(): f for f in latest.fields}
    current_names = {f.name.lower() for f in current.fields}
    merged: list[StructField] = []
    for old in current.fields:
        path = f"{prefix}{old.name}"
        new = latest_by_name.get(old.name.lower())
        if new is None:
            changes.append(ColumnChange("kept_removed", path, old_type=old.dataType.simpleString()))
            # Files written from now on lack the column: they must read NULL, not its old default.
            merged.append(StructField(old.name, old.dataType, True, without_existence_default(old.metadata)))
            continue
        merged_type = _merge_type(old.dataType, new.dataType, path, changes)
        merged.append(
            StructField(old.name, merged_type, True, _existing_metadata(old.metadata, new.metadata))
        )
    for new in latest.fields:
        if new.name.lower() not in current_names:
            path = f"{prefix}{new.name}"
            changes.append(ColumnChange("added", path, new_type=new.dataType.simpleString()))
            merged.append(StructField(new.name, new.dataType, True, new.metadata))
    return StructType(merged)


def _existing_metadata(old: dict, new: dict) -> dict:
    """The latest schema's comment, and the existence default the column got when it was added (what
    rows from before it read): a default changed or added later must not rewrite history."""
    merged = without_existence_default(new)
    if EXISTS_DEFAULT in old:
        merged[EXISTS_DEFAULT] = old[EXISTS_DEFAULT]
    return merged


def _merge_type(old: DataType, new: DataType, path: str, changes: list[ColumnChange]) -> DataType:
    if old == new:
        return old
    if isinstance(old, StructType) and isinstance(new, StructType):
        return _merge_struct(old, new, f"{path}.", changes)
    if isinstance(old, ArrayType) and isinstance(new, ArrayType):
        return ArrayType(_merge_type(old.elementType, new.elementType, f"{path}[]", changes), True)
    if isinstance(old, MapType) and isinstance(new, MapType):
        if old.keyType != new.keyType:
            raise UnrepresentableChange(path, old, new, _GENERIC_REMEDY)
        return MapType(old.keyType, _merge_type(old.valueType, new.valueType, f"{path}{{}}", changes), True)
    if (type(old), type(new)) in READABLE_WIDENINGS:
        changes.append(ColumnChange("widened", path, old.simpleString(), new.simpleString()))
        return new
    if isinstance(old, BinaryType) and isinstance(new, StringType):
        raise UnrepresentableChange(
            path,
            old,
            new,
            "The table keeps the column as binary (bytes -> string would show old rows as hex text); "
            "cast it in queries with decode(col, 'UTF-8'), or "
            + _GENERIC_REMEDY[0].lower()
            + _GENERIC_REMEDY[1:],
        )
    raise UnrepresentableChange(path, old, new, _GENERIC_REMEDY)


def is_union_struct(data_type: DataType) -> bool:
    """A union of several non-null types, as spark-avro maps it with stable identifiers (a plain column
    whose union gains a type is handled before planning, in `loader.schema.union_columns`)."""
    return (
        isinstance(data_type, StructType)
        and len(data_type.fields) > 1
        and all(f.name.startswith("member_") for f in data_type.fields)
    )


@dataclass(frozen=True)
class TableState:
    """What making sure of a table did to it in this run, whatever its format."""

    action: Literal["created", "evolved", "unchanged"]
    location: str
    changes: list[ColumnChange] = field(default_factory=list)
