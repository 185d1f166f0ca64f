"""An evolution plan (`loader.schema.table_evolution`) as Iceberg DDL: columns are added by field id (nested
fields inside their struct, array element or map value), and widened where Iceberg can (int -> long,
float -> double); other widenings that ORC reads are refused, since Iceberg would reject them."""

from __future__ import annotations

from pyspark.sql.types import BinaryType, DataType, DoubleType, FloatType, IntegerType, LongType, StringType

from loader.schema.table_evolution import ColumnChange, UnrepresentableChange

ICEBERG_WIDENINGS = {("int", "bigint"), ("float", "double")}
# The types of the widenings the plan allows (`loader.schema.table_evolution.READABLE_WIDENINGS`), by name.
_TYPES: dict[str, DataType] = {
    t.simpleString(): t
    for t in (IntegerType(), LongType(), FloatType(), DoubleType(), StringType(), BinaryType())
}


def iceberg_path(path: str) -> str:
    """`a.b[].c{}.d` (the plan's notation) -> `` `a`.`b`.element.`c`.value.`d` `` (Iceberg's)."""
    parts = []
    for name in path.split("."):
        suffixes = []
        while name.endswith("[]") or name.endswith("{}"):
            suffixes.insert(0, "element" if name.endswith("[]") else "value")
            name = name[:-2]
        parts.append(f"`{name.replace('`', '``')}`")
        parts.extend(suffixes)
    return ".".join(parts)


def evolution_statements(qualified: str, changes: list[ColumnChange]) -> list[str]:
    statements = []
    for change in changes:
        if change.kind == "added":
            statements.append(
                f"ALTER TABLE {qualified} ADD COLUMN {iceberg_path(change.path)} {change.new_type}"
            )
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
            statements.append(
                f"ALTER TABLE {qualified} ALTER COLUMN {iceberg_path(change.path)} TYPE {change.new_type}"
            )
    return statements
