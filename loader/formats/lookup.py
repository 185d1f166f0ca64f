"""The table formats by name (`--table-format`): the one place the run, `loader status` and `loader maintain`
find a format, so that a new format or catalog is added in `loader/formats/` alone."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from pyspark.sql import SparkSession

from loader.formats import TableFormat
from loader.formats.hive import HiveFormat
from loader.formats.hive.maintenance import maintain_hive_tables
from loader.formats.hive.table_catalog import TableCatalog
from loader.formats.hive.table_properties import read_valid_through as read_hive_valid_through
from loader.formats.iceberg import IcebergFormat
from loader.formats.iceberg import read_valid_through as read_iceberg_valid_through
from loader.formats.iceberg_catalogs import IcebergCatalog
from loader.formats.iceberg_maintenance import maintain_iceberg_tables
from loader.formats.maintenance import Maintenance
from loader.formats.metastore_tables import MetastoreTables
from loader.formats.object_store_files import ObjectStoreFiles, kept_on_object_store
from loader.planning.state_store import StateFiles, StateStore
from loader.schema.partitioning import Granularity


class PlaceSettings(Protocol):
    """The settings a format's place is read from (the loader's settings have them)."""

    @property
    def database(self) -> str: ...
    @property
    def warehouse(self) -> str: ...
    @property
    def partition_granularity(self) -> Granularity: ...
    @property
    def iceberg(self) -> IcebergCatalog: ...
    @property
    def valid_through_step_s(self) -> float: ...


@dataclass(frozen=True)
class FormatPlace:
    """Where a run's tables are, and how they are partitioned: what opening a format takes."""

    database: str
    warehouse: str
    granularity: Granularity
    iceberg: IcebergCatalog  # where Iceberg tables are kept, and the version of those the run creates
    valid_through_step_s: float = 0.0  # how far a Hive table's recorded valid-through may lag the run's

    @classmethod
    def of(cls, settings: PlaceSettings) -> FormatPlace:
        return cls(
            settings.database,
            settings.warehouse,
            settings.partition_granularity,
            settings.iceberg,
            settings.valid_through_step_s,
        )


def _hive(spark: SparkSession, store: StateFiles, place: FormatPlace, run_id: str) -> TableFormat:
    catalog = TableCatalog(spark, store, place.database)
    return HiveFormat(catalog, store, place.granularity, run_id, place.warehouse, place.valid_through_step_s)


def _iceberg(spark: SparkSession, store: StateFiles, place: FormatPlace, run_id: str) -> TableFormat:
    # An Iceberg run stages nothing: what it checks of its tables' places it asks the warehouse's own file
    # system, wherever the state directory is.
    warehouse = StateStore(spark, place.warehouse)
    catalog = MetastoreTables(spark, warehouse, place.database)
    return IcebergFormat(
        spark, place.database, place.granularity, catalog, warehouse, place.warehouse,
        format_version=place.iceberg.format_version,
    )  # fmt: skip


@dataclass(frozen=True)
class FormatOpeners:
    """How a run opens a format, and how a command beside the run reads what the format records."""

    open: Callable[[SparkSession, StateFiles, FormatPlace, str], TableFormat]
    # A table's recorded valid-through (`loader.planning.freshness`), for `loader status`.
    valid_through: Callable[[SparkSession, str], str | None]
    # What `loader maintain` does, in turn, to the database's tables (`loader.formats.maintenance`).
    maintenance: tuple[Maintenance, ...]


FORMATS: dict[str, FormatOpeners] = {
    "hive": FormatOpeners(_hive, read_hive_valid_through, (maintain_hive_tables,)),
    # The loader's ORC tables too: what a Hive-format run's unfinished compaction left is finished.
    "iceberg": FormatOpeners(
        _iceberg, read_iceberg_valid_through, (maintain_hive_tables, maintain_iceberg_tables)
    ),
}


def open_format(
    name: str, spark: SparkSession, store: StateFiles, place: FormatPlace, run_id: str
) -> TableFormat:
    """The format `name` for one run (making no metastore call until the run asks it something)."""
    return _format(name).open(spark, store, place, run_id)


def recorded_valid_through(spark: SparkSession, name: str, table: str) -> str | None:
    """`table`'s recorded valid-through under format `name`; None when it records none."""
    return _format(name).valid_through(spark, table)


def maintenance(name: str) -> tuple[Maintenance, ...]:
    """What `loader maintain` does under format `name`, in turn."""
    return _format(name).maintenance


def _format(name: str) -> FormatOpeners:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown table format {name!r}: one of {', '.join(sorted(FORMATS))}") from None


def open_state(spark: SparkSession, location: str, catalog: IcebergCatalog) -> StateFiles:
    """The loader's state files at `location`: on S3 under a REST catalog through Iceberg's S3FileIO, with
    the catalog's store settings; elsewhere through Hadoop's file system."""
    if kept_on_object_store(location, catalog):
        return ObjectStoreFiles(spark, location, catalog.access.object_store)
    return StateStore(spark, location)
