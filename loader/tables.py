"""The Hive/Spark tables the loader owns: created on first sight, evolved with their schema, and given
their new partitions once the files are in place. Stored as ORC (see `loader.table_evolution` for why)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from loader.column_defaults import EXISTS_DEFAULT
from loader.table_alter import replace_data_columns, table_data_schema
from loader.table_evolution import ColumnChange, plan_evolution

Granularity = Literal["day", "hour"]
TABLE_FORMAT = "orc"


def partition_columns(granularity: Granularity) -> list[str]:
    return ["dt", "hour"] if granularity == "hour" else ["dt"]


def partition_values(timestamp: Column, granularity: Granularity) -> dict[str, Column]:
    """The time partition of a record, from its Kafka timestamp in UTC (the session's time zone)."""
    values = {"dt": F.date_format(timestamp, "yyyy-MM-dd")}
    if granularity == "hour":
        values["hour"] = F.date_format(timestamp, "HH")
    return values


@dataclass(frozen=True)
class TableState:
    action: Literal["created", "evolved", "unchanged"]
    location: str
    changes: list[ColumnChange] = field(default_factory=list)


def with_column_metadata(
    schema: StructType, comments: dict[str, str], defaults: dict[str, str]
) -> StructType:
    """Top-level columns with their Avro doc as comment and their Avro default as existence default."""
    fields = []
    for f in schema.fields:
        metadata: dict[str, str] = {}
        if f.name in comments:
            metadata["comment"] = comments[f.name]
        if f.name in defaults:
            metadata[EXISTS_DEFAULT] = defaults[f.name]
        fields.append(StructField(f.name, f.dataType, True, metadata))
    return StructType(fields)


def ensure_table(
    spark: SparkSession, qualified_name: str, data_schema: StructType, granularity: Granularity
) -> TableState:
    """Creates the table, or evolves its columns to hold `data_schema` (raises UnrepresentableChange).

    The database exists: each run claims it first (`loader.warehouse_layout`)."""
    if not spark.catalog.tableExists(qualified_name):
        partitions = [StructField(name, StringType(), True) for name in partition_columns(granularity)]
        empty = spark.createDataFrame([], StructType([*data_schema.fields, *partitions]))
        empty.write.format(TABLE_FORMAT).partitionBy(*partition_columns(granularity)).saveAsTable(
            qualified_name
        )
        return TableState("created", table_location(spark, qualified_name))
    plan = plan_evolution(table_data_schema(spark, qualified_name), data_schema)
    if plan.needs_alter:
        replace_data_columns(spark, qualified_name, plan.schema)
        return TableState("evolved", table_location(spark, qualified_name), plan.changes)
    return TableState("unchanged", table_location(spark, qualified_name))


def table_location(spark: SparkSession, qualified_name: str) -> str:
    database, _, table = qualified_name.partition(".")
    identifier = spark._jvm.org.apache.spark.sql.catalyst.TableIdentifier(
        table, spark._jvm.scala.Some(database)
    )
    metadata = spark._jsparkSession.sessionState().catalog().getTableMetadata(identifier)
    return str(metadata.location().toString())


def add_partitions(spark: SparkSession, qualified_name: str, partitions: list[dict[str, str]]) -> None:
    """Registers partitions in the metastore (those that exist already are left as they are)."""
    if not partitions:
        return
    specs = " ".join(
        "PARTITION (" + ", ".join(f"`{k}` = '{v}'" for k, v in spec.items()) + ")" for spec in partitions
    )
    spark.sql(f"ALTER TABLE {qualified_name} ADD IF NOT EXISTS {specs}")
    spark.catalog.refreshTable(qualified_name)
