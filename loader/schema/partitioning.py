"""The time partition of a row: from its Kafka timestamp, by day or by hour (the granularity setting),
the same for every table format: Hive tables have `dt` (and `hour`) partition columns, Iceberg tables
partition by `days`/`hours` of `_kafka_timestamp`."""

from __future__ import annotations

from typing import Literal

from pyspark.sql import Column
from pyspark.sql import functions as F

Granularity = Literal["day", "hour"]


def partition_columns(granularity: Granularity) -> list[str]:
    return ["dt", "hour"] if granularity == "hour" else ["dt"]


def partition_values(timestamp: Column, granularity: Granularity) -> dict[str, Column]:
    """The time partition of a record, from its Kafka timestamp in UTC (the session's time zone)."""
    values = {"dt": F.date_format(timestamp, "yyyy-MM-dd")}
    if granularity == "hour":
        values["hour"] = F.date_format(timestamp, "HH")
    return values
