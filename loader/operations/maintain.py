"""`loader maintain`: compacts the small files that every run adds to a time partition, once the
partition is closed, without readers ever seeing a partial or doubled partition.

A Hive ORC partition is compacted by writing its rows into a new directory
(`<table>/_compacted/<maintain run id>/dt=.../hour=...`) and then pointing the metastore's partition
there, all of a table's compacted partitions in one request: a query plans with the old directory or the
new one. The old files stay for `maintain-grace-minutes`, for queries that listed them before the switch,
and a later maintain run removes them. Each compaction is recorded in the state directory before its
directory is written (`loader.operations.relocation_record`), so a run killed anywhere leaves nothing a
reader sees and nothing a later run cannot finish or undo.

Iceberg tables (with `table-format = iceberg`) are maintained through Iceberg's own procedures instead
(`loader.operations.iceberg_maintenance`): each is one Iceberg commit, and needs no record. They are the
tables Iceberg's own catalog lists, whichever kind it is (metastore, Hadoop, REST). A REST catalog's
database is also locked in the catalog (`loader.formats.catalog_lock`), as a run locks it, so that a loader
of another state directory does not write while maintain works.

The report says what was found as well as what was done: a database with no table to maintain is said to
be so ("nothing to maintain"), never "done".

Maintain holds the run lock throughout: a load never runs beside it (one started meanwhile exits 75, as
beside another load), and it first completes a load's committed manifest that a kill left unapplied, so
that every file of a committed run is in its partition before that partition is rewritten.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

from pyspark.sql import SparkSession
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from loader import printed
from loader.config import LoaderSettings
from loader.formats.catalog_lock import CatalogUnavailable, catalog_lock_files
from loader.formats.hive.metastore import add_partitions
from loader.formats.lookup import open_state
from loader.operations.compaction_plan import Cleanup, Compaction, cleanup_decision, plan_compactions
from loader.operations.hive_partitions import (
    HiveTable,
    current_location,
    list_partitions,
    loader_tables,
    mark_relocated,
    rewrite_partition,
    switch_locations,
)
from loader.operations.iceberg_maintenance import (
    NotTimePartitioned,
    TablesNotListed,
    iceberg_tables,
    maintain_table,
)
from loader.operations.lock import LockHeld, RunLock
from loader.operations.relocation_record import Relocation, RelocationLog
from loader.outcome.fault_injection import crash_point
from loader.outcome.report import EXIT_FAILED, EXIT_LOCKED
from loader.planning.commit_protocol import CommitLog
from loader.planning.state_store import StateFiles
from loader.runtime.spark_errors import first_line
from loader.runtime.spark_session import forget_cached_tables
from loader.warehouse_layout import MetastoreUnavailable, WarehouseMismatch, check_layout

COMPACTED_DIR = "_compacted"  # under a table's directory; `_` keeps it out of every reader's listing
# Where tests kill `loader maintain` (LOADER_CRASH_AT), besides anywhere by time.
CRASH_POINTS = ("maintain_after_record", "maintain_after_rewrite", "maintain_after_switch")


@dataclass(frozen=True)
class PartitionAction:
    table: str
    partition: str
    action: str
    files_before: int = 0
    files_after: int = 0
    rows: int = 0
    detail: str = ""


@dataclass
class MaintainReport:
    run_id: str
    database: str
    actions: list[PartitionAction] = field(default_factory=list)
    error: str | None = None
    locked: bool = False  # another run held the lock: nothing was done
    seconds: float = 0.0
    tables: int = 0  # the tables looked at (each Hive table compacted by partition, each Iceberg table)
    # What holds the Iceberg tables that were looked for ("the hadoop catalog"); "" for Hive tables.
    iceberg_catalog: str = ""

    @property
    def verdict(self) -> str:
        """What the run amounts to, in a few words: never "done" when there was nothing to do it to."""
        if self.exit_code != 0:
            return "not all done"
        if self.tables == 0 and not self.actions:
            kind = f"Iceberg table in {self.iceberg_catalog}" if self.iceberg_catalog else "loader's table"
            return f"nothing to maintain: the database has no {kind}"
        return "done"

    @property
    def exit_code(self) -> int:
        if self.locked:
            return EXIT_LOCKED
        if self.error or any(a.action == "failed" for a in self.actions):
            return EXIT_FAILED
        return 0


def maintain(
    settings: LoaderSettings,
    spark: SparkSession,
    lock: RunLock | None = None,
    now: datetime | None = None,
) -> MaintainReport:
    """Runs maintenance once under the run lock (`lock` may come already held; it is released here).
    Never raises for a partition's trouble, which goes into the report."""
    started = time.monotonic()
    now = now or datetime.now(UTC)
    report = MaintainReport(now.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8], settings.database)
    store = open_state(spark, settings.state_location, settings.iceberg)
    lock = lock or RunLock(settings.state_location, store)
    lock.store = store
    # A catalog that places its tables itself holds the database's own lock, as for a run.
    files = catalog_lock_files(spark, settings.iceberg, settings.database) if _iceberg(settings) else None
    held_in_catalog = RunLock(settings.state_location, files, files.location) if files else None
    try:
        if not lock.held and store.atomic_create:  # else the catalog's lock is the lock
            lock.acquire()
        if held_in_catalog is not None:
            held_in_catalog.acquire()
        _maintain(settings, spark, store, report, now)
    except LockHeld as held:
        report.error, report.locked = str(held), True
    except (WarehouseMismatch, MetastoreUnavailable, CatalogUnavailable, TablesNotListed) as exc:
        report.error = str(exc)
    except Exception as exc:  # what was switched stays switched; the records say what is left to do
        report.error = f"maintenance stopped: {type(exc).__name__}: {first_line(exc, 500)}"
    finally:
        if held_in_catalog is not None:
            try:
                held_in_catalog.release()
            except CatalogUnavailable as left:  # what was maintained stays maintained; the lock stays
                report.error = f"{report.error}; {left}" if report.error else str(left)
        lock.release()
        forget_cached_tables(spark)
        report.seconds = round(time.monotonic() - started, 2)
    return report


