"""The metastore as one run sees it: the tables the run writes, fetched in one call, kept current by the
run's own DDL.

A metastore round trip costs milliseconds (tens on a busy one), and a run over a thousand topics used to
make several per topic (does the table exist, what are its columns, where is it) even when nothing about
the table changed. The run now asks once, for the tables it will write, and afterwards only creates or
alters what must change. Table DDL goes one table at a time (two topics creating the quarantine table at
once would collide), under the catalog's lock.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from pyspark.sql import SparkSession
from pyspark.sql.types import StructType

from loader.formats import columns_ddl
from loader.formats.hive.metastore import RELOCATED_PROPERTY, TABLE_FORMAT, partition_location
from loader.formats.hive.table_alter import replace_data_columns
from loader.formats.one_format import TABLE_TYPE_PARAMETER, format_of_metastore_table
from loader.planning.commit_protocol import partition_spec
from loader.planning.freshness import PROPERTY as VALID_THROUGH
from loader.planning.state_store import StateFiles
from loader.runtime import spark_internals as internals
from loader.schema.column_defaults import without_existence_defaults
from loader.schema.partitioning import Granularity, partition_columns
from loader.schema.table_evolution import TableState, plan_evolution


@dataclass(frozen=True)
class KnownTable:
    data_schema: StructType  # the data columns (partition columns left out)
    location: str  # qualified (`file:/x`, `hdfs://nn:8020/x`)
    relocated: bool = False  # `loader maintain` may have pointed partitions elsewhere (RELOCATED_PROPERTY)
    table_format: str = "hive"  # or `iceberg`: a table of Iceberg's Hive catalog
    valid_through: str | None = None  # its `loader.valid-through` property, as the run found it


class TableCatalog:
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

    def moved_partitions(self, table: str, directories: list[str]) -> dict[str, str]:
        """Of the partition directories (`dt=.../hour=...`) a run writes into, those whose partition the
        metastore has somewhere else (compacted by `loader maintain`), with that location: the run's
        files must go where readers look. No metastore call for a table maintain never relocated. Call
        with `lock` held."""
        known = self._known(table)
        if known is None or not known.relocated:
            return {}
        moved = {}
        for directory in directories:
            found = partition_location(self.spark, f"{self.database}.{table}", partition_spec(directory))
            if found is not None and self.store.qualified(found) != f"{known.location}/{directory}":
                moved[directory] = self.store.qualified(found)
        return moved

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

    def ensure(self, table: str, data_schema: StructType, granularity: Granularity) -> TableState:
        """Creates the table, or evolves its columns to hold `data_schema` (raises UnrepresentableChange);
        metastore calls only when something changes. Call with `lock` held."""
        qualified = f"{self.database}.{table}"
        known = self._known(table)
        if known is None:
            self._create(qualified, data_schema, granularity)
            return TableState("created", self._refetch(table).location)
        plan = plan_evolution(known.data_schema, data_schema)
        if plan.needs_alter:
            replace_data_columns(self.spark, qualified, plan.schema)
            return TableState("evolved", self._refetch(table).location, plan.changes)
        return TableState("unchanged", known.location)

    def _create(self, qualified: str, data_schema: StructType, granularity: Granularity) -> None:
        """DDL, not `saveAsTable` of an empty frame: no Spark job, no file write, no statistics update: less
        than half the time per table (benchmarks/JOURNAL.md, "Tables created by DDL"). The existence
        defaults are left out (see `without_existence_defaults`); column metadata that DDL cannot say, if
        any, is set in one more metastore call."""
        database, _, table = qualified.partition(".")
        partitions = partition_columns(granularity)
        data_schema = without_existence_defaults(data_schema)
        columns = columns_ddl(self.spark, data_schema)
        keys = ", ".join(f"`{name}` STRING" for name in partitions)
        self.spark.sql(
            f"CREATE TABLE `{database}`.`{table}` ({columns}, {keys}) USING {TABLE_FORMAT} "
            f"PARTITIONED BY ({', '.join(partitions)})"
        )
        if any(set(f.metadata) - {"comment"} for f in data_schema.fields):
            replace_data_columns(self.spark, qualified, data_schema)
