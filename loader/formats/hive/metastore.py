"""What the loader asks of and tells the Hive metastore about its ORC tables, straight through Spark's
external catalog: where a table or partition is, and the registration of new partitions once the files
are in place. Stored as ORC (see `loader.schema.table_evolution` for why); created and evolved through
`loader.formats.hive.table_catalog`."""

from __future__ import annotations

from pyspark.sql import SparkSession

TABLE_FORMAT = "orc"
# Set on a table before `loader maintain` first points one of its partitions at a directory other than
# `<table>/dt=...`: a run that adds files to such a table asks the metastore where the partitions are.
RELOCATED_PROPERTY = "loader.partitions-relocated"


def table_location(spark: SparkSession, qualified_name: str) -> str:
    database, _, table = qualified_name.partition(".")
    identifier = spark._jvm.org.apache.spark.sql.catalyst.TableIdentifier(
        table, spark._jvm.scala.Some(database)
    )
    metadata = spark._jsparkSession.sessionState().catalog().getTableMetadata(identifier)
    return str(metadata.location().toString())


def add_partitions(spark: SparkSession, qualified_name: str, partitions: list[dict[str, str]]) -> None:
    """Registers partitions in the metastore, all of a table's in one call (those that exist already are
    left as they are). Straight through the external catalog: `ALTER TABLE ... ADD PARTITION` would parse,
    analyse, refresh the table and touch its statistics, several metastore round trips per table. Readers
    in this session see the partitions after `forget_cached_tables`."""
    if not partitions:
        return
    jvm = spark._jvm
    catalog = spark._jsparkSession.sessionState().catalog().externalCatalog()
    database, _, table = qualified_name.partition(".")
    storage = catalog.getTable(database, table).storage()
    location = str(storage.locationUri().get().toString()).rstrip("/")
    catalog_types = jvm.org.apache.spark.sql.catalyst.catalog
    to_map, to_seq = (
        jvm.org.apache.spark.api.python.PythonUtils.toScalaMap,
        jvm.org.apache.spark.api.python.PythonUtils.toSeq,
    )
    created = []
    for spec in partitions:
        directory = "/".join(f"{key}={value}" for key, value in spec.items())
        partition_storage = catalog_types.CatalogStorageFormat(
            jvm.scala.Some(jvm.java.net.URI(f"{location}/{directory}")),
            storage.inputFormat(),
            storage.outputFormat(),
            storage.serde(),
            storage.compressed(),
            storage.properties(),
        )
        created.append(
            catalog_types.CatalogTablePartition(
                to_map(spec),
                partition_storage,
                to_map({}),
                jvm.System.currentTimeMillis(),
                -1,
                jvm.scala.Option.empty(),
            )
        )
    catalog.createPartitions(database, table, to_seq(created), True)


def partition_location(spark: SparkSession, qualified_name: str, spec: dict[str, str]) -> str | None:
    """Where the metastore's partition `spec` of the table is; None when it has no such partition."""
    database, _, table = qualified_name.partition(".")
    catalog = spark._jsparkSession.sessionState().catalog().externalCatalog()
    to_map = spark._jvm.org.apache.spark.api.python.PythonUtils.toScalaMap
    found = catalog.getPartitionOption(database, table, to_map(spec))
    if found.isEmpty():
        return None
    location = found.get().storage().locationUri()
    return str(location.get().toString()) if location.isDefined() else None
