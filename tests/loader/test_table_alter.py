"""Evolution through the metastore: data written before and after each change reads back correctly."""

from __future__ import annotations

import uuid

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.types import (
    ArrayType,
    DataType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from loader.formats.hive.table_alter import replace_data_columns, table_data_schema
from loader.schema.table_evolution import plan_evolution

pytestmark = pytest.mark.integration


def cols(*fields: tuple[str, DataType]) -> StructType:
    return StructType([StructField(name, data_type, True) for name, data_type in fields])


def orc_table(spark: SparkSession, schema: StructType) -> str:
    """An empty ORC table partitioned by `dt`, created the way Spark creates metastore tables."""
    spark.sql("CREATE DATABASE IF NOT EXISTS evolution")
    name = f"evolution.t_{uuid.uuid4().hex[:8]}"
    empty = spark.createDataFrame([], StructType([*schema.fields, StructField("dt", StringType())]))
    empty.write.partitionBy("dt").format("orc").saveAsTable(name)
    return name


def write(spark: SparkSession, name: str, rows: list[tuple], schema: StructType, dt: str) -> None:
    frame = spark.createDataFrame(rows, schema)
    frame = frame.selectExpr(*[f"`{f.name}`" for f in schema.fields], f"'{dt}' AS dt")
    frame.write.mode("append").partitionBy("dt").format("orc").saveAsTable(name)


def evolve(spark: SparkSession, name: str, latest: StructType) -> None:
    plan = plan_evolution(table_data_schema(spark, name), latest)
    replace_data_columns(spark, name, plan.schema)


def test_metastore_keeps_partition_columns_apart(spark: SparkSession) -> None:
    name = orc_table(spark, cols(("id", LongType())))
    assert table_data_schema(spark, name) == cols(("id", LongType()))


def test_widening_and_nested_additions_read_old_and_new_rows(spark: SparkSession) -> None:
    v1 = cols(
        ("id", IntegerType()),
        ("score", LongType()),
        ("info", cols(("a", IntegerType()))),
        ("items", ArrayType(cols(("sku", StringType())))),
    )
    v2 = cols(
        ("id", LongType()),
        ("score", DoubleType()),
        ("info", cols(("a", LongType()), ("b", StringType()))),
        ("items", ArrayType(cols(("sku", StringType()), ("price", FloatType())))),
        ("extra", StringType()),
    )
    name = orc_table(spark, v1)
    write(spark, name, [(1, 10, (5,), [("x",)])], v1, "2026-01-01")

    evolve(spark, name, v2)
    write(spark, name, [(2, 2.5, (6, "b"), [("y", 1.5)], "e")], v2, "2026-01-02")

    assert table_data_schema(spark, name) == v2
    rows = [row.asDict(recursive=True) for row in spark.table(name).orderBy("id").collect()]
    assert rows == [
        {
            "id": 1,
            "score": 10.0,
            "info": {"a": 5, "b": None},
            "items": [{"sku": "x", "price": None}],
            "extra": None,
            "dt": "2026-01-01",
        },
        {
            "id": 2,
            "score": 2.5,
            "info": {"a": 6, "b": "b"},
            "items": [{"sku": "y", "price": 1.5}],
            "extra": "e",
            "dt": "2026-01-02",
        },
    ]


def test_removed_field_keeps_history(spark: SparkSession) -> None:
    v1 = cols(("id", LongType()), ("legacy", StringType()))
    v2 = cols(("id", LongType()))
    name = orc_table(spark, v1)
    write(spark, name, [(1, "old")], v1, "2026-01-01")
    evolve(spark, name, v2)
    write(spark, name, [(2, None)], cols(("id", LongType()), ("legacy", StringType())), "2026-01-02")
    rows = sorted(tuple(r) for r in spark.table(name).collect())
    assert rows == [(1, "old", "2026-01-01"), (2, None, "2026-01-02")]
