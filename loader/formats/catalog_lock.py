"""The run lock of a database whose tables a catalog places (a REST catalog), kept in that catalog.

The loader's state directory is not beside such tables, so its lock alone would not keep apart two
loaders, with state directories of their own, writing the same database. What such a catalog makes
atomic is creating a table: `CREATE TABLE` of a name that exists fails, however many clients ask at once
(Iceberg's REST protocol answers 409, a metastore refuses). So the lock is a table, `<database>.
_loader_run_lock`, created by the run that takes it with its owner (host, pid, since) as a table
property, and dropped (with its files) when the run ends. A run killed holding it leaves it, as a
killed run leaves a lock file on HDFS: `loader unlock` removes it once that run is known to be gone.

`CatalogLockFiles` gives `loader.operations.lock.RunLock` the few file operations its remote lock uses,
on that table: the same owner records, decisions and messages as a lock file.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession

from loader.formats.iceberg_catalogs import IcebergCatalog
from loader.formats.iceberg_namespace import create_namespace
from loader.outcome.chain import exception_chain

LOCK_TABLE = "_loader_run_lock"
OWNER_PROPERTY = "loader.run-lock.owner"


class CatalogUnavailable(ConnectionError):
    """The catalog did not answer the lock's request: nothing was taken or released."""


def catalog_lock_files(
    spark: SparkSession, catalog: IcebergCatalog, database: str
) -> CatalogLockFiles | None:
    """The lock's operations in the catalog, for a catalog that places its tables itself; None for one
    whose tables are in the loader's warehouse, beside its state directory and its lock."""
    return CatalogLockFiles(spark, catalog, database) if catalog.keeps_locations else None


@dataclass
class CatalogLockFiles:
    spark: SparkSession
    catalog: IcebergCatalog
    database: str

    @property
    def location(self) -> str:
        """How messages name the lock: the table, in the catalog."""
        return f"{self.database}.{LOCK_TABLE} (in the Iceberg catalog)"

    @property
    def _table(self) -> str:
        return f"{self.database}.{LOCK_TABLE}"

    def write_text(self, location: str, text: str, overwrite: bool = False) -> None:
        """Creates the lock table with `text` as its owner; `FileExistsError` when it exists."""
        owner = text.replace("\\", "\\\\").replace("'", "\\'")
        try:
            # The database in Spark's metastore, and its namespace in the catalog, which creates no
            # table in a namespace it does not have (`loader.formats.iceberg_namespace`).
            self.spark.sql(f"CREATE DATABASE IF NOT EXISTS {self.database}")
            create_namespace(self.spark, self.catalog, self.database)
            self.spark.sql(
                f"CREATE TABLE {self._table} (owner STRING) USING iceberg "
                f"TBLPROPERTIES ('{OWNER_PROPERTY}' = '{owner}')"
            )
        except Exception as exc:  # the catalog is down or refuses: the JVM's error, as Py4J carries it
            if isinstance(exc, AnalysisException) and "already exists" in str(exc).lower():
                raise FileExistsError(self.location) from exc
            raise CatalogUnavailable(
                f"the Iceberg catalog did not take the run lock {self.location}: {_root_cause(exc)}; "
                "nothing was read or loaded"
            ) from exc

    def exists(self, location: str) -> bool:
        return bool(self.spark.catalog.tableExists(self._table))

    def read_text(self, location: str) -> str:
        """The owner record; `OSError` when the lock is gone meanwhile."""
        try:
            rows = self.spark.sql(f"SHOW TBLPROPERTIES {self._table} ('{OWNER_PROPERTY}')").collect()
        except AnalysisException as exc:
            raise FileNotFoundError(self.location) from exc
        return str(rows[0]["value"]) if rows else ""

    def delete(self, location: str, recursive: bool = False) -> None:
        """Drops the lock table; `CatalogUnavailable` when the catalog does not answer (the lock stays)."""
        try:
            self.spark.sql(f"DROP TABLE IF EXISTS {self._table} PURGE")
        except Exception as exc:
            raise CatalogUnavailable(
                f"the Iceberg catalog did not remove the run lock {self.location}: {_root_cause(exc)}; it "
                "stays until a run of this host takes it over (once this one has ended) or `loader unlock` "
                "removes it"
            ) from exc


def _root_cause(exc: BaseException) -> str:
    """The innermost exception that says something, as `Class: message` (the JVM's whole chain, stack
    traces included, is for the trace log)."""
    said = [link for link in exception_chain(exc) if link.message.strip()]
    if not said:
        return type(exc).__name__
    # The JVM's own exceptions, outermost first (not Py4J's or PySpark's wrappers of them).
    java = [link for link in said if "." in link.kind and not link.kind.startswith(("py4j.", "pyspark."))]
    root = (java or said)[-1]
    return f"{root.kind.rsplit('.', 1)[-1]}: {root.message.strip().splitlines()[0][:300]}"
