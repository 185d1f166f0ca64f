"""Which columns a schema change renames: an Avro field renamed with an alias, where the alias makes it
unambiguous.

Avro resolves a field of the new name from records written under any of its `aliases`, so the decoded rows
hold it under the new name. A table format that keeps columns by id (Iceberg) can then rename the old
column instead of adding a new one beside it, and rows loaded before keep their values under the new name.
That is only right when the alias says which column: a field of the latest schema that the table lacks is
a rename of column `c` when exactly one of its aliases names a column of the table that the latest schema
no longer has, `c`, and no other new field claims `c` too. Anything else (no alias, an alias of a column
still in the schema, two candidates, two claimants) stays what it is under Hive: a new column, the old one
kept with its history. Renames are found at every level the table's columns and the schema share (inside
records, arrays of records and maps of records). Decided on types and the schema's JSON alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql.types import ArrayType, DataType, MapType, StructField, StructType

from loader.schema.avro_fields import record_fields


@dataclass(frozen=True)
class Rename:
    """The column at `path` (by the table's current names, in `loader.schema.table_evolution`'s notation)
    is renamed."""

    path: str
    new_name: str


def field_aliases(latest_schema: str) -> dict[str, tuple[str, ...]]:
    """The path of every field that has aliases (by the latest schema's names) -> its aliases."""
    return {
        path: tuple(str(alias) for alias in field["aliases"])
        for path, field in record_fields(latest_schema)
        if field.get("aliases")
    }


def implied_renames(
    table: StructType, latest: StructType, aliases: dict[str, tuple[str, ...]]
) -> list[Rename]:
    """The renames that make the table's columns (`table`) follow the latest schema's fields (`latest`)."""
    found: list[Rename] = []
    _struct(table, latest, "", "", aliases, found)
    return found


def _struct(
    table: StructType,
    latest: StructType,
    table_prefix: str,
    latest_prefix: str,
    aliases: dict[str, tuple[str, ...]],
    found: list[Rename],
) -> None:
    columns = {f.name.lower(): f for f in table.fields}
    kept = {f.name.lower() for f in latest.fields}
    gone = set(columns) - kept
    claims: dict[str, list[StructField]] = {}
    for field in latest.fields:
        if field.name.lower() in columns:
            continue
        named = {a.lower() for a in aliases.get(latest_prefix + field.name, ())} & gone
        if len(named) == 1:
            claims.setdefault(named.pop(), []).append(field)
    pairs = [(columns[f.name.lower()], f) for f in latest.fields if f.name.lower() in columns]
    for column, claimants in claims.items():
        if len(claimants) == 1:
            old = columns[column]
            found.append(Rename(table_prefix + old.name, claimants[0].name))
            pairs.append((old, claimants[0]))
    for old, new in pairs:
        _type(old.dataType, new.dataType, table_prefix + old.name, latest_prefix + new.name, aliases, found)


def _type(
    old: DataType,
    new: DataType,
    table_path: str,
    latest_path: str,
    aliases: dict[str, tuple[str, ...]],
    found: list[Rename],
) -> None:
    if isinstance(old, StructType) and isinstance(new, StructType):
        _struct(old, new, f"{table_path}.", f"{latest_path}.", aliases, found)
    elif isinstance(old, ArrayType) and isinstance(new, ArrayType):
        _type(old.elementType, new.elementType, f"{table_path}[]", f"{latest_path}[]", aliases, found)
    elif isinstance(old, MapType) and isinstance(new, MapType):
        _type(old.valueType, new.valueType, f"{table_path}{{}}", f"{latest_path}{{}}", aliases, found)


def renamed(table: StructType, renames: list[Rename]) -> StructType:
    """The table's columns once the renames are made (to plan the rest of the evolution on)."""
    new_names = {r.path: r.new_name for r in renames}
    result = _renamed(table, "", new_names)
    assert isinstance(result, StructType)
    return result


def _renamed(data_type: DataType, prefix: str, new_names: dict[str, str]) -> DataType:
    if isinstance(data_type, StructType):
        return StructType(
            [
                StructField(
                    new_names.get(prefix + f.name, f.name),
                    _renamed(f.dataType, f"{prefix}{f.name}.", new_names),
                    f.nullable,
                    f.metadata,
                )
                for f in data_type.fields
            ]
        )
    if isinstance(data_type, ArrayType):
        element = _renamed(data_type.elementType, prefix.removesuffix(".") + "[].", new_names)
        return ArrayType(element, data_type.containsNull)
    if isinstance(data_type, MapType):
        value = _renamed(data_type.valueType, prefix.removesuffix(".") + "{}.", new_names)
        return MapType(data_type.keyType, value, data_type.valueContainsNull)
    return data_type
