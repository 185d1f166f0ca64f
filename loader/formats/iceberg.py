"""Apache Iceberg tables: each append is one Iceberg commit (one snapshot) that names, in its summary, the
Kafka offsets the table holds of the topic, so the table itself says what it holds and a run needs no file
moves. See docs/loader.md, "The Iceberg commit".

The summary property `loader.kafka.<topic>` is JSON, `{"topic_id": ..., "offsets": {"<partition>":
<end offset>}}`, cumulative: the newest snapshot that carries it says everything the table holds of that
topic. The quarantine table is shared by topics, so its appends go one at a time and carry every topic's
property forward. Snapshots made by others (compaction) carry none: the newest ancestor that does counts.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from py4j.protocol import Py4JJavaError
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from loader.formats import Append, CurrentMerge, GroupAppend, GroupMember, columns_ddl
from loader.formats.iceberg_alter import rename_columns, update_columns
from loader.formats.iceberg_current import DELETE, MERGE_ON_READ, current_changes, merge_with_properties
from loader.formats.iceberg_groups import (
    MemberTable,
    clustered_by_time,
    snapshot_options,
    write_members,
    writer_available,
)
from loader.formats.iceberg_schema import schema_updates, without_defaults
from loader.formats.metastore import add_partitions
from loader.formats.metastore_tables import MetastoreTables
from loader.formats.run_tables import check_run_tables
from loader.formats.table_rows import conformed
from loader.outcome.fault_injection import crash_point
from loader.outcome.report import RunReport
from loader.planning.commit_protocol import StagedTable
from loader.planning.freshness import PROPERTY as VALID_THROUGH
from loader.planning.state_store import StateFiles
from loader.reading.sql_text import identifier, string_literal
from loader.runtime.java_values import java_class
from loader.schema.alias_renames import field_aliases, implied_renames, renamed
from loader.schema.column_defaults import field_defaults
from loader.schema.partitioning import Granularity
from loader.schema.table_evolution import ColumnChange, TableState, plan_evolution

SUMMARY_PREFIX = "loader.kafka."
# Version 3: the first with default values of columns (`initial-default`, read by rows written before).
DEFAULTS_FROM_VERSION = 3
# How far back a table's snapshots are searched for the loader's property (past compactions).
MAX_ANCESTORS = 100


def summary_key(topic: str) -> str:
    return SUMMARY_PREFIX + topic


def summary_value(topic_id: str | None, offsets: dict[int, int]) -> str:
    return json.dumps({"topic_id": topic_id, "offsets": {str(p): o for p, o in sorted(offsets.items())}})


def held_in(summary: dict[str, str], topic: str, topic_id: str | None) -> dict[int, int] | None:
    """What a snapshot summary says the table holds of the topic; None when it says nothing of it. Offsets
    of another topic of the same name (a recreated one, another id) are nothing this topic's."""
    value = summary.get(summary_key(topic))
    if value is None:
        return None
    data = json.loads(value)
    if topic_id and data.get("topic_id") and data["topic_id"] != topic_id:
        return {}
    return {int(p): int(o) for p, o in data.get("offsets", {}).items()}


def cumulative(held: dict[int, int], offsets: dict[int, int]) -> dict[int, int]:
    return {p: max(held.get(p, 0), offsets.get(p, 0)) for p in sorted({*held, *offsets})}


