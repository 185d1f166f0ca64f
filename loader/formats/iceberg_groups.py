"""Several Iceberg tables' appends written by one Spark job: the rows of a query over several small topics
(see `loader.run.topic_group_pass`), each member's rows through its own table's writer, then each table's
commit on its own, one snapshot per table naming its offsets, as a topic's own append would.

A small topic's cost is its query and its write job, not its records (docs/loader.md, "What a busy topic
costs"). Spark's writers write one table per job, so the loader brings its own (`jvm/`,
`ManyTablesV2Writer`): a function over the query's partitions that hands each row's struct to a writer of
its table's Spark write (Spark's connector API, through which Iceberg's own appends go), and a commit per
table that the run calls once it has counted what each wrote. A member whose rows are thrown away instead
(records that did not load: its own pass quarantines them) leaves its table as it was.

A task writes one table at a time, and Iceberg's writer takes a table's rows clustered by partition; so the
query sorts each task's rows by member and time, which clusters them by the loader's time partitions (an
hour or a day of the timestamp column). A table someone partitioned otherwise gets Iceberg's fanout writer,
which keeps a file open per partition instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from loader.formats import GROUP_MEMBER, GROUP_TIMESTAMP, group_rows_column
from loader.formats.table_rows import conformed_value
from loader.outcome.fault_injection import crash_point
from loader.runtime.java_values import java_array, java_class, java_string_map, java_strings
from loader.runtime.spark_session import loader_class

WRITER_CLASS = "ManyTablesV2Writer"
# Partition transforms of the timestamp column that rows sorted by time reach in order.
TIME_TRANSFORMS = frozenset({"hour", "day", "month", "year"})


def writer_available(spark: SparkSession) -> bool:
    """Whether the loader's writer is on the driver's classpath (its jar comes with the connectors)."""
    return loader_class(spark, WRITER_CLASS) is not None


@dataclass(frozen=True)
class MemberTable:
    """A member's table as its write needs it: its name (qualified), its columns as Spark sees them, the
    options of its write (the snapshot's summary properties among them), and whom to tell once its
    snapshot is committed."""

    name: str
    columns: StructType
    options: dict[str, str]
    kept: Callable[[], None] = lambda: None


def clustered_by_time(spark: SparkSession, iceberg_table: Any, timestamp_column: str) -> bool:
    """Whether every partition field of the table is a time transform of `timestamp_column`, so that rows
    sorted by that column come clustered by partition."""
    # As JSON in one call: iterating a Java list from Python ends in an exception (its index past the end),
    # which PySpark converts at the cost of a dozen calls.
    specs = java_class(spark, "org.apache.iceberg.PartitionSpecParser")
    fields = json.loads(str(specs.toJson(iceberg_table.spec())))["fields"]
    schema = iceberg_table.schema()
    return all(
        f["transform"] in TIME_TRANSFORMS and str(schema.findColumnName(f["source-id"])) == timestamp_column
        for f in fields
    )


def snapshot_options(properties: dict[str, str], clustered: bool) -> dict[str, str]:
    """The write options of a member's append: its snapshot's summary properties, and Iceberg's fanout
    writer where rows sorted by time are not clustered by the table's partitions."""
    options = {f"snapshot-property.{key}": value for key, value in properties.items()}
    if not clustered:
        options["fanout-enabled"] = "true"
    return options


@dataclass
class WrittenMember:
    """One member's files of the group's job, committed to its table as one snapshot, or aborted."""

    writes: Any  # tableloader.ManyTablesV2Writer.Writes
    member: int
    rows: int
    kept: Callable[[], None] = lambda: None  # told once the snapshot is committed

    def keep(self) -> None:
        self.writes.commit(self.member)
        self.kept()
        crash_point("after_iceberg_commit")

    def discard(self) -> None:
        self.writes.abort(self.member)


def write_members(spark: SparkSession, rows: DataFrame, tables: list[MemberTable]) -> list[WrittenMember]:
    """Writes member `i`'s rows (`group_rows_column(i)`, NULL where the row is another's) into
    `tables[i]` in one Spark job; each member's write, still to be kept or discarded."""
    members = [group_rows_column(i) for i in range(len(tables))]
    sources = {m: rows.schema[m].dataType for m in members}
    laid_out = rows.sortWithinPartitions(GROUP_MEMBER, GROUP_TIMESTAMP).select(
        F.col(GROUP_MEMBER).cast("int"),
        *[
            conformed_value(F.col(m), sources[m], table.columns, cast=True).alias(m)
            for m, table in zip(members, tables, strict=True)
        ],
    )
    jvm = spark._jvm
    spark_tables = java_array(
        spark,
        jvm.org.apache.spark.sql.connector.catalog.Table,
        [_spark_table(spark, t.name) for t in tables],
    )
    writer = loader_class(spark, WRITER_CLASS)
    assert writer is not None, "the group writer runs only where writer_available says it is there"
    writes = writer.write(
        spark._jsparkSession,
        laid_out._jdf,
        spark_tables,
        java_strings(spark, [laid_out.schema[m].dataType.json() for m in members]),
        [java_string_map(spark, t.options) for t in tables],
    )
    return [WrittenMember(writes, i, int(writes.rows(i)), table.kept) for i, table in enumerate(tables)]


def _spark_table(spark: SparkSession, name: str) -> Any:
    """The table as Spark's catalog gives it (Iceberg's `SparkTable`), for its write builder."""
    spark3 = java_class(spark, "org.apache.iceberg.spark.Spark3Util")
    found = spark3.catalogAndIdentifier(spark._jsparkSession, name)
    return found.catalog().loadTable(found.identifier())
