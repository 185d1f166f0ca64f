"""The metastore and file-system side of compacting a Hive ORC table's partition: listing the loader's
tables and their partitions, rewriting a partition's rows into a new directory, and pointing the
partitions at their new directories in one metastore request.

Everything goes through Spark's external catalog (the metastore) and Hadoop's FileSystem, so it works
on a local disk, HDFS or an object store, with the embedded or an external metastore.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from pyspark.sql import Observation, SparkSession
from pyspark.sql import functions as F

from loader.formats.hive.compaction_plan import DataFile, PartitionListing
from loader.formats.metastore import RELOCATED_PROPERTY, partition_directory, partition_location
from loader.planning.state_store import StateFiles
from loader.runtime import spark_internals as internals


@dataclass(frozen=True)
class HiveTable:
    name: str  # unqualified
    location: str  # qualified
    partition_columns: list[str]
    relocated: bool


def loader_tables(spark: SparkSession, store: StateFiles, database: str) -> list[HiveTable]:
    """The ORC tables of the database partitioned by the loader's time columns (`dt`, `dt`/`hour`):
    two metastore requests however many tables there are. Other tables (views, Iceberg tables, a table
    someone else put there) are left alone."""
    tables = []
    for table in metastore_tables(spark, database):
        columns = [str(c) for c in internals.python_list(table.partitionColumnNames())]
        provider = str(table.provider().getOrElse(None) or "").lower()
        serde = str(table.storage().serde().getOrElse(None) or "").lower()
        location = table.storage().locationUri()
        if columns not in (["dt"], ["dt", "hour"]) or not location.isDefined():
            continue
        if provider != "orc" and not (provider == "hive" and "orc" in serde):
            continue
        tables.append(
            HiveTable(
                str(table.identifier().table()),
                store.qualified(str(location.get().toString())),
                columns,
                bool(table.properties().contains(RELOCATED_PROPERTY)),
            )
        )
    return sorted(tables, key=lambda t: t.name)


def metastore_tables(spark: SparkSession, database: str) -> list:  # type: ignore[type-arg]
    """Every table of the database as the metastore describes it (Spark's CatalogTable), in two
    requests; [] when the database does not exist."""
    catalog = internals.external_catalog(spark)
    if not catalog.databaseExists(database):
        return []
    return internals.python_list(catalog.getTablesByName(database, catalog.listTables(database)))


def list_partitions(
    spark: SparkSession, store: StateFiles, database: str, table: HiveTable
) -> list[PartitionListing]:
    """Every partition of the table with its location and data files (one metastore request, one
    listing per partition)."""
    partitions = internals.external_catalog(spark).listPartitions(
        database, table.name, internals.no_partition_filter(spark)
    )
    listed = []
    for partition in internals.python_list(partitions):
        location = partition.storage().locationUri()
        if not location.isDefined():
            continue
        where = store.qualified(str(location.get().toString()))
        spec = {column: str(partition.spec().apply(column)) for column in table.partition_columns}
        files = [DataFile(path, size) for path, size in store.file_sizes(where)]
        listed.append(PartitionListing(spec, where, files))
    return listed


def rewrite_partition(
    spark: SparkSession, database: str, table: HiveTable, spec: dict[str, str], target: str, files: int
) -> int:
    """Writes the partition's rows, as readers see them through the table (its column types, existence
    defaults and all), into `files` ORC files under `target`; returns the rows written after checking
    that `target` holds exactly as many as the partition."""
    spark.catalog.refreshTable(f"{database}.{table.name}")
    where = F.lit(True)
    for column, value in spec.items():
        where = where & (F.col(column) == value)
    rows = spark.table(f"{database}.{table.name}").where(where).drop(*table.partition_columns)
    expected = rows.count()
    written = Observation(f"loader_compacted_{uuid.uuid4().hex}")
    rows.observe(written, F.count(F.lit(1)).alias("rows")).coalesce(files).write.format("orc").mode(
        "errorifexists"
    ).save(target)
    read_back = spark.read.schema(rows.schema).orc(target).count()
    if not expected == int(written.get["rows"]) == read_back:
        raise RuntimeError(
            f"compacting {database}.{table.name} {partition_directory(spec)}: the partition has {expected} "
            f"rows, "
            f"{written.get['rows']} were written and {read_back} read back from {target}"
        )
    return expected


def mark_relocated(spark: SparkSession, database: str, table: HiveTable) -> None:
    """Tells later runs to ask the metastore where this table's partitions are (see
    `TableCatalog.moved_partitions`); set before any partition points elsewhere, kept forever."""
    if not table.relocated:
        qualified = f"`{database}`.`{table.name}`"
        spark.sql(f"ALTER TABLE {qualified} SET TBLPROPERTIES ('{RELOCATED_PROPERTY}'='true')")


def switch_locations(
    spark: SparkSession, database: str, table: str, locations: Sequence[tuple[dict[str, str], str]]
) -> None:
    """Points each partition (spec, new location) at its new directory in ONE metastore request: a
    reader plans a query with the old directories or the new ones, never a mix."""
    if not locations:
        return
    catalog = internals.external_catalog(spark)
    changed = [
        internals.with_location(
            spark, catalog.getPartition(database, table, internals.to_scala_map(spark, spec)), location
        )
        for spec, location in locations
    ]
    catalog.alterPartitions(database, table, internals.to_seq(spark, changed))


def current_location(
    spark: SparkSession, store: StateFiles, qualified_table: str, spec: dict[str, str]
) -> str | None:
    """Where the partition points now (qualified); None when the table or the partition is gone."""
    database, _, table = qualified_table.partition(".")
    if not internals.external_catalog(spark).tableExists(database, table):
        return None
    found = partition_location(spark, qualified_table, spec)
    return store.qualified(found) if found else None
