"""Writing the ORC files of several tables in one Spark job: the rows of a query over several small
topics (see `loader.topic_group_pass`), each into its own table's staging directory.

A small topic's cost is its query and its write job, not its records (docs/loader.md, "What a busy topic
costs"); Spark's writers write one schema per job, so the loader brings its own (`jvm/`, compiled by
`scripts/fetch-jars` and put on the classpath with the connectors): a function over the query's
partitions that hands each row's struct to Spark's own ORC `OutputWriter`, the one `df.write.orc` uses,
and returns the files it wrote. Only files that a successful task returned are staged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from loader.formats import GROUP_MEMBER, GROUP_TIMESTAMP, group_rows_column
from loader.schema.partitioning import Granularity, partition_columns, partition_values
from loader.spark_session import loader_class

WRITER_CLASS = "ManyTablesOrcWriter"


@dataclass(frozen=True)
class WrittenFile:
    member: int
    path: str
    rows: int


def writer_available(spark: SparkSession) -> bool:
    """Whether the loader's writer is on the driver's classpath (its jar comes with the connectors)."""
    return loader_class(spark, WRITER_CLASS) is not None


def write_tables(
    spark: SparkSession, rows: DataFrame, directories: list[str], granularity: Granularity
) -> list[WrittenFile]:
    """Writes member `i`'s rows (`group_rows_column(i)`) into `directories[i]`, partitioned by time like
    the tables, in one Spark job; every file written, with its rows."""
    partitions = partition_columns(granularity)
    values = partition_values(F.col(GROUP_TIMESTAMP), granularity)
    members = [group_rows_column(i) for i in range(len(directories))]
    laid_out = rows.select(
        F.col(GROUP_MEMBER).cast("int"), *[values[p].alias(p) for p in partitions], *members
    )
    writer = loader_class(spark, WRITER_CLASS)
    assert writer is not None, "the group writer runs only where writer_available says it is there"
    # One SQL execution of the query, so that its observations (what was read) complete with it.
    written = writer.write(
        spark._jsparkSession,
        laid_out._jdf,
        _strings(spark, [laid_out.schema[m].dataType.json() for m in members]),
        _strings(spark, directories),
        _strings(spark, partitions),
    )
    return [WrittenFile(int(f["member"]), str(f["path"]), int(f["rows"])) for f in json.loads(written)]


def _strings(spark: SparkSession, values: list[str]):  # type: ignore[no-untyped-def]
    gateway = spark.sparkContext._gateway
    assert gateway is not None
    array = gateway.new_array(spark._jvm.String, len(values))
    for i, value in enumerate(values):
        array[i] = value
    return array
