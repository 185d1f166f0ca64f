"""A nullable column whose union gains a type: the table keeps the column and gains one per new type.

spark-avro reads `["null", "string"]` as a plain string column, but `["null", "string", "long"]` as a
struct with one field per type (`member_string`, `member_long`). A table that already has `ref string`
cannot turn that column into a struct: the files already loaded hold strings, and every query written
against `ref` would break. So when the latest schema has a union of several types where the table has
a plain column, the union is split across columns instead: the member of the column's own type stays in
`ref` (same name, same type, same meaning), and every other member gets a column of its own named
`<field>_<type>` (`ref_long`), NULL unless the record's value had that type. A later branch adds one more
column (`ref_double`); nothing is renamed or reshuffled. A union that was several types from the start
stays the struct spark-avro makes, to which a new branch adds a field (see `loader.schema.table_evolution`).

`fit_unions` decides this on types alone (no Spark session) and returns the columns the table must have
plus a `Shape` that says where each comes from; `reshape` applies it to the decoded rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, DataType, MapType, StructField, StructType

from loader.schema.table_evolution import READABLE_WIDENINGS, UnrepresentableChange, is_union_struct

MEMBER_PREFIX = "member_"


@dataclass(frozen=True)
class Pick:
    """One field of the table's shape: which decoded field (and which union member of it) it holds."""

    name: str
    source: str
    member: str | None = None
    inner: Shape | None = None  # how the value itself is reshaped; None: as decoded


@dataclass(frozen=True)
class Shape:
    """How a decoded value becomes the table's: a struct's fields picked, or an array's elements or a
    map's values reshaped."""

    kind: Literal["struct", "array", "map"]
    picks: tuple[Pick, ...] = ()
    element: Shape | None = None


def sibling_column(field: str, member: str) -> str:
    """The column a union member gets beside the field's original column: `ref` + `member_long` ->
    `ref_long`."""
    return f"{field}_{member.removeprefix(MEMBER_PREFIX)}"


def fit_unions(current: StructType | None, latest: StructType) -> tuple[StructType, Shape | None]:
    """The data columns the table must have for rows of `latest`, given its `current` columns (None: no
    table yet), and how to reshape decoded rows to them (None when no union is split: rows go as they
    are)."""
    if current is None:
        return latest, None
    fitted, shape = _fit_struct(current, latest, "")
    return fitted, shape


def _fit(old: DataType | None, new: DataType, path: str) -> tuple[DataType, Shape | None]:
    if _splits(old, new):  # a field's union is split in `_fit_struct`; an array item or map value cannot be
        assert old is not None
        raise UnrepresentableChange(
            path,
            old,
            new,
            "The union of the array's items or the map's values gained a type, which would turn their "
            "plain type into a struct of one field per type that the rows already loaded cannot be read "
            "as. Load the topic into a new table (drop or rename the existing one and reset the topic's "
            "saved offsets), or add the new type under a new field name.",
        )
    if isinstance(old, StructType) and isinstance(new, StructType):
        return _fit_struct(old, new, f"{path}.")
    if isinstance(old, ArrayType) and isinstance(new, ArrayType):
        element, shape = _fit(old.elementType, new.elementType, f"{path}[]")
        return ArrayType(element, new.containsNull), Shape("array", element=shape) if shape else None
    if isinstance(old, MapType) and isinstance(new, MapType):
        value, shape = _fit(old.valueType, new.valueType, f"{path}{{}}")
        return MapType(new.keyType, value, new.valueContainsNull), Shape(
            "map", element=shape
        ) if shape else None
    return new, None


def _splits(old: DataType | None, new: DataType) -> bool:
    """The table has a plain column where the latest schema has a union of several types."""
    return old is not None and is_union_struct(new) and not is_union_struct(old)


def _fit_struct(old: StructType, new: StructType, prefix: str) -> tuple[StructType, Shape | None]:
    old_by_name = {f.name.lower(): f for f in old.fields}
    taken = {f.name.lower() for f in new.fields}
    fields: list[StructField] = []
    picks: list[Pick] = []
    reshaped = False
    for field in new.fields:
        current = old_by_name.get(field.name.lower())
        if current is None or not _splits(current.dataType, field.dataType):
            data_type, shape = _fit(
                current.dataType if current else None, field.dataType, prefix + field.name
            )
            fields.append(StructField(field.name, data_type, field.nullable, field.metadata))
            picks.append(Pick(field.name, field.name, None, shape))
            reshaped = reshaped or shape is not None
            continue
        reshaped = True
        union = field.dataType
        assert isinstance(union, StructType)
        kept = _kept_member(current.dataType, union, prefix + field.name)
        for member in [kept, *[m for m in union.fields if m is not kept]]:
            name = field.name if member is kept else sibling_column(field.name, member.name)
            if member is not kept and name.lower() in taken:
                raise UnrepresentableChange(
                    prefix + field.name,
                    current.dataType,
                    union,
                    f"The union's {member.name.removeprefix(MEMBER_PREFIX)} values would go to a column "
                    f"{prefix}{name}, but the schema has a field of that name: rename that field, or load "
                    "the topic into a new table.",
                )
            taken.add(name.lower())
            existing = old_by_name.get(name.lower())
            data_type, shape = _fit(existing.dataType if existing else None, member.dataType, prefix + name)
            metadata = field.metadata if member is kept else {}
            fields.append(StructField(name, data_type, True, metadata))
            picks.append(Pick(name, field.name, member.name, shape))
    return StructType(fields), Shape("struct", tuple(picks)) if reshaped else None


def _kept_member(old: DataType, union: StructType, path: str) -> StructField:
    """The union member the existing column goes on holding: its own type, or one it widens to."""
    for member in union.fields:
        if member.dataType == old:
            return member
    for member in union.fields:
        if (type(old), type(member.dataType)) in READABLE_WIDENINGS or (
            type(old) is type(member.dataType) and isinstance(old, StructType | ArrayType | MapType)
        ):
            return member
    raise UnrepresentableChange(
        path,
        old,
        union,
        "No type of the new union can be read from the column's existing files. Load the topic into a "
        "new table (drop or rename the existing one and reset the topic's saved offsets), or add the "
        "new types under a new field name.",
    )


def reshape(rows: DataFrame, shape: Shape) -> DataFrame:
    """The decoded rows in the table's shape."""
    return rows.select(*[_picked(F.col(f"`{pick.source}`"), pick) for pick in shape.picks])


def reshaped_row(row: Column, shape: Shape) -> Column:
    """`reshape` of one row held as a struct whose fields are the decoded rows' columns."""
    return F.struct(*[_picked(row.getField(pick.source), pick) for pick in shape.picks])


def _picked(source: Column, pick: Pick) -> Column:
    value = source.getField(pick.member) if pick.member else source
    return _reshaped(value, pick.inner).alias(pick.name)


def _reshaped(value: Column, shape: Shape | None) -> Column:
    if shape is None:
        return value
    if shape.kind == "array":
        return F.transform(value, lambda element: _reshaped(element, shape.element))
    if shape.kind == "map":
        return F.transform_values(value, lambda _, item: _reshaped(item, shape.element))
    fields = [_picked(value.getField(pick.source), pick) for pick in shape.picks]
    return F.when(value.isNull(), F.lit(None)).otherwise(F.struct(*fields))