def _maintain(
    settings: LoaderSettings, spark: SparkSession, store: StateFiles, report: MaintainReport, now: datetime
) -> None:
    check_layout(spark, settings.warehouse, settings.database)  # never touch another lake's tables
    CommitLog(store, add_partitions=lambda table, specs: add_partitions(spark, table, specs)).recover()
    forget_cached_tables(spark)
    pending = _finish_earlier_runs(spark, store, report, now, settings)
    policy = settings.compaction_policy()
    hive_tables = list(loader_tables(spark, store, settings.database))
    report.tables += len(hive_tables)
    for table in hive_tables:
        partitions = list_partitions(spark, store, settings.database, table)
        _sweep_orphans(store, table, [p.location for p in partitions], pending, now, settings)
        planned = plan_compactions(partitions, policy, now)
        _compact(spark, store, settings.database, table, planned, report, now)
    if _iceberg(settings):  # only such a session knows Iceberg's procedures
        report.iceberg_catalog = f"the {settings.iceberg_catalog} catalog"
        names = iceberg_tables(spark, settings.database)
        report.tables += len(names)
        for name in names:
            report.actions.append(_maintain_iceberg(spark, settings, name, now))


def _iceberg(settings: LoaderSettings) -> bool:
    return settings.table_format == "iceberg"


def _maintain_iceberg(
    spark: SparkSession, settings: LoaderSettings, table: str, now: datetime
) -> PartitionAction:
    qualified = f"{settings.database}.{table}"
    try:
        done = maintain_table(spark, settings, settings.database, table, now)
    except NotTimePartitioned as exc:
        return PartitionAction(qualified, "", "skipped", detail=str(exc))
    except Exception as exc:  # Iceberg commits all or nothing: the table is as it was
        return PartitionAction(qualified, "", "failed", detail=first_line(exc, 300) or type(exc).__name__)
    return PartitionAction(
        qualified,
        f"before {done.closed_before:%Y-%m-%d %H:%M} UTC",
        "compacted" if done.rewritten_files else "nothing to compact",
        done.rewritten_files,
        done.added_files,
        detail=(
            f"{done.expired_snapshots} snapshot(s) expired, {done.deleted_files} replaced file(s) deleted, "
            f"{done.orphan_files} orphan file(s) removed"
        ),
    )


