"""Does the metastore put this run's tables in the warehouse this run was given?

The loader keeps its offsets in the warehouse (`<warehouse>/_loader_state`), but where a table's files go
is decided by the metastore: by the location of its database, recorded when the database was created. A
metastore shared by two warehouses (or pointed at the wrong one) would send one warehouse's rows into the
other's folder while the offsets are saved in the first: data where nobody looks for it, and lost when
that other warehouse is deleted. So every run that writes (a topic to load, or a committed run to
complete) first claims its database: creates it at `<warehouse>/<database>.db` when it does not exist,
and otherwise stops, before anything is staged, when the database or any of its tables lives elsewhere.
A run with nothing to write makes no metastore call at all.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from pyspark.sql import SparkSession

from loader.planning.state_store import StateFiles, StateStore
from loader.runtime import spark_internals as internals


class WarehouseMismatch(RuntimeError):
    """The metastore places the run's database or tables outside its warehouse; nothing was loaded."""


class MetastoreUnavailable(RuntimeError):
    """Spark could not open the Hive metastore for a command's first call to it; nothing was done."""


# Hive's client wraps every failure to open the metastore in this one error: a metastore service that does
# not answer (after the client's own retries), or an embedded Derby database that another JVM has open.
_UNREACHABLE = "Unable to instantiate org.apache.hadoop.hive.ql.metadata.SessionHiveMetaStoreClient"


@contextmanager
def _first_metastore_call(spark: SparkSession, consequence: str) -> Iterator[None]:
    """Turns Hive's error for a metastore it cannot open into MetastoreUnavailable, which names the
    metastore and says `consequence` (what that means for the command's work)."""
    try:
        yield
    except Exception as exc:
        if _UNREACHABLE not in str(exc):
            raise
        uri = spark.sparkContext.getConf().get("spark.hadoop.hive.metastore.uris")
        where = uri or "embedded, unless a hive-site.xml names another; another process may have it open"
        raise MetastoreUnavailable(
            f"the Hive metastore could not be opened ({where}). {consequence} "
            f"({str(exc).splitlines()[0][:300]})"
        ) from exc


@dataclass(frozen=True)
class Locations:
    """Where the metastore puts the run's database and its tables (qualified URIs, `file:/x`)."""

    database: str | None  # None: the database does not exist yet
    tables: Mapping[str, str]  # table name -> location (tables without one, like views, left out)


def expected_database_location(warehouse: str, database: str) -> str:
    return f"{warehouse.rstrip('/')}/{database}.db"


def layout_problems(database: str, warehouse: str, expected: str, found: Locations) -> list[str]:
    """What is out of place, each as a sentence that names both paths and the remedy ([] when fine).

    `expected` is the database location this warehouse implies; all locations are qualified alike.
    """
    if found.database is None:
        return []
    database_at = found.database.rstrip("/")
    if database_at != expected.rstrip("/"):
        return [
            f"database {database} is at {database_at} in the metastore, but this run's warehouse {warehouse} "
            f"puts it at {expected}: its tables would land in another warehouse's folder while the offsets "
            f"are saved in this one. Nothing was loaded. Run with the warehouse that holds the database "
            f"(--warehouse {database_at.rpartition('/')[0]}), or another --database, or give this warehouse "
            "a metastore of its own (the embedded one lives inside the warehouse, in _loader_metastore/; "
            "see docs/loader.md, 'Where the loader writes')."
        ]
    return [
        f"table {database}.{table} is at {location}, outside its database's location {database_at}. "
        "Nothing was loaded. Move its files under the database and point the table there "
        f"(ALTER TABLE {database}.{table} SET LOCATION '{database_at}/{table}'), or drop it."
        for table, location in sorted(found.tables.items())
        if not location.rstrip("/").startswith(database_at + "/")
    ]


def metastore_locations(spark: SparkSession, store: StateFiles, database: str) -> Locations:
    """The database's and its tables' locations: two metastore calls however many tables there are."""
    catalog = internals.external_catalog(spark)
    if not catalog.databaseExists(database):
        return Locations(None, {})
    database_at = store.qualified(str(catalog.getDatabase(database).locationUri().toString()))
    names = catalog.listTables(database)
    tables = catalog.getTablesByName(database, names)
    found: dict[str, str] = {}
    for i in range(tables.size()):
        table = tables.apply(i)
        location = table.storage().locationUri()
        if location.isDefined():
            found[str(table.identifier().table())] = store.qualified(str(location.get().toString()))
    return Locations(database_at, found)


def raise_misplaced_tables(
    database: str, store: StateFiles, warehouse: str, tables: Mapping[str, str]
) -> None:
    """Raises WarehouseMismatch when one of `tables` (name -> qualified location, from the run's own view
    of the metastore) lies outside the database's directory in this warehouse."""
    expected = store.qualified(expected_database_location(warehouse, database))
    problems = layout_problems(database, warehouse, expected, Locations(expected, tables))
    if problems:
        raise WarehouseMismatch(" ".join(problems))


def check_layout(spark: SparkSession, warehouse: str, database: str) -> str:
    """Raises WarehouseMismatch when the metastore has the database or a table of it outside this
    warehouse (MetastoreUnavailable when it cannot be opened); returns the database's expected location."""
    store = StateStore(spark, warehouse)  # the warehouse's file system names its places
    expected = store.qualified(expected_database_location(warehouse, database))
    with _first_metastore_call(spark, "Nothing was done."):
        found = metastore_locations(spark, store, database)
    problems = layout_problems(database, warehouse, expected, found)
    if problems:
        raise WarehouseMismatch(" ".join(problems))
    return expected


def claim_database(spark: SparkSession, warehouse: str, database: str) -> None:
    """Checks that the metastore has the database in this warehouse (raises WarehouseMismatch), or
    creates it there. A run checks the tables it writes itself (`raise_misplaced_tables`), from the one
    metastore request it makes for them anyway. The run's first metastore call: raises
    MetastoreUnavailable when the metastore cannot be opened."""
    store = StateStore(spark, warehouse)  # the warehouse's file system names its places
    expected = store.qualified(expected_database_location(warehouse, database))
    consequence = "Nothing was loaded: the new records stay in Kafka and the next run loads them."
    with _first_metastore_call(spark, consequence):
        catalog = internals.external_catalog(spark)
        exists = catalog.databaseExists(database)
    if exists:
        found = Locations(store.qualified(str(catalog.getDatabase(database).locationUri().toString())), {})
        problems = layout_problems(database, warehouse, expected, found)
        if problems:
            raise WarehouseMismatch(" ".join(problems))
        return
    spark.sql(f"CREATE DATABASE IF NOT EXISTS `{database}` LOCATION '{expected}'")