@dataclass
class IcebergFormat:
    spark: SparkSession
    database: str
    granularity: Granularity
    # The metastore's view of the run's tables, and where the warehouse is: what `prepare` checks (None:
    # a format opened to read one table's state, not for a run).
    catalog: MetastoreTables | None = None
    store: StateFiles | None = None
    warehouse: str = ""
    name: str = "iceberg"
    format_version: int = 3  # of the tables it creates; a table keeps its own
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Appends to one table go one at a time (the quarantine's, from several topics' passes).
    _append_locks: dict[str, threading.Lock] = field(default_factory=dict)
    # The data columns of each table the run has looked at (None: no such table), kept current by the
    # run's own DDL, as the Hive format's catalog does: read once per run rather than by each step of
    # each pass that needs them (making sure of the table, the offsets it holds).
    _schemas: dict[str, StructType | None] = field(default_factory=dict)
    # Each such table as Iceberg's catalog gave it then, and the loader's properties of its newest
    # snapshot: a look-up is a catalog call (a metastore's `getTable`), which a table's steps made six
    # times a run. A topic's own table takes one append a run, by its pass or its group, and Iceberg's
    # commit reads the table's newest metadata itself; what another writer (a compaction) committed
    # meanwhile is kept under the append. The shared quarantine table is read afresh for each append.
    _tables: dict[str, Any] = field(default_factory=dict)
    _summaries: dict[str, dict[str, str]] = field(default_factory=dict)

    def _qualified(self, table: str) -> str:
        return f"{self.database}.{table}"

    def _iceberg_table(self, table: str):  # type: ignore[no-untyped-def]
        """The table as the run last read it, read now if it has not (raising if there is none)."""
        if self._tables.get(table) is None:
            self._tables[table] = self._catalog().loadTable(self._identifier(table))
        return self._tables[table]

    def _load(self, table: str):  # type: ignore[no-untyped-def]
        """The table's newest metadata through Iceberg's catalog itself, in one look-up (None: no such
        table); the session catalog would answer a failed look-up with the metastore's view of the table,
        which is not Iceberg's. Iceberg's catalog caches tables, and another application may have changed
        this one: its cached entry is dropped first."""
        catalog, identifier = self._catalog(), self._identifier(table)
        catalog.invalidateTable(identifier)
        try:
            loaded = catalog.loadTable(identifier)
        except Py4JJavaError as exc:
            if not str(exc.java_exception.getClass().getName()).endswith(".NoSuchTableException"):
                raise
            loaded = None
        self._tables[table] = loaded
        self._summaries.pop(table, None)
        return loaded

    def _forget(self, table: str) -> None:
        """After the run's own commit to `table`: what it read of it before is not the newest now."""
        self._tables.pop(table, None)
        self._summaries.pop(table, None)

    def _catalog(self):  # type: ignore[no-untyped-def]
        self._activate()
        return java_class(self.spark, "org.apache.iceberg.spark.Spark3Util").loadIcebergCatalog(
            self.spark._jsparkSession, "spark_catalog"
        )

    def _identifier(self, table: str):  # type: ignore[no-untyped-def]
        identifiers = java_class(self.spark, "org.apache.iceberg.catalog.TableIdentifier")
        return identifiers.parse(self._qualified(table))

    def _activate(self) -> None:
        """Makes the session the active one of this thread: a pass runs in a thread of its own, where the
        session catalog would otherwise be Spark's plain one instead of Iceberg's."""
        sessions = java_class(self.spark, "org.apache.spark.sql.SparkSession")
        sessions.setActiveSession(self.spark._jsparkSession)

    def prepare(self, tables: list[str]) -> None:
        if self.catalog is None or self.store is None:
            raise RuntimeError("an Iceberg format opened without its catalog cannot check a run's tables")
        check_run_tables(self.catalog, self.store, self.warehouse, self.name, tables)

    def add_partitions(self, qualified_table: str, partitions: list[dict[str, str]]) -> None:
        """An Iceberg append stages nothing for the manifest (its snapshot holds its partitions): only a
        manifest a Hive-format run left to complete lists partitions, registered as that run would have."""
        add_partitions(self.spark, qualified_table, partitions)

    def after_commit(self, report: RunReport, warn: Callable[[str], None]) -> None:
        """Nothing: each append's snapshot recorded the table's valid-through in its summary."""

    def data_schema(self, table: str, timestamp_column: str = "_kafka_timestamp") -> StructType | None:
        if table not in self._schemas:
            self._schemas[table] = self._read_schema(table)
        return self._schemas[table]

    def _read_schema(self, table: str) -> StructType | None:
        """The table's columns as Spark sees them (`SparkTable.schema` makes the same conversion), from
        its newest metadata."""
        iceberg_table = self._load(table)
        return None if iceberg_table is None else self._spark_schema(iceberg_table)

    def _spark_schema(self, iceberg_table) -> StructType:  # type: ignore[no-untyped-def]
        schemas = java_class(self.spark, "org.apache.iceberg.spark.SparkSchemaUtil")
        converted = schemas.convert(iceberg_table.schema())
        return StructType.fromJson(json.loads(converted.json()))

    def ensure(
        self,
        table: str,
        data_schema: StructType,
        timestamp_column: str = "_kafka_timestamp",
        avro_schema: str | None = None,
    ) -> TableState:
        current = self.data_schema(table)
        if current is None:
            self._create(table, data_schema, timestamp_column)
            self._schemas[table] = self._read_schema(table)
            return TableState("created", self._location(table))
        renames = implied_renames(current, data_schema, field_aliases(avro_schema)) if avro_schema else []
        plan = plan_evolution(renamed(current, renames), data_schema)
        # Decided in full before the first commit: a change Iceberg refuses leaves the table as it was.
        updates = schema_updates(plan, field_defaults(avro_schema) if avro_schema else {})
        if not renames and not updates:
            return TableState("unchanged", self._location(table))
        iceberg_table = self._iceberg_table(table)
        if self._version_of(iceberg_table) < DEFAULTS_FROM_VERSION:  # added columns read NULL in old rows
            updates = without_defaults(updates)
        if renames:
            rename_columns(iceberg_table, renames)
        if updates:
            update_columns(self.spark, iceberg_table, updates)
        self.spark.catalog.refreshTable(self._qualified(table))
        self._schemas[table] = self._read_schema(table)
        changes = [ColumnChange("renamed", r.path, new_name=r.new_name) for r in renames]
        return TableState("evolved", self._location(table), [*changes, *plan.changes])

    def _create(
        self, table: str, data_schema: StructType, timestamp_column: str | None, properties: str = ""
    ) -> None:
        """DDL, not an empty frame written: that would commit an empty snapshot before the first load.
        Format version 3 unless told 2: with 3 a column added later carries its Avro default as
        `initial-default` (and row-level changes are deletion vectors). No time partitions without
        `timestamp_column`."""
        transform = "hours" if self.granularity == "hour" else "days"
        partitioned = f"PARTITIONED BY ({transform}(`{timestamp_column}`)) " if timestamp_column else ""
        self.spark.sql(
            f"CREATE TABLE {self._qualified(table)} ({columns_ddl(self.spark, data_schema)}) USING iceberg "
            f"{partitioned}TBLPROPERTIES ('format-version'='{self.format_version}'{properties})"
        )

    def _version_of(self, iceberg_table) -> int:  # type: ignore[no-untyped-def]
        """The table's format version, as its metadata says."""
        return int(java_class(self.spark, "org.apache.iceberg.TableUtil").formatVersion(iceberg_table))

    def current_state_refusal(self) -> str | None:
        return None

    def ensure_current(
        self, table: str, data_schema: StructType, avro_schema: str | None = None
    ) -> TableState:
        """A current-state table is not partitioned by time (a key's row would move between partitions,
        and a merge would search them all) and is merge-on-read (`loader.formats.iceberg_current`)."""
        if self.data_schema(table) is None:
            properties = "".join(f", '{k}'='{v}'" for k, v in MERGE_ON_READ.items())
            self._create(table, data_schema, None, properties)
            self._schemas[table] = self._read_schema(table)
            return TableState("created", self._location(table))
        return self.ensure(table, data_schema, avro_schema=avro_schema)

    def merge_current(self, merge: CurrentMerge) -> None:
        """One MERGE INTO of the latest change per key the table does not hold yet, whose snapshot names
        the topic's offsets (cumulative, as an append's): the rows and the offsets commit together."""
        self._activate()
        schema = current_changes(merge.rows, merge.envelope, {}).drop(DELETE).schema
        with self.lock:
            self.ensure_current(merge.table, schema, None if merge.envelope else merge.avro_schema)
            table_lock = self._append_locks.setdefault(merge.table, threading.Lock())
        with table_lock:
            self._load(merge.table)
            carried = self._loader_summary(merge.table)
            held = held_in(carried, merge.topic, merge.topic_id) or {}
            properties = {
                **carried,
                summary_key(merge.topic): summary_value(merge.topic_id, cumulative(held, merge.offsets)),
                **merge.properties,
            }
            changes = current_changes(merge.rows, merge.envelope, held)
            merge_with_properties(self.spark, self._qualified(merge.table), changes, properties)
            self._forget(merge.table)
        crash_point("after_current_commit")

    def _location(self, table: str) -> str:
        return str(self._iceberg_table(table).location())

    def held_offsets(self, table: str, topic: str, topic_id: str | None) -> dict[int, int]:
        if self.data_schema(table) is None:
            return {}
        return held_in(self._loader_summary(table), topic, topic_id) or {}

    def _loader_summary(self, table: str) -> dict[str, str]:
        """Every topic's property of the newest snapshot that carries the loader's properties, of the
        table as the run last read it."""
        if table not in self._summaries:
            iceberg_table = self._iceberg_table(table)
            snapshot = newest_loader_snapshot(self.spark, iceberg_table, MAX_ANCESTORS, refresh=False)
            self._summaries[table] = snapshot.summary if snapshot is not None else {}
        return self._summaries[table]

    def append(self, append: Append) -> StagedTable | None:
        self._activate()
        with self.lock:
            table_lock = self._append_locks.setdefault(append.table, threading.Lock())
        with table_lock:
            iceberg_table = self._load(append.table)  # the quarantine's is appended by several passes
            carried = self._loader_summary(append.table)
            held = held_in(carried, append.topic, append.topic_id) or {}
            properties = {
                **carried,
                summary_key(append.topic): summary_value(append.topic_id, cumulative(held, append.offsets)),
                **append.properties,
            }
            # The columns of the metadata just read (a column added by hand meanwhile gets NULL).
            table_schema = self._spark_schema(iceberg_table)
            writer = conformed(append.rows, table_schema).writeTo(self._qualified(append.table))
            # Each task sorts its rows by the table's partition and writes its own files, as Hive's writer
            # does: Iceberg's default for a partitioned table (`hash`) shuffles every row first.
            writer = writer.option("distribution-mode", "none")
            for key, value in properties.items():
                writer = writer.option(f"snapshot-property.{key}", value)
            writer.append()
            self._forget(append.table)
        crash_point("after_iceberg_commit")
        return None

    def appends_groups(self) -> bool:
        """With the loader's writer on the classpath (see `iceberg_groups`)."""
        return writer_available(self.spark)

    def writes_alone_as_group(self) -> bool:
        """No: Spark's own append of a busy topic was 1.03x to 1.20x faster than the group writer's
        (benchmarks/JOURNAL.md, "Small Iceberg topics in one write job")."""
        return False

    def groups_hint(self) -> str | None:
        if self.appends_groups():
            return None
        return (
            "the loader's writer jar is not on Spark's classpath (scripts/fetch-jars builds it; spark-submit "
            "needs it in --jars)"
        )

    def append_group(self, rows: DataFrame, members: list[GroupMember]) -> list[GroupAppend]:
        """One job writes every member's files; each member's `keep` commits its table's snapshot, with
        the summary its own append would have. A member's table is its topic's alone (the shared
        quarantine table is never a member), so no other pass appends to it meanwhile."""
        self._activate()
        tables = []
        for member in members:
            iceberg_table = self._iceberg_table(member.table)
            carried = self._loader_summary(member.table)
            held = held_in(carried, member.topic, member.topic_id) or {}
            properties = {
                **carried,
                summary_key(member.topic): summary_value(member.topic_id, cumulative(held, member.offsets)),
                **member.properties,
            }
            clustered = clustered_by_time(self.spark, iceberg_table, "_kafka_timestamp")
            columns = self.data_schema(member.table)
            assert columns is not None, "a member's table was made sure of before its rows were written"
            options = snapshot_options(properties, clustered)
            forget = functools.partial(self._forget, member.table)
            tables.append(MemberTable(self._qualified(member.table), columns, options, forget))
        return list(write_members(self.spark, rows, tables))


