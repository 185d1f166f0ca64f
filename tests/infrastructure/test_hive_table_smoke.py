"""Spark with Hive support creates a metastore table and reads it back."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

pytestmark = pytest.mark.integration


def test_hive_table_round_trip(spark: SparkSession, spark_warehouse: Path) -> None:
    spark.sql("CREATE DATABASE IF NOT EXISTS smoke")
    spark.sql(
        "CREATE TABLE smoke.events (id BIGINT COMMENT 'event id', name STRING) "
        "PARTITIONED BY (dt STRING) STORED AS PARQUET"
    )
    rows = [(1, "a", "2026-01-01"), (2, "b", "2026-01-02")]
    spark.createDataFrame(rows, "id long, name string, dt string").write.insertInto("smoke.events")

    rows = spark.sql("SELECT id, name, dt FROM smoke.events ORDER BY id").collect()
    assert [tuple(r) for r in rows] == [(1, "a", "2026-01-01"), (2, "b", "2026-01-02")]
    # It is a Hive table in the metastore, with its files under the session's warehouse.
    table = spark.catalog.getTable("smoke.events")
    assert table.tableType == "MANAGED"
    assert spark.sql("DESCRIBE TABLE smoke.events").filter("col_name = 'id'").first()["comment"] == "event id"
    assert sorted(p.name for p in (spark_warehouse / "smoke.db" / "events").iterdir() if p.is_dir()) == [
        "dt=2026-01-01",
        "dt=2026-01-02",
    ]
