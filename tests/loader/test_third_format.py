"""A third table format, written here and registered only in `loader.formats`' two tables (`preflight`'s and
`lookup`'s), loads topics through the unchanged run, and `loader maintain` reaches its tables: the proof
that a format is added behind the formats' interface alone. It is as small as a format can be: each table
a Spark catalog table `USING parquet` over a directory of files the run stages and its manifest moves into
place (as Hive's); columns added or widened (the table defined again over its files), other changes
refused; no groups, no current-state tables, nothing compacted. The scenarios are the in-process suite's
own (`test_load_job`), run on it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from loader.formats import Append, CurrentMerge, GroupAppend, GroupMember, columns_ddl, lookup, preflight
from loader.formats.lookup import FormatOpeners, FormatPlace
from loader.formats.maintenance import Maintained, MaintainRequest, PartitionAction
from loader.operations.maintain import maintain
from loader.outcome.report import RunReport
from loader.planning.commit_protocol import StagedTable
from loader.planning.state_store import StateFiles, StateStore
from loader.schema.table_evolution import TableState, plan_evolution
from tests.loader import test_load_job
from tests.loader.harness import Harness

pytestmark = pytest.mark.integration

NAME = "parquet_directories"
REFUSAL = "parquet directories keep no current-state tables"


@dataclass
class ParquetDirectories:
    """One run's tables: `<database>.<table>`, Spark catalog tables over `<warehouse>/<database>.db/`
    (where the lake keeps its database, as every format must)."""

    spark: SparkSession
    store: StateFiles
    warehouse: str
    database: str
    name: str = NAME
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _qualified(self, table: str) -> str:
        return f"`{self.database}`.`{table}`"

    def _location(self, table: str) -> str:
        return f"{self.warehouse.rstrip('/')}/{self.database}.db/{table}"

    def prepare(self, tables: list[str]) -> None:
        return None

    def data_schema(self, table: str, timestamp_column: str = "_kafka_timestamp") -> StructType | None:
        if not self.spark.catalog.tableExists(table, self.database):
            return None
        return self.spark.table(self._qualified(table)).schema

    def ensure(
        self,
        table: str,
        data_schema: StructType,
        timestamp_column: str = "_kafka_timestamp",
        avro_schema: str | None = None,
    ) -> TableState:
        current = self.data_schema(table)
        if current is None:
            self.spark.sql(
                f"CREATE TABLE {self._qualified(table)} ({columns_ddl(self.spark, data_schema)}) "
                f"USING parquet LOCATION '{self._location(table)}'"
            )
            return TableState("created", self._location(table))
        plan = plan_evolution(current, data_schema)
        if not plan.changes:
            return TableState("unchanged", self._location(table))
        if any(change.kind not in ("added", "widened") for change in plan.changes):
            raise ValueError(f"parquet directories add and widen columns only: {plan.changes}")
        # A table over a directory: defined again over the same files (Spark's Parquet reader widens the
        # older files' values as it reads them).
        self.spark.sql(f"DROP TABLE {self._qualified(table)}")
        self.spark.sql(
            f"CREATE TABLE {self._qualified(table)} ({columns_ddl(self.spark, plan.schema)}) "
            f"USING parquet LOCATION '{self._location(table)}'"
        )
        return TableState("evolved", self._location(table), plan.changes)

    def held_offsets(self, table: str, topic: str, topic_id: str | None) -> dict[int, int]:
        return {}  # the run's manifest is the truth, as for Hive

    def append(self, append: Append) -> StagedTable | None:
        staged = f"{append.staging_dir}/{append.table}"
        append.rows.write.mode("overwrite").parquet(staged)
        files = [f for f in self.store.list(staged) if f.rsplit("/", 1)[-1].startswith("part-")]
        moves = [(f, f"{append.state.location}/{f.rsplit('/', 1)[-1]}") for f in files]
        return StagedTable(f"{self.database}.{append.table}", moves, [])

    def appends_groups(self) -> bool:
        return False

    def writes_alone_as_group(self) -> bool:
        return False

    def groups_hint(self) -> str | None:
        return None

    def append_group(self, rows: DataFrame, members: list[GroupMember]) -> list[GroupAppend]:
        raise AssertionError("never asked: appends_groups is False")

    def add_partitions(self, qualified_table: str, partitions: list[dict[str, str]]) -> None:
        self.spark.catalog.refreshTable(qualified_table)  # no partitions; new files to list

    def current_state_refusal(self) -> str | None:
        return REFUSAL

    def ensure_current(
        self, table: str, data_schema: StructType, avro_schema: str | None = None
    ) -> TableState:
        raise ValueError(REFUSAL)

    def merge_current(self, merge: CurrentMerge) -> None:
        raise ValueError(REFUSAL)

    def after_commit(self, report: RunReport, warn: Callable[[str], None]) -> None:
        return None


def _open(spark: SparkSession, store: StateFiles, place: FormatPlace, run_id: str) -> ParquetDirectories:
    return ParquetDirectories(spark, StateStore(spark, place.warehouse), place.warehouse, place.database)


def _maintain(spark: SparkSession, store: StateFiles, request: MaintainRequest) -> Maintained:
    """Parquet directories are not compacted: each of the database's tables is looked at and left."""
    listed = (
        spark.catalog.listTables(request.database) if spark.catalog.databaseExists(request.database) else []
    )
    names = sorted(t.name for t in listed if not t.isTemporary)
    left = [PartitionAction(f"{request.database}.{n}", "", "nothing to compact") for n in names]
    return Maintained(len(names), "Parquet directory table", left)


@pytest.fixture
def harness(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> Iterator[Harness]:
    """The format registered where a new format would be, and nowhere else."""
    hive = preflight.PREFLIGHTS["hive"]
    own = preflight.Preflight(lambda _: None, lambda _: None, lambda _: {}, lambda _: [])
    assert own.refuses_settings != hive.refuses_settings
    monkeypatch.setitem(preflight.PREFLIGHTS, NAME, own)
    monkeypatch.setitem(lookup.FORMATS, NAME, FormatOpeners(_open, lambda _spark, _table: None, (_maintain,)))
    harness.table_format = NAME
    yield harness


# The in-process suite's scenarios that hold for any format (`test_load_job`), run on this one.
SCENARIOS = [
    test_load_job.test_second_run_loads_only_what_arrived_and_an_empty_run_changes_nothing,
    test_load_job.test_new_topic_and_new_partition_are_picked_up_without_configuration,
    test_load_job.test_topics_without_a_schema_are_skipped_with_the_reason,
    test_load_job.test_topic_names_colliding_after_mapping_are_refused,
    test_load_job.test_bad_records_are_quarantined_and_never_block_good_ones,
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__.removeprefix("test_"))
def test_the_in_process_scenarios_hold_on_a_third_format(
    scenario: Callable[[Harness, SparkSession], None], harness: Harness, spark: SparkSession
) -> None:
    scenario(harness, spark)


def test_maintain_reaches_the_third_format_s_tables_through_the_lookup(
    harness: Harness, spark: SparkSession
) -> None:
    empty = maintain(harness.settings(), spark)
    assert (empty.exit_code, empty.verdict) == (
        0,
        "nothing to maintain: the database has no Parquet directory table",
    )
    topic = harness.topic()
    harness.produce(topic, test_load_job.V1, [test_load_job.v(1, 0)])
    [loaded] = [t for t in harness.run(spark).topics if t.topic == topic]
    report = maintain(harness.settings(), spark)
    assert report.error is None
    assert (report.exit_code, report.verdict) == (0, "done")
    assert (loaded.table, "nothing to compact") in {(a.table, a.action) for a in report.actions}
