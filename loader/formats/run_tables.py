"""What every format checks of the tables a run may write before any pass starts: that the metastore
keeps them in this warehouse (see `loader.warehouse_layout`) and that they are of the run's format (see
`loader.formats.one_format`)."""

from __future__ import annotations

from loader.formats.metastore_tables import MetastoreTables
from loader.formats.one_format import raise_mixed_formats
from loader.planning.state_store import StateFiles
from loader.warehouse_layout import raise_misplaced_tables


def check_run_tables(
    catalog: MetastoreTables, store: StateFiles, warehouse: str, table_format: str, tables: list[str]
) -> None:
    catalog.load(tables)
    raise_misplaced_tables(catalog.database, store, warehouse, catalog.locations())
    raise_mixed_formats(catalog.database, table_format, catalog.formats())
