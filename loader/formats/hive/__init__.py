"""Hive ORC tables: the metastore's tables (`table_catalog`), rows staged as ORC files (`staging`) that
the run's manifest moves into place (`loader.planning.commit_protocol`), their partitions registered
(`metastore`), and each loaded table's valid-through set after the commit (`table_properties`). The
manifest is the only account of what the tables hold, so `held_offsets` has nothing to add to it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pyspark.sql import DataFrame
from pyspark.sql.types import StructType

from loader.formats import Append, CurrentMerge, GroupAppend, GroupMember
from loader.formats.hive.many_tables import write_tables, writer_available
from loader.formats.hive.staging import require_one_file_system, stage_rows, staged_files
from loader.formats.hive.table_catalog import TableCatalog
from loader.formats.hive.table_properties import record_valid_through
from loader.formats.metastore import add_partitions
from loader.formats.run_tables import check_run_tables
from loader.outcome.report import RunReport
from loader.planning.commit_protocol import StagedTable
from loader.planning.state_store import StateFiles
from loader.schema.partitioning import Granularity
from loader.schema.table_evolution import TableState

# Hive ORC tables have no row-level updates or deletes: a current-state table would be a rewrite of every
# file that holds a changed key, each run (see docs/loader.md, "Current-state tables").
CURRENT_STATE_REFUSAL = (
    "current-state tables need row-level updates, which Hive ORC tables do not have: use "
    "--table-format iceberg for them (the history table loads as before)"
)


@dataclass(frozen=True)
class _StagedMember:
    """A member's files of a group's job, staged: kept by the run's manifest, or deleted."""

    rows: int
    staged: StagedTable
    store: StateFiles
    staging_dir: str

    def keep(self) -> StagedTable:
        return self.staged

    def discard(self) -> None:
        self.store.delete(self.staging_dir)


@dataclass
class HiveFormat:
    catalog: TableCatalog
    store: StateFiles
    granularity: Granularity
    run_id: str
    warehouse: str
    valid_through_step_s: float = 0.0  # see `table_properties.record_valid_through`
    name: str = "hive"

    @property
    def lock(self):  # type: ignore[no-untyped-def]
        return self.catalog.lock

    def prepare(self, tables: list[str]) -> None:
        check_run_tables(self.catalog, self.store, self.warehouse, self.name, tables)

    def data_schema(self, table: str, timestamp_column: str = "_kafka_timestamp") -> StructType | None:
        return self.catalog.data_schema(table)

    def ensure(
        self,
        table: str,
        data_schema: StructType,
        timestamp_column: str = "_kafka_timestamp",
        avro_schema: str | None = None,
    ) -> TableState:
        """Defaults come as the columns' existence defaults in `data_schema`; aliases rename nothing (a
        Hive table names its columns, so the new name is a new column beside the old)."""
        return self.catalog.ensure(table, data_schema, self.granularity)

    def held_offsets(self, table: str, topic: str, topic_id: str | None) -> dict[int, int]:
        return {}

    def append(self, append: Append) -> StagedTable | None:
        return stage_rows(
            self.store,
            append.staging_dir,
            f"{self.catalog.database}.{append.table}",
            append.state.location,
            append.rows,
            self.granularity,
            self.run_id,
            append.timestamp_column,
            lambda directories: self._moved_partitions(append.table, directories),
        )

    def appends_groups(self) -> bool:
        """With the loader's writer on the classpath (see `many_tables`)."""
        return writer_available(self.catalog.spark)

    def writes_alone_as_group(self) -> bool:
        """With the loader's writer: it writes a busy topic's rows to their hour's file without the sort
        Spark's writer does first (docs/loader.md, "A busy topic's rows written without a sort")."""
        return self.appends_groups()

    def groups_hint(self) -> str | None:
        if self.appends_groups():
            return None
        return (
            "the loader's writer jar is not on Spark's classpath (scripts/fetch-jars builds it; spark-submit "
            "needs it in --jars)"
        )

    def current_state_refusal(self) -> str | None:
        return CURRENT_STATE_REFUSAL

    def ensure_current(
        self, table: str, data_schema: StructType, avro_schema: str | None = None
    ) -> TableState:
        raise ValueError(CURRENT_STATE_REFUSAL)

    def merge_current(self, merge: CurrentMerge) -> None:
        raise ValueError(CURRENT_STATE_REFUSAL)

    def append_group(self, rows: DataFrame, members: list[GroupMember]) -> list[GroupAppend]:
        for member in members:
            qualified = f"{self.catalog.database}.{member.table}"
            require_one_file_system(self.store, member.staging_dir, member.state.location, qualified)
        directories = [m.staging_dir for m in members]
        records = [m.records for m in members]
        # A topic's own pass (a group of one) may span days of backlog, and so may a group's small topics
        # on a first run over a quiet topic's retention: every task keeps few files open (the default).
        written = write_tables(self.catalog.spark, rows, directories, self.granularity, records)
        staged = []
        for i, member in enumerate(members):
            files = sorted(f.path for f in written if f.member == i)
            staged_table = staged_files(
                self.store,
                member.staging_dir,
                f"{self.catalog.database}.{member.table}",
                member.state.location,
                files,
                self.run_id,
                lambda directories, table=member.table: self._moved_partitions(table, directories),
            )
            rows_written = sum(f.rows for f in written if f.member == i)
            staged.append(_StagedMember(rows_written, staged_table, self.store, member.staging_dir))
        return staged

    def _moved_partitions(self, table: str, directories: list[str]) -> dict[str, str]:
        """Partitions `loader maintain` pointed elsewhere: the rows of those go where readers look."""
        with self.catalog.lock:
            return self.catalog.moved_partitions(table, directories)

    def add_partitions(self, qualified_table: str, partitions: list[dict[str, str]]) -> None:
        add_partitions(self.catalog.spark, qualified_table, partitions)

    def after_commit(self, report: RunReport, warn: Callable[[str], None]) -> None:
        record_valid_through(self.catalog, report, self.valid_through_step_s, warn)
