"""Writing the ORC files of several tables in one Spark job: the rows of a query over several small
topics (see `loader.run.topic_group_pass`), each into its own table's staging directory.

A small topic's cost is its query and its write job, not its records (docs/loader.md, "What a busy topic
costs"); Spark's writers write one schema per job, so the loader brings its own (`jvm/`, compiled by
`scripts/fetch-jars` and put on the classpath with the connectors): a function over the query's
partitions that hands each row's struct to Spark's own ORC `OutputWriter`, the one `df.write.orc` uses,
and returns the files it wrote. Only files that a successful task returned are staged.

A topic's own pass writes its rows with the same writer, as a group of one (see
`loader.run.topic_pass.rows_for_writer`), and so do the quarantine's rows (`write_table`): Spark's writer
sorts every row of a task by the time partition before it writes a partitioned table, and Kafka's order is
mostly time's already (benchmarks/JOURNAL.md, "A busy topic's rows written without a sort").
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from loader.formats import GROUP_MEMBER, GROUP_TIMESTAMP, group_rows_column
from loader.runtime.java_values import java_ints, java_strings
from loader.runtime.spark_session import loader_class
from loader.schema.partitioning import Granularity, partition_columns, partition_values

WRITER_CLASS = "ManyTablesOrcWriter"
# The Spark setting that, "false", has the loader's writer hand rows to Spark's ORC writer instead of
# writing them straight into ORC's vectors (read by the JVM writer, `ManyTablesOrcWriter.VECTOR_WRITER`).
VECTOR_WRITER_SETTING = "spark.tableloader.orc.vectorWriter"

# ORC's own buffer size (`orc.compress.size`), which its writer lowers further for a wide schema.
ORC_BUFFER_BYTES = 256 * 1024
# The bytes of a record a file's buffers are sized for, per column stream, and the least of them.
BUFFER_BYTES_PER_RECORD = 32
SMALLEST_BUFFER_BYTES = 16 * 1024


# The most files a task keeps open: rows come in Kafka's order, mostly in time, and a task reads its topic
# partitions one after the other, so it writes to one or two time partitions of one table at a time; a
# backlog spanning days has each hour's file closed once the hours move on (each open ORC writer holds a
# stripe's column buffers). A group's small topics too: 32 of them with 20,000 records over 144 hours,
# every hour's file left open to the task's end, ran a 1 GiB driver out of memory.
MAX_OPEN_FILES_PER_TASK = 8


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
    and ORC's own from 256 KB (benchmarks/JOURNAL.md, "ORC buffers the size of a small topic's file")."""
    wanted = max(SMALLEST_BUFFER_BYTES, BUFFER_BYTES_PER_RECORD * records)
    size = 1 << (wanted - 1).bit_length()
    return size if size < ORC_BUFFER_BYTES else 0


def write_tables(
    spark: SparkSession,
    rows: DataFrame,
    directories: list[str],
    granularity: Granularity,
    records: list[int] | None = None,
    max_open_files: int | None = None,
) -> list[WrittenFile]:
    """Writes member `i`'s rows (`group_rows_column(i)`) into `directories[i]`, partitioned by time like
    the tables, in one Spark job; every file written, with its rows. `records[i]`, when given, is the
    most rows member `i` can have (its ORC buffers are sized for that, see `orc_buffer_size`);
    `max_open_files` the most files a task keeps open at once (more files, less memory; by default
    `MAX_OPEN_FILES_PER_TASK`), 0 for no limit."""
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
        java_strings(spark, [laid_out.schema[m].dataType.json() for m in members]),
        java_strings(spark, directories),
        java_strings(spark, partitions),
        java_ints(spark, buffer_sizes),
        MAX_OPEN_FILES_PER_TASK if max_open_files is None else max_open_files,
    )
    return [WrittenFile(int(f["member"]), str(f["path"]), int(f["rows"])) for f in json.loads(written)]


def write_table(
    spark: SparkSession, rows: DataFrame, directory: str, granularity: Granularity, timestamp_column: str
) -> list[str]:
    """Writes `rows` (a table's columns) into `directory`, partitioned by `timestamp_column`'s time as
    `df.write.partitionBy` would, without sorting them first; the files written."""
    laid_out = rows.select(
        F.lit(0).alias(GROUP_MEMBER),
        F.col(timestamp_column).alias(GROUP_TIMESTAMP),
        F.struct(F.col("*")).alias(group_rows_column(0)),
    )
    written = write_tables(spark, laid_out, [directory], granularity)
    return sorted(f.path for f in written)
