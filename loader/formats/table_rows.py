"""A run's rows in the shape of the table they are written to, for formats whose writes are resolved by
column name against the whole table (Iceberg's, through Spark's DataFrameWriterV2).

A table keeps the columns of fields removed from the schema (history), at the top level and inside
structs, but the decoded rows of the latest schema lack them; an ORC file simply has no such column, while
a V2 write refuses rows that do not name every column of the table. So every column the rows lack, at any
level, is written as NULL, and the columns are put in the table's order.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, DataType, MapType, StructType


def conformed(rows: DataFrame, table: StructType) -> DataFrame:
    """The rows with every column of `table`, NULL where they have none, in the table's order."""
    if rows.schema == table:
        return rows
    present = {f.name.lower(): f for f in rows.schema.fields}
    columns = []
    for column in table.fields:
        source = present.get(column.name.lower())
        if source is None:
            columns.append(F.lit(None).cast(column.dataType).alias(column.name))
        else:
            value = F.col(f"`{source.name}`")
            columns.append(conformed_value(value, source.dataType, column.dataType).alias(column.name))
    return rows.select(*columns)


def conformed_value(value: Column, source: DataType, target: DataType, cast: bool = False) -> Column:
    """The value with every field `target` has, in its order. A widened type is left to the write, which
    casts it, unless `cast` (for a writer that is handed the rows as they are, `loader.formats.
    iceberg_groups`)."""
    if source == target:
        return value
    if isinstance(source, StructType) and isinstance(target, StructType):
        present = {f.name.lower(): f for f in source.fields}
        fields = []
        for field in target.fields:
            found = present.get(field.name.lower())
            if found is None:
                fields.append(F.lit(None).cast(field.dataType).alias(field.name))
            else:
                inner = conformed_value(value.getField(found.name), found.dataType, field.dataType, cast)
                fields.append(inner.alias(field.name))
        return F.when(value.isNull(), F.lit(None)).otherwise(F.struct(*fields))
    if isinstance(source, ArrayType) and isinstance(target, ArrayType):
        return F.transform(value, lambda e: conformed_value(e, source.elementType, target.elementType, cast))
    if isinstance(source, MapType) and isinstance(target, MapType):
        return F.transform_values(
            value, lambda _, v: conformed_value(v, source.valueType, target.valueType, cast)
        )
    if cast and not isinstance(target, StructType | ArrayType | MapType):
        return value.cast(target)
    return value
