"""Applies an evolution plan to a Hive table through the metastore.

Spark SQL's `ALTER TABLE ... CHANGE COLUMN` cannot widen a column or add a field inside a struct of a Hive
table, and `ADD COLUMNS` only appends top-level columns. The session catalog's `alterTableDataSchema`
replaces the table's data columns in one metastore call (keeping partition columns), which is what an
evolution needs; the metastore must allow column type changes
(`hive.metastore.disallow.incompatible.col.type.changes=false`, set by `loader.spark_session`).
"""

from __future__ import annotations

import json

from pyspark.sql import SparkSession
from pyspark.sql.types import StructType


def table_data_schema(spark: SparkSession, qualified_name: str) -> StructType:
    """The table's data columns as the metastore has them (partition columns left out)."""
    table = spark._jsparkSession.sessionState().catalog().getTableMetadata(_identifier(spark, qualified_name))
    return StructType.fromJson(json.loads(table.dataSchema().json()))


def replace_data_columns(spark: SparkSession, qualified_name: str, data_schema: StructType) -> None:
    """Sets the table's data columns to `data_schema` (which must keep every existing column)."""
    catalog = spark._jsparkSession.sessionState().catalog()
    catalog.alterTableDataSchema(_identifier(spark, qualified_name), _to_java(spark, data_schema))
    spark.catalog.refreshTable(qualified_name)


def _identifier(spark: SparkSession, qualified_name: str):  # type: ignore[no-untyped-def]
    database, _, table = qualified_name.rpartition(".")
    scala_db = spark._jvm.scala.Some(database) if database else spark._jvm.scala.Option.empty()
    return spark._jvm.org.apache.spark.sql.catalyst.TableIdentifier(table, scala_db)


def _to_java(spark: SparkSession, schema: StructType):  # type: ignore[no-untyped-def]
    return spark._jsparkSession.parseDataType(schema.json())
