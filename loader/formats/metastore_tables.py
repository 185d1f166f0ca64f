"""The metastore as one run sees it, whatever the run's format: the tables the run writes, fetched in one
call and kept current by the run's own DDL. Hive's tables are created and evolved on top of it
(`loader.formats.hive.table_catalog`); every format checks through it that the run's tables are in this
warehouse and of its format (`loader.formats.run_tables`).

A metastore round trip costs milliseconds (tens on a busy one), and a run over a thousand topics used to
make several per topic (does the table exist, what are its columns, where is it) even when nothing about
the table changed. The run now asks once, for the tables it will write, and afterwards only creates or
alters what must change.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from pyspark.sql import SparkSession
from pyspark.sql.types import StructType

from loader.formats.metastore import RELOCATED_PROPERTY
from loader.formats.one_format import TABLE_TYPE_PARAMETER, format_of_metastore_table
from loader.planning.freshness import PROPERTY as VALID_THROUGH
from loader.planning.state_store import StateFiles
from loader.runtime import spark_internals as internals


@dataclass(frozen=True)
class KnownTable:
    data_schema: StructType  # the data columns (partition columns left out)
    location: str  # qualified (`file:/x`, `hdfs://nn:8020/x`)
    relocated: bool = False  # `loader maintain` may have pointed partitions elsewhere (RELOCATED_PROPERTY)
    table_format: str = "hive"  # or `iceberg`: a table of Iceberg's Hive catalog
    valid_through: str | None = None  # its `loader.valid-through` property, as the run found it


class MetastoreTables:
    """The run's tables as the metastore has them (see the module's text)."""

    def __init__(self, spark: SparkSession, store: StateFiles, database: str) -> None:
        self.spark = spark
        self.store = store
        self.database = database
        self.lock = threading.Lock()
        self._tables: dict[str, KnownTable | None] = {}

    @functools.cached_property
    def _external(self):  # type: ignore[no-untyped-def]
        """Spark's metastore client, asked for on first use: the first ask starts the metastore
        connection (the embedded metastore itself), which a run with nothing to load never needs."""
        return internals.external_catalog(self.spark)

    def load(self, tables: Iterable[str]) -> None:
        """Fetches the tables (unqualified names) that exist among `tables`, in one metastore call."""
        wanted = sorted(set(tables) - set(self._tables))
        if not wanted:
            return
        self._tables.update(dict.fromkeys(wanted))
        names = internals.to_seq(self.spark, wanted)
        found = self._external.getTablesByName(self.database, names)
        for i in range(found.size()):
            self._remember(found.apply(i))

    def _remember(self, table) -> None:  # type: ignore[no-untyped-def]
        location = table.storage().locationUri()
        properties = table.properties()
        table_type = properties.get(TABLE_TYPE_PARAMETER)
        self._tables[str(table.identifier().table())] = KnownTable(
            StructType.fromJson(json.loads(table.dataSchema().json())),
            self.store.qualified(str(location.get().toString())) if location.isDefined() else "",
            bool(properties.contains(RELOCATED_PROPERTY)),
            format_of_metastore_table(str(table_type.get()) if table_type.isDefined() else None),
            str(through.get()) if (through := properties.get(VALID_THROUGH)).isDefined() else None,
        )

    def locations(self) -> dict[str, str]:
        """Where each known table's files are (tables that do not exist yet left out)."""
        return {name: t.location for name, t in self._tables.items() if t is not None and t.location}

    def recorded_valid_through(self, table: str) -> str | None:
        """The table's `loader.valid-through` as the run found it (None: none, or no such table)."""
        known = self._known(table)
        return known.valid_through if known else None

    def formats(self) -> dict[str, str]:
        """The format of each known table (tables that do not exist yet left out)."""
        return {name: t.table_format for name, t in self._tables.items() if t is not None}

    def data_schema(self, table: str) -> StructType | None:
        known = self._known(table)
        return known.data_schema if known else None

    def _known(self, table: str) -> KnownTable | None:
        if table not in self._tables:
            self.load([table])
        return self._tables[table]

    def _refetch(self, table: str) -> KnownTable:
        self._remember(self._external.getTable(self.database, table))
        known = self._tables[table]
        assert known is not None
        return known
