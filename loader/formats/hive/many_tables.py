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

# ORC's own buffer size (`orc.compress.size`), which its writer lowers further for a wide schema.
ORC_BUFFER_BYTES = 256 * 1024
# The bytes of a record a file's buffers are sized for, per column stream, and the least of them.
BUFFER_BYTES_PER_RECORD = 32
SMALLEST_BUFFER_BYTES = 16 * 1024


@dataclass(frozen=True)
class WrittenFile:
    member: int
    path: str
    rows: int


def writer_available(spark: SparkSession) -> bool:
    """Whether the loader's writer is on the driver's classpath (its jar comes with the connectors)."""
    return loader_class(spark, WRITER_CLASS) is not None


def orc_buffer_size(records: int) -> int:
    """The buffer size of the ORC writer of a file of at most `records` rows; 0 for ORC's own.

    ORC sizes a writer's buffers (two per column stream, zeroed when allocated) for a 64 MB stripe: over
    100 KB each for the loader's tables, megabytes per file for a small topic's few hundred rows. A
    buffer is also ORC's compression chunk, and a stream longer than one is compressed chunk by chunk
    (files of 20,000 rows came out twice as big with 16 KB). So the size holds a column stream of
    `records` values of up to 32 bytes in one chunk, as ORC's own would: a power of two, at least 16 KB,
    and ORC's own from 256 KB (benchmarks/README.md, "ORC buffers the size of a small topic's file")."""
    wanted = max(SMALLEST_BUFFER_BYTES, BUFFER_BYTES_PER_RECORD * records)
    size = 1 << (wanted - 1).bit_length()
    return size if size < ORC_BUFFER_BYTES else 0


def write_tables(
    spark: SparkSession,
    rows: DataFrame,
    directories: list[str],
    granularity: Granularity,
    records: list[int] | None = None,
) -> list[WrittenFile]:
    """Writes member `i`'s rows (`group_rows_column(i)`) into `directories[i]`, partitioned by time like
    the tables, in one Spark job; every file written, with its rows. `records[i]`, when given, is the
    most rows member `i` can have (its ORC buffers are sized for that, see `orc_buffer_size`)."""
    partitions = partition_columns(granularity)
    values = partition_values(F.col(GROUP_TIMESTAMP), granularity)
    members = [group_rows_column(i) for i in range(len(directories))]
    laid_out = rows.select(
        F.col(GROUP_MEMBER).cast("int"), *[values[p].alias(p) for p in partitions], *members
    )
    buffer_sizes = [orc_buffer_size(n) for n in records] if records is not None else [0] * len(members)
    writer = loader_class(spark, WRITER_CLASS)
    assert writer is not None, "the group writer runs only where writer_available says it is there"
    # One SQL execution of the query, so that its observations (what was read) complete with it.
    written = writer.write(
        spark._jsparkSession,
        laid_out._jdf,
        _strings(spark, [laid_out.schema[m].dataType.json() for m in members]),
        _strings(spark, directories),
        _strings(spark, partitions),
        _ints(spark, buffer_sizes),
    )
    return [WrittenFile(int(f["member"]), str(f["path"]), int(f["rows"])) for f in json.loads(written)]


def _strings(spark: SparkSession, values: list[str]):  # type: ignore[no-untyped-def]
    return _java_array(spark, spark._jvm.String, values)


def _ints(spark: SparkSession, values: list[int]):  # type: ignore[no-untyped-def]
    return _java_array(spark, spark._jvm.int, values)


def _java_array(spark: SparkSession, element_type, values: list):  # type: ignore[no-untyped-def]
    gateway = spark.sparkContext._gateway
    assert gateway is not None
    array = gateway.new_array(element_type, len(values))
    for i, value in enumerate(values):
        array[i] = value
    return array
