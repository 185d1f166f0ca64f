"""The table formats by name (`--table-format`): the one place the run finds a format, so that a new format
or catalog is added in `loader/formats/` alone."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pyspark.sql import SparkSession

from loader.formats import TableFormat
from loader.formats.hive import HiveFormat
from loader.formats.hive.table_catalog import TableCatalog
from loader.formats.iceberg import IcebergFormat
from loader.formats.iceberg_catalogs import IcebergCatalog
from loader.planning.state_store import StateStore
from loader.schema.partitioning import Granularity


@dataclass(frozen=True)
class FormatPlace:
    """Where a run's tables are, and how they are partitioned: what opening a format takes."""

    database: str
    warehouse: str
    granularity: Granularity
    iceberg: IcebergCatalog  # where Iceberg tables are kept, and the version of those the run creates


def _hive(spark: SparkSession, store: StateStore, place: FormatPlace, run_id: str) -> TableFormat:
    catalog = TableCatalog(spark, store, place.database)
    return HiveFormat(catalog, store, place.granularity, run_id, place.warehouse)


def _iceberg(spark: SparkSession, store: StateStore, place: FormatPlace, run_id: str) -> TableFormat:
    catalog = TableCatalog(spark, store, place.database)
    return IcebergFormat(
        spark, place.database, place.granularity, catalog, store, place.warehouse,
        format_version=place.iceberg.format_version,
    )  # fmt: skip


FORMATS: dict[str, Callable[[SparkSession, StateStore, FormatPlace, str], TableFormat]] = {
    "hive": _hive,
    "iceberg": _iceberg,
}


def open_format(
    name: str, spark: SparkSession, store: StateStore, place: FormatPlace, run_id: str
) -> TableFormat:
    """The format `name` for one run (making no metastore call until the run asks it something)."""
    try:
        opener = FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown table format {name!r}: one of {', '.join(sorted(FORMATS))}") from None
    return opener(spark, store, place, run_id)