def _finish_earlier_runs(
    spark: SparkSession, store: StateFiles, report: MaintainReport, now: datetime, settings: LoaderSettings
) -> list[Relocation]:
    """Completes or undoes what earlier runs recorded; returns the relocations still waiting."""
    waiting = []
    log = RelocationLog(store)
    for relocation in log.read_all():
        where = current_location(spark, store, relocation.table, relocation.spec)
        decision = cleanup_decision(relocation, where, now, settings.maintain_grace)
        partition = _describe(relocation.spec)
        if decision is Cleanup.CONFIRM_SWITCH:
            waiting.append(log.confirm(relocation, now))
        elif decision is Cleanup.WAIT:
            waiting.append(relocation)
        elif decision is Cleanup.DROP_NEW:
            store.delete(relocation.new_location)
            log.remove(relocation)
        else:
            for old in relocation.old_files:
                store.delete(old, recursive=False)
            if not store.list(relocation.old_location):
                store.delete(relocation.old_location)
            log.remove(relocation)
        action = {
            Cleanup.CONFIRM_SWITCH: "switch confirmed",
            Cleanup.WAIT: "old files kept",
            Cleanup.DROP_NEW: "unfinished compaction removed",
            Cleanup.REMOVE_OLD: "old files removed",
        }[decision]
        report.actions.append(PartitionAction(relocation.table, partition, action, detail=decision.value))
    return waiting


def _sweep_orphans(
    store: StateFiles,
    table: HiveTable,
    locations: list[str],
    pending: list[Relocation],
    now: datetime,
    settings: LoaderSettings,
) -> None:
    """Removes a maintain run's directory under `<table>/_compacted/` that no partition points into and
    no record names, once it is older than the grace period (what is left when records were lost)."""
    root = f"{table.location}/{COMPACTED_DIR}"
    named = [r.new_location for r in pending]
    for directory in store.list(root):
        inside = [p for p in [*locations, *named] if p.startswith(directory.rstrip("/") + "/")]
        if inside:
            continue
        modified = store.modified_at(directory)
        if now - modified >= settings.maintain_grace:
            store.delete(directory)


def _compact(
    spark: SparkSession,
    store: StateFiles,
    database: str,
    table: HiveTable,
    compactions: list[Compaction],
    report: MaintainReport,
    now: datetime,
) -> None:
    """Rewrites each planned partition into a new directory, then switches them all in one request."""
    qualified = f"{database}.{table.name}"
    log = RelocationLog(store)
    done: list[tuple[Relocation, Compaction, int]] = []
    for i, compaction in enumerate(compactions):
        partition = compaction.partition
        relative = _describe(partition.spec)
        relocation = Relocation(
            id=f"{report.run_id}-{table.name}-{i:04d}",
            table=qualified,
            spec=partition.spec,
            old_location=partition.location,
            old_files=[f.path for f in partition.files],
            new_location=f"{table.location}/{COMPACTED_DIR}/{report.run_id}/{relative}",
            created_at=now,
        )
        log.write(relocation)
        crash_point("maintain_after_record")
        try:
            rows = rewrite_partition(
                spark, database, table, partition.spec, relocation.new_location, compaction.output_files
            )
        except Exception as exc:  # never pointed to: removed now, the partition stays as it was
            store.delete(relocation.new_location)
            log.remove(relocation)
            reason = first_line(exc, 300) or type(exc).__name__
            report.actions.append(
                PartitionAction(qualified, relative, "failed", compaction.input_files, detail=reason)
            )
            continue
        done.append((relocation, compaction, rows))
    if not done:
        return
    crash_point("maintain_after_rewrite")
    mark_relocated(spark, database, table)
    switch_locations(spark, database, table.name, [(r.spec, r.new_location) for r, _, _ in done])
    crash_point("maintain_after_switch")
    for relocation, compaction, rows in done:
        log.confirm(relocation, now)
        written = len(store.list_files(relocation.new_location))
        report.actions.append(
            PartitionAction(
                qualified, _describe(relocation.spec), "compacted", compaction.input_files, written, rows
            )
        )


def _describe(spec: dict[str, str]) -> str:
    return "/".join(f"{k}={v}" for k, v in spec.items())


def render(report: MaintainReport, console: Console) -> None:
    verdict = f"[green]{report.verdict}[/]" if report.exit_code == 0 else f"[bold red]{report.verdict}[/]"
    title = f"loader maintain of database {escape(report.database)}: {verdict}"
    if not report.actions and not report.error and report.tables == 0:
        console.print(title)
        return
    table = Table(title=title, title_justify="left")
    numbers = ("files before", "files after", "rows")
    for column in ("table", "partition", "action", *numbers):
        table.add_column(column, justify="right" if column in numbers else "left")
    table.add_column("detail", overflow="fold")  # a reason's path whole, broken over lines, never cut
    for a in report.actions:
        counts = (
            [str(a.files_before), str(a.files_after), str(a.rows or "")]
            if a.action == "compacted"
            else [""] * 3
        )
        table.add_row(escape(a.table), escape(a.partition), a.action, *counts, escape(a.detail))
    console.print(table)
    if report.error:
        printed.error(console, report.error)
