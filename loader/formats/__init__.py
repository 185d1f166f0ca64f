"""Table formats: how the loader makes sure a table can hold a schema, appends one run's rows of one topic
with the Kafka offsets they cover, says which offsets a table already holds, and commits.

The run (`loader.run`, `loader.job`) speaks only this interface, and finds a format by its name
(`loader.formats.lookup`); the settings, their checks and the Spark session learn what a format needs and
refuses before a run opens it from `loader.formats.preflight`. Adding a format or a catalog touches only
this folder (but for `loader maintain`, which still names the two formats). Each format commits in its own
way: `loader.formats.hive` stages ORC files that the run's manifest moves into place and whose
partitions it registers (`loader.planning.commit_protocol`, completed through `add_partitions`), and records
a table's valid-through after the commit point; `loader.formats.iceberg` commits each append as one Iceberg
snapshot that names its offsets and valid-through, and stages nothing for the manifest.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from loader.outcome.report import RunReport
from loader.planning.commit_protocol import StagedTable
from loader.runtime import spark_internals as internals
from loader.schema.table_evolution import TableState


@dataclass(frozen=True)
class Append:
    """One topic's rows for one table in one run."""

    table: str  # unqualified
    state: TableState  # what `ensure` said of the table
    rows: DataFrame
    topic: str
    topic_id: str | None  # Kafka's id of the topic: offsets of a recreated topic are not the old one's
    offsets: dict[int, int]  # partition -> the end offset the rows cover (exclusive)
    staging_dir: str  # where a format that stages files puts them (the run's own directory)
    timestamp_column: str = "_kafka_timestamp"
    # Properties the commit records of the table (Iceberg: in the snapshot's summary), such as
    # `loader.valid-through` (see `loader.planning.freshness`).
    properties: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class GroupMember:
    """One topic's table among the tables of a query over several small topics (see `append_group`)."""

    table: str  # unqualified
    state: TableState  # what `ensure` said of the table
    topic: str
    topic_id: str | None
    offsets: dict[int, int]  # partition -> the end offset the rows cover (exclusive)
    staging_dir: str
    records: int  # the most rows it can get: the offsets its ranges span
    # As `Append.properties`: what the commit records of the table (Iceberg: in the snapshot's summary).
    properties: dict[str, str] = field(default_factory=dict)


class GroupAppend(Protocol):
    """One member's rows of a group's write job: kept once the run has counted them (staged for the
    run's manifest, or committed at once), or thrown away (the topic is then loaded by a pass of its
    own)."""

    rows: int  # the rows written of the member

    def keep(self) -> StagedTable | None:
        """Stages the member's files for the run's manifest (returned), or commits them at once (None)."""
        ...

    def discard(self) -> None:
        """Throws the member's written files away; its table is left as it was."""
        ...


@dataclass(frozen=True)
class CurrentMerge:
    """One topic's records of one run for its current-state table (see `loader.schema.current_state`):
    its history rows (the columns of its append table), of which the format keeps the latest per key."""

    table: str  # unqualified
    rows: DataFrame
    envelope: bool  # the rows are Debezium change envelopes: `op` says, `after` is the row
    topic: str
    topic_id: str | None
    offsets: dict[int, int]  # partition -> the end offset the rows cover (exclusive)
    properties: dict[str, str] = field(default_factory=dict)
    avro_schema: str | None = None  # the latest value schema (what `ensure` takes it for)


# The columns of a query over several topics' tables: which member a row is (NULL: no table's row), its
# Kafka timestamp (the time partition), and each member's rows as one struct column.
GROUP_MEMBER = "__loader_member"
GROUP_TIMESTAMP = "__loader_timestamp"


def group_rows_column(member: int) -> str:
    return f"__loader_rows_{member}"


