"""Hive's tables in the metastore: created by DDL and evolved through the catalog, one table at a time
(two topics creating the quarantine table at once would collide), under the catalog's lock, on top of the
run's one-call view of its tables (`loader.formats.metastore_tables`)."""

from __future__ import annotations

from pyspark.sql.types import StructType

from loader.formats import columns_ddl
from loader.formats.hive.table_alter import replace_data_columns
from loader.formats.metastore import partition_location
from loader.formats.metastore_tables import MetastoreTables
from loader.planning.commit_protocol import partition_spec
from loader.schema.column_defaults import without_existence_defaults
from loader.schema.partitioning import Granularity, partition_columns
from loader.schema.table_evolution import TableState, plan_evolution

TABLE_FORMAT = "orc"  # see `loader.schema.table_evolution` for why


class TableCatalog(MetastoreTables):
    """The run's Hive tables: made sure of (created or evolved), and where maintain moved their partitions."""

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
