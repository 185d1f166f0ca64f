"""`loader maintain`: compacts the small files that every run adds to a time partition, once the
partition is closed, without readers ever seeing a partial or doubled partition.

What is done to a table is its format's (`loader.formats.maintenance`, reached through
`loader.formats.lookup`): a Hive ORC partition is rewritten into a new directory that the metastore's
partition then points at (`loader.formats.hive.maintenance`); an Iceberg table is maintained through
Iceberg's own procedures, each one Iceberg commit (`loader.formats.iceberg_maintenance`). This command
holds what is the same for every format: the run lock, the committed manifest a kill left unapplied, and
the report. A REST catalog's database is also locked in the catalog (`loader.formats.catalog_lock`), as a
run locks it, so that a loader of another state directory does not write while maintain works.

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
from loader.formats.lookup import FormatPlace, maintenance, open_format, open_state
from loader.formats.maintenance import PartitionAction, TablesNotListed
from loader.operations.lock import LockHeld, RunLock
from loader.outcome.report import EXIT_FAILED, EXIT_LOCKED
from loader.planning.commit_protocol import CommitLog
from loader.planning.state_store import StateFiles
from loader.runtime.spark_errors import first_line
from loader.runtime.spark_session import forget_cached_tables
from loader.warehouse_layout import MetastoreUnavailable, WarehouseMismatch, check_layout


@dataclass
class MaintainReport:
    run_id: str
    database: str
    actions: list[PartitionAction] = field(default_factory=list)
    error: str | None = None
    locked: bool = False  # another run held the lock: nothing was done
    seconds: float = 0.0
    tables: int = 0  # the tables looked at
    kind: str = "loader's table"  # what was looked for, in the report's words (its format's)

    @property
    def verdict(self) -> str:
        """What the run amounts to, in a few words: never "done" when there was nothing to do it to."""
        if self.exit_code != 0:
            return "not all done"
        if self.tables == 0 and not self.actions:
            return f"nothing to maintain: the database has no {self.kind}"
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
    files = catalog_lock_files(spark, settings.iceberg, settings.database)
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
    tables = open_format(settings.table_format, spark, store, FormatPlace.of(settings), report.run_id)
    CommitLog(store, add_partitions=tables.add_partitions).recover()
    forget_cached_tables(spark)
    request = settings.maintain_request(report.run_id, now)
    for maintain_tables in maintenance(settings.table_format):
        done = maintain_tables(spark, store, request)
        report.tables += done.tables
        report.actions += done.actions
        report.kind = done.kind


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
