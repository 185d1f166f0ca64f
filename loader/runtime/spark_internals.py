"""Every use of Spark's internal JVM classes from Python (through Py4J), in one place, each with why.

Spark's internal classes change between Spark lines without notice (`CatalogStorageFormat` took a 7th
argument in Spark 4.2; `TableIdentifier` a third), so the loader builds none of them where SQL, the
public catalog API or the session's external catalog does the job:
- a Hive table's new partitions can always be added by SQL (`ALTER TABLE ... ADD PARTITION`, see
  `loader.formats.metastore.add_partitions_by_sql`), the way taken where `create_partitions` cannot;
- the rest asks the session's external catalog (Spark's metastore client, the same on every line) by
  database and table name, and reads Scala collections and options off what it answers.

What remains here, and why there is no public way:
- `external_catalog`: the metastore through Spark's own client. `spark.catalog` (the public API) answers
  neither table locations nor partition locations, and asks one table at a time; the loader needs a
  database's tables and their locations in two metastore requests, however many tables there are.
- `alter_data_schema`: replacing a Hive table's data columns in one metastore call. Spark SQL's
  `ALTER TABLE` cannot widen a column or add a field inside a struct of a Hive table.
- `with_location`: several partitions of a table pointed at new directories in ONE metastore request
  (`loader maintain`), so that a reader plans with the old directories or the new ones, never a mix;
  `ALTER TABLE ... PARTITION ... SET LOCATION` is a request per partition. The changed partitions are
  copies made by the case classes' own `copy`, whatever their number of fields on this Spark line.
- `create_partitions`: a table's new partitions in one metastore request. The SQL statement parses,
  analyses, looks the table up and refreshes it: measured at 1.4x to 1.8x the time per table of the
  request (benchmarks/JOURNAL.md, "One code base for every Spark line"), paid for every table a run
  adds an hour to. The partition's storage is a copy of the table's (its own `copy`, whatever its
  arity); the partition itself is built with the six arguments it has on every supported line
  (3.5 to 4.2), and where a line gives it others the call fails at once and the caller takes SQL.
- `parse_data_type`: a PySpark type as Spark's JVM type (its DDL for CREATE TABLE, Iceberg's conversion),
  as PySpark itself does it.
- `forget_cached_tables`: one call that drops every table a session remembers, instead of a
  `REFRESH TABLE` (a metastore round trip) per table.
- `to_seq`, `to_scala_map`, `python_list`: Scala collections to and from Python, through Spark's own
  helpers for PySpark.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from py4j.protocol import Py4JError
from pyspark.sql import SparkSession
from pyspark.sql.types import DataType

from loader.runtime.java_values import java_class

JavaObject = Any  # a Py4J proxy of a JVM object


def external_catalog(spark: SparkSession) -> JavaObject:
    """The session's external catalog (Spark's metastore client). The first call starts the metastore
    connection (the embedded metastore itself)."""
    return spark._jsparkSession.sessionState().catalog().externalCatalog()


def to_seq(spark: SparkSession, values: Iterable[Any]) -> JavaObject:
    """A Python iterable as a Scala Seq."""
    return java_class(spark, "org.apache.spark.api.python.PythonUtils").toSeq(list(values))


def to_scala_map(spark: SparkSession, entries: dict[str, str]) -> JavaObject:
    """A Python dict as a Scala immutable Map."""
    return java_class(spark, "org.apache.spark.api.python.PythonUtils").toScalaMap(entries)


def python_list(seq: JavaObject) -> list[JavaObject]:
    """A Scala Seq as a Python list."""
    return [seq.apply(i) for i in range(seq.size())]


def no_partition_filter(spark: SparkSession) -> JavaObject:
    """Scala's `None`, for the external catalog's optional partition spec."""
    return java_class(spark, "scala.Option").empty()


def table_location(spark: SparkSession, database: str, table: str) -> str:
    """Where the metastore says the table lives."""
    return str(external_catalog(spark).getTable(database, table).location().toString())


def table_data_schema_json(spark: SparkSession, database: str, table: str) -> str:
    """The table's data columns (partition columns left out) as Spark's JSON."""
    return str(external_catalog(spark).getTable(database, table).dataSchema().json())


def alter_data_schema(spark: SparkSession, database: str, table: str, data_schema: DataType) -> None:
    """Replaces the table's data columns (the partition columns stay) in one metastore call."""
    external_catalog(spark).alterTableDataSchema(database, table, parse_data_type(spark, data_schema))


def with_location(spark: SparkSession, partition: JavaObject, location: str) -> JavaObject:
    """A copy of the metastore's partition (`CatalogTablePartition`) that points at `location`; every
    other field as it was. Copied with the case classes' own `copy` and its defaults (the current values),
    so the number of fields a Spark line gives them does not matter."""
    jvm = spark._jvm
    storage = partition.storage()
    moved = _copy(storage, {0: jvm.scala.Some(jvm.java.net.URI(location))})
    return _copy(partition, {1: moved})


def _copy(case_object: JavaObject, changed: dict[int, Any]) -> JavaObject:
    """`case_object.copy(...)` with the arguments at the positions in `changed` replaced and the others
    the object's own (`copy$default$N` answers field N's current value)."""
    arity = int(case_object.productArity())
    arguments = [
        changed[i] if i in changed else getattr(case_object, f"copy$default${i + 1}")() for i in range(arity)
    ]
    return case_object.copy(*arguments)


def create_partitions(
    spark: SparkSession, database: str, table: str, placed: list[tuple[dict[str, str], str]]
) -> bool:
    """Adds the table's partitions (spec, location) in one request to the external catalog, those that
    exist left alone; False, having added none, where this Spark line's partition class does not take
    the six arguments (then SQL does it)."""
    if not placed:
        return True  # Hive's client fails on an empty request
    jvm = spark._jvm
    catalog = external_catalog(spark)
    storage = catalog.getTable(database, table).storage()
    try:
        created = [
            jvm.org.apache.spark.sql.catalyst.catalog.CatalogTablePartition(
                to_scala_map(spark, spec),
                _copy(storage, {0: jvm.scala.Some(jvm.java.net.URI(location))}),
                to_scala_map(spark, {}),
                jvm.System.currentTimeMillis(),
                -1,
                jvm.scala.Option.empty(),
            )
            for spec, location in placed
        ]
    except Py4JError:
        return False
    catalog.createPartitions(database, table, to_seq(spark, created), True)
    return True


def parse_data_type(spark: SparkSession, data_type: DataType) -> JavaObject:
    """A PySpark type as the JVM's `DataType`."""
    return spark._jsparkSession.parseDataType(data_type.json())


def forget_cached_tables(spark: SparkSession) -> None:
    """Drops what this session remembers of every table (relations, file listings): one call after a
    commit instead of a metastore round trip per table."""
    spark._jsparkSession.sessionState().catalog().invalidateAllCachedTables()
