"""Applies an evolution plan to a Hive table through the metastore.

Spark SQL's `ALTER TABLE ... CHANGE COLUMN` cannot widen a column or add a field inside a struct of a Hive
table, and `ADD COLUMNS` only appends top-level columns. The external catalog's
`alterTableDataSchema` (`loader.runtime.spark_internals`) replaces the table's data columns in one
metastore call (keeping partition columns), which is what an evolution needs; the metastore must allow
column type changes (`hive.metastore.disallow.incompatible.col.type.changes=false`, set by
`loader.runtime.spark_session`).
"""

from __future__ import annotations

import json

from pyspark.sql import SparkSession
from pyspark.sql.types import StructType

from loader.runtime import spark_internals as internals


def table_data_schema(spark: SparkSession, qualified_name: str) -> StructType:
    """The table's data columns as the metastore has them (partition columns left out)."""
    database, _, table = qualified_name.rpartition(".")
    return StructType.fromJson(json.loads(internals.table_data_schema_json(spark, database, table)))


def replace_data_columns(spark: SparkSession, qualified_name: str, data_schema: StructType) -> None:
    """Sets the table's data columns to `data_schema` (which must keep every existing column)."""
    database, _, table = qualified_name.rpartition(".")
    internals.alter_data_schema(spark, database, table, data_schema)
    spark.catalog.refreshTable(qualified_name)
