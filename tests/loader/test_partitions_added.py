"""A Hive table's new partitions, by the external catalog's request and by SQL alike (the way a Spark line
takes when its partition class does not take the loader's arguments): where they point, and existing ones
left as they are."""

from __future__ import annotations

import uuid

import pytest
from pyspark.sql import SparkSession

from loader.formats.metastore import add_partitions, add_partitions_by_sql, partition_location
from loader.runtime import spark_internals as internals

pytestmark = pytest.mark.integration


def test_partitions_are_added_at_the_table_s_location_by_either_way_and_once(spark: SparkSession) -> None:
    database = f"parts_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE DATABASE {database}")
    spark.sql(f"CREATE TABLE {database}.t (a STRING) PARTITIONED BY (dt STRING, hour STRING) STORED AS ORC")
    location = internals.table_location(spark, database, "t").rstrip("/")
    first = {"dt": "2026-11-28", "hour": "05"}
    second = {"dt": "2026-11-28", "hour": "06"}

    add_partitions(spark, f"{database}.t", [first])
    add_partitions_by_sql(spark, database, "t", [(second, f"{location}/dt=2026-11-28/hour=06")])
    add_partitions(spark, f"{database}.t", [first, second])  # both exist: left as they are

    assert partition_location(spark, f"{database}.t", first) == f"{location}/dt=2026-11-28/hour=05"
    assert partition_location(spark, f"{database}.t", second) == f"{location}/dt=2026-11-28/hour=06"
    shown = sorted(row[0] for row in spark.sql(f"SHOW PARTITIONS {database}.t").collect())
    assert shown == ["dt=2026-11-28/hour=05", "dt=2026-11-28/hour=06"]
    assert internals.create_partitions(spark, database, "t", []) is True
