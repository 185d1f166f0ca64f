"""The rules a loader's settings keep beyond their types and bounds, as functions of their values: a
pattern that must compile, a path that must be local, and the table format's rules over the catalog and
the store. The settings model (`loader.config`) calls them from its validators whenever settings are made;
nothing here looks at the machine (that is `loader.config_environment`)."""

from __future__ import annotations

import os
import re

from loader.formats.iceberg_catalogs import CatalogAccess, IcebergCatalog
from loader.formats.iceberg_catalogs import check as check_catalog
from loader.formats.object_store_files import S3_SCHEMES

OBJECT_STORE_SCHEMES = ("s3://", "s3a://", "s3n://", "gs://", "abfs://", "abfss://", "wasb://", "wasbs://")


def is_uri(location: str) -> bool:
    return "://" in location or location.startswith("file:")


def a_pattern(value: str | None, name: str) -> str | None:
    """`value`, a regular expression over topic names; ValueError if it does not compile."""
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"{name} is not a regular expression: {exc}") from None
    return value


def a_local_file(value: str | None, what: str) -> str | None:
    """`value`, a path on this machine (the metrics file, the class archive's directory)."""
    if value and is_uri(value):
        raise ValueError(f"{what} must be a local path, not {value!r}")
    return value


def an_archive_directory(value: str | None) -> str | None:
    """The driver class archive's directory: local, and without the JVM's separator of archives."""
    a_local_file(value, "the driver class archive directory")
    if value and os.pathsep in value:
        # The JVM reads `-XX:SharedArchiveFile` as a list of archives separated by it.
        raise ValueError(f"the driver class archive directory must not contain {os.pathsep!r}: {value!r}")
    return value


def check_tables_and_store(
    table_format: str,
    catalog: IcebergCatalog,
    catalog_access: CatalogAccess,
    warehouse: str,
    state_location: str,
) -> None:
    """Raises ValueError for a table format, catalog and store that cannot work together."""
    if table_format != "iceberg" and (catalog.kind == "rest" or catalog_access != CatalogAccess()):
        raise ValueError(
            "the REST catalog and object store settings are for Iceberg tables (table-format = iceberg)"
        )
    check_catalog(catalog)  # raises for a catalog description that cannot work
    if table_format == "hive" and (
        warehouse.startswith(OBJECT_STORE_SCHEMES) or state_location.startswith(OBJECT_STORE_SCHEMES)
    ):
        raise ValueError(
            "Hive tables are not loaded onto an object store: a Hive commit moves each file into "
            "place by renaming it, which an object store does as a copy that readers can see half "
            "done, and the run lock there is not atomic. Load Iceberg tables instead (--table-format "
            'iceberg), through a REST catalog (--iceberg-catalog rest; see "Iceberg catalogs and '
            'object stores")'
        )
    on_another_store = state_location.startswith(OBJECT_STORE_SCHEMES) and not state_location.startswith(
        S3_SCHEMES
    )
    if catalog.keeps_locations and on_another_store:
        raise ValueError(
            f"the loader's state directory {state_location} is on an object store the loader "
            "writes its state to only on S3 (s3://): give warehouse (or state-dir) on S3, a local disk "
            "or HDFS"
        )
