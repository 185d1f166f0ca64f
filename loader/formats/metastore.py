"""What the loader asks of and tells the metastore about its tables, whatever their format: where a table
or partition is (Spark's external catalog, see `loader.runtime.spark_internals`), and the registration of
new partitions once the files are in place (SQL). Hive's tables are made by
`loader.formats.hive.table_catalog`; an Iceberg run registers partitions only to complete a manifest that
a Hive-format run left."""

from __future__ import annotations

from pyspark.sql import SparkSession

from loader.reading.sql_text import identifier, string_literal
from loader.runtime import spark_internals as internals

# Set on a table before `loader maintain` first points one of its partitions at a directory other than
# `<table>/dt=...`: a run that adds files to such a table asks the metastore where the partitions are.
RELOCATED_PROPERTY = "loader.partitions-relocated"


def table_location(spark: SparkSession, qualified_name: str) -> str:
    database, _, table = qualified_name.partition(".")
    return internals.table_location(spark, database, table)


def add_partitions(spark: SparkSession, qualified_name: str, partitions: list[dict[str, str]]) -> None:
    """Registers partitions in the metastore, all of a table's at once (those that exist already are left
    as they are), each at `<table location>/<column>=<value>/...`: in one request to the external
    catalog where this Spark line's partition class takes the arguments the loader gives it
    (`loader.runtime.spark_internals.create_partitions`), else by SQL, the same on every line. Readers in this
    session see the partitions after `forget_cached_tables`."""
    if not partitions:
        return
    database, _, table = qualified_name.partition(".")
    location = internals.table_location(spark, database, table).rstrip("/")
    placed = [(spec, f"{location}/{partition_directory(spec)}") for spec in partitions]
    if not internals.create_partitions(spark, database, table, placed):
        add_partitions_by_sql(spark, database, table, placed)


def add_partitions_by_sql(
    spark: SparkSession, database: str, table: str, placed: list[tuple[dict[str, str], str]]
) -> None:
    """`ALTER TABLE ... ADD IF NOT EXISTS PARTITION (...) LOCATION '...'` for every (spec, location): the
    public way, which parses, analyses and refreshes the table (Spark adds the partitions in batches of
    `spark.sql.addPartitionInBatch.size`); a few times the metastore request's cost per table."""
    clauses = []
    for spec, where in placed:
        values = ", ".join(f"{identifier(key)} = {string_literal(value)}" for key, value in spec.items())
        clauses.append(f"PARTITION ({values}) LOCATION {string_literal(where)}")
    spark.sql(f"ALTER TABLE {identifier(database)}.{identifier(table)} ADD IF NOT EXISTS {' '.join(clauses)}")


def partition_directory(spec: dict[str, str]) -> str:
    """A partition's directory under its table, as Hive names it: `dt=2026-12-07/hour=04`."""
    return "/".join(f"{key}={value}" for key, value in spec.items())


def partition_location(spark: SparkSession, qualified_name: str, spec: dict[str, str]) -> str | None:
    """Where the metastore's partition `spec` of the table is; None when it has no such partition."""
    database, _, table = qualified_name.partition(".")
    catalog = internals.external_catalog(spark)
    found = catalog.getPartitionOption(database, table, internals.to_scala_map(spark, spec))
    if found.isEmpty():
        return None
    location = found.get().storage().locationUri()
    return str(location.get().toString()) if location.isDefined() else None