@dataclass(frozen=True)
class LoaderSnapshot:
    """The newest snapshot that carries the loader's properties."""

    timestamp_millis: int  # when it was committed
    summary: dict[str, str]  # the loader's properties of it (`loader.kafka.<topic>`) alone


def newest_loader_snapshot(  # type: ignore[no-untyped-def]
    spark: SparkSession, iceberg_table, limit: int | None = None, refresh: bool = True
) -> LoaderSnapshot | None:
    """The newest snapshot carrying the loader's properties, from the current one back through its
    ancestors (at most `limit` of them): snapshots others made (compactions) carry none. `refresh`: of
    the table's newest metadata first (not of a table just read)."""
    if refresh:
        iceberg_table.refresh()
    snapshot = iceberg_table.currentSnapshot()
    looked = 0
    while snapshot is not None and (limit is None or looked < limit):
        summary = _loader_properties(spark, snapshot)
        if summary:
            return LoaderSnapshot(int(snapshot.timestampMillis()), summary)
        looked += 1
        parent = snapshot.parentId()
        snapshot = iceberg_table.snapshot(parent) if parent is not None else None
    return None


def _loader_properties(spark: SparkSession, snapshot) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The snapshot's summary properties of the loader, from the snapshot as JSON in one call: reading the
    summary as a Java map from Python costs two calls per property (about 11 ms against 1 here)."""
    as_json = json.loads(str(java_class(spark, "org.apache.iceberg.SnapshotParser").toJson(snapshot)))
    return {k: str(v) for k, v in as_json.get("summary", {}).items() if k.startswith(SUMMARY_PREFIX)}


def read_valid_through(spark: SparkSession, qualified: str) -> str | None:
    """The `loader.valid-through` of the table's newest snapshot that records one; None when none does."""
    name = ".".join(identifier(part) for part in qualified.split(".", 1))
    key = string_literal(VALID_THROUGH)
    rows = spark.sql(
        f"SELECT summary[{key}] AS v FROM {name}.snapshots WHERE summary[{key}] IS NOT NULL "
        "ORDER BY committed_at DESC LIMIT 1"
    ).collect()
    return str(rows[0]["v"]) if rows else None