class TableFormat(Protocol):
    """A format of the tables of one run (one instance per run; thread-safe for the run's passes)."""

    name: str  # as the settings name it: `--table-format`
    # Held while a pass reads a table's schema and makes sure of it (table DDL goes one table at a time).
    lock: threading.Lock

    def prepare(self, tables: list[str]) -> None:
        """Learns what the catalog knows of the tables the run may write (unqualified names), and refuses
        them (raises) when one of them is in another warehouse or of another format than this one."""
        ...

    def data_schema(self, table: str, timestamp_column: str = "_kafka_timestamp") -> StructType | None:
        """The table's data columns, or None when it does not exist."""
        ...

    def ensure(
        self,
        table: str,
        data_schema: StructType,
        timestamp_column: str = "_kafka_timestamp",
        avro_schema: str | None = None,
    ) -> TableState:
        """Creates the table, or evolves it to hold `data_schema` (raises UnrepresentableChange). Call with
        `lock` held. `avro_schema` is the latest schema the rows follow: a format that keeps columns by id
        (Iceberg) takes from it the defaults of added fields and the renames its aliases imply."""
        ...

    def held_offsets(self, table: str, topic: str, topic_id: str | None) -> dict[int, int]:
        """Partition -> the end offset of `topic` up to which the table holds its records by its own
        account; empty when the format keeps no such account (the run's manifest is then the truth)."""
        ...

    def append(self, append: Append) -> StagedTable | None:
        """Writes the rows: staged for the run's manifest (returned), or committed at once (None)."""
        ...

    def appends_groups(self) -> bool:
        """Whether `append_group` can write the tables of several topics in one query. A group's rows are
        not checked against the offsets a table holds by its own account (`held_offsets`): a topic whose
        table holds some of the offsets it reads is loaded by a pass of its own."""
        ...

    def writes_alone_as_group(self) -> bool:
        """Whether a topic's own pass hands its rows to `append_group`, as a group of one whose writer
        counts the rows it writes, rather than to `append` (where an observation counts them)."""
        ...

    def groups_hint(self) -> str | None:
        """Why `appends_groups` is False when it is for something the user can set right (None when it
        is True, or when the format never writes groups)."""
        ...

    def append_group(self, rows: DataFrame, members: list[GroupMember]) -> list[GroupAppend]:
        """Writes each member's rows (see `GROUP_MEMBER`) in one Spark job; returns each member's write,
        in the members' order, for the run to keep or throw away."""
        ...

    def add_partitions(self, qualified_table: str, partitions: list[dict[str, str]]) -> None:
        """Registers a staged table's partitions once the manifest moved its files into place (the last
        step of completing a commit; IF NOT EXISTS, so it can be redone)."""
        ...

    def current_state_refusal(self) -> str | None:
        """Why the format keeps no current-state tables (None: it keeps them)."""
        ...

    def ensure_current(
        self, table: str, data_schema: StructType, avro_schema: str | None = None
    ) -> TableState:
        """Creates a current-state table (no time partitions: a key's row moves in time), or evolves it as
        `ensure` does. Call with `lock` held."""
        ...

    def merge_current(self, merge: CurrentMerge) -> None:
        """Makes sure of the table (`ensure_current`), then applies the latest change of each key the table
        does not hold yet, committed together with the topic's offsets."""
        ...

    def after_commit(self, report: RunReport, warn: Callable[[str], None]) -> None:
        """What the format records once the run's commit is complete (a table's valid-through, where its
        appends did not record it themselves); a refusal is a warning, never a failed run."""
        ...


def already_held(held: dict[int, int], partition: str, offset: str) -> Column:
    """Whether a row's record is one the table holds already: its offset is below the end the table holds
    of its partition (a run stopped after the table's commit and before its manifest loaded it)."""
    condition = F.lit(False)
    for p, end in sorted(held.items()):
        condition = condition | ((F.col(partition) == p) & (F.col(offset) < end))
    return condition


def columns_ddl(spark: SparkSession, schema: StructType) -> str:
    """The columns of a CREATE TABLE statement (with their comments), as Spark itself writes them."""
    return str(internals.parse_data_type(spark, schema).toDDL())
