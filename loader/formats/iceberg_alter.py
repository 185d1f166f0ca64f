"""Applies renames (`loader.schema.alias_renames`) and schema updates (`loader.formats.iceberg_schema`) to an
Iceberg table through Iceberg's Java API over py4j, each group as one Iceberg commit: Spark SQL's DDL
cannot give an added column its `initial-default` (apache/iceberg#16698)."""

from __future__ import annotations

from pyspark.sql import SparkSession
from pyspark.sql.types import DataType

from loader.formats.iceberg_schema import AddColumn, WidenColumn, iceberg_name
from loader.runtime import spark_internals as internals
from loader.runtime.java_values import java_class
from loader.schema.alias_renames import Rename
from loader.schema.column_defaults import Default

_WIDENED = {"bigint": "LongType", "double": "DoubleType"}


def rename_columns(iceberg_table, renames: list[Rename]) -> None:  # type: ignore[no-untyped-def]
    """One commit renaming the columns: each keeps its field id, so the data already written keeps its
    values under the new name."""
    update = iceberg_table.updateSchema()
    for rename in renames:
        update = update.renameColumn(iceberg_name(rename.path), rename.new_name)
    update.commit()


def update_columns(spark: SparkSession, iceberg_table, updates: list[AddColumn | WidenColumn]) -> None:  # type: ignore[no-untyped-def]
    """One commit adding and widening the columns."""
    types = java_class(spark, "org.apache.iceberg.types.Types")
    update = iceberg_table.updateSchema()
    for change in updates:
        if isinstance(change, WidenColumn):
            update = update.updateColumn(change.name, getattr(types, _WIDENED[change.data_type]).get())
            continue
        added = _iceberg_type(spark, change.data_type)
        default = _literal(spark, change.default, added) if change.default else None
        update = update.addColumn(change.parent, change.name, added, change.doc, default)
    update.commit()


def _iceberg_type(spark: SparkSession, data_type: DataType):  # type: ignore[no-untyped-def]
    java_type = internals.parse_data_type(spark, data_type)
    return java_class(spark, "org.apache.iceberg.spark.SparkSchemaUtil").convert(java_type)


def _literal(spark: SparkSession, default: Default, iceberg_type):  # type: ignore[no-untyped-def]
    """The default as an Iceberg literal of the column's type."""
    # py4j passes an int as Integer or Long, a float as Double: Iceberg converts it to the column's type.
    converted = java_class(spark, "org.apache.iceberg.expressions.Literal").of(default.value).to(iceberg_type)
    if converted is None:
        raise ValueError(f"the default {default.value!r} is no value of the column's type {iceberg_type}")
    return converted
