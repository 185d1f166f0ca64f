"""The database's namespace in Iceberg's own catalog, behind Spark's session catalog.

Iceberg's session catalog (`SparkSessionCatalog`) creates and finds databases in Spark's metastore alone:
`CREATE DATABASE` never reaches the Iceberg catalog behind it. A Hive metastore catalog shares that
database, and a Hadoop catalog makes a namespace's directory with its first table; but a REST catalog
(Polaris, Glue, Unity, Lakekeeper, Nessie, Iceberg's own server in strict mode) creates no table in a
namespace it does not have. So before a run's first table there (its run lock), the loader creates the
namespace in SQL, through a second Spark catalog over the same Iceberg catalog (a plain `SparkCatalog`,
whose namespaces are the Iceberg catalog's own), when the catalog does not have it yet.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import SparkSession

from loader.formats.iceberg_catalogs import SESSION_CATALOG, IcebergCatalog, spark_catalog_conf
from loader.runtime.java_values import java_class, java_strings

# The Spark catalog, over the session catalog's Iceberg catalog, through which namespaces are created.
NAMESPACE_CATALOG = "loader_namespaces"


def session_iceberg_catalog(spark: SparkSession) -> Any:
    """The Iceberg catalog (`org.apache.iceberg.catalog.Catalog`) behind the session catalog."""
    return java_class(spark, "org.apache.iceberg.spark.Spark3Util").loadIcebergCatalog(
        spark._jsparkSession, SESSION_CATALOG
    )


def namespace_of(spark: SparkSession, database: str) -> Any:
    """The database as an Iceberg `Namespace`."""
    return java_class(spark, "org.apache.iceberg.catalog.Namespace").of(java_strings(spark, [database]))


def create_namespace(spark: SparkSession, catalog: IcebergCatalog, database: str) -> None:
    """Creates the database's namespace in the Iceberg catalog unless it has it. Spark asks the catalog
    first, so a principal allowed to write the namespace's tables but not to create namespaces works in
    one made for it, and another loader creating it at the same moment is no error. Raises Spark's error
    of the catalog's answer otherwise (a catalog that does not answer, or refuses)."""
    prefix = f"spark.sql.catalog.{NAMESPACE_CATALOG}"
    for key, value in spark_catalog_conf(catalog, name=NAMESPACE_CATALOG).items():
        if key == prefix or key.startswith(f"{prefix}."):
            spark.conf.set(key, value)
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {NAMESPACE_CATALOG}.`{database}`")
