"""The audit (LinkedIn's section 6): per topic and 10-minute window of record time, the records read from
Kafka against the rows in the table plus the quarantine.

Counting Kafka again would mean reading every loaded range a second time, so each run records what it read
instead: per topic and window, the records of its ranges (good and bad), in a small JSON file that is
committed with the run's data by the commit protocol (staged, listed in the manifest, moved into
`audit/` when the manifest is completed). A run that never commits leaves no audit file, and a committed
run always leaves one, so the sum of the files is exactly what Kafka's loaded ranges held. The audit then
compares that sum with one `GROUP BY window` over each table and over the quarantine.

A current-state table holds one row per live key, not a row per record: it is not counted by window but
reconciled with a full read of its topic (`loader.operations.current_state_audit`): its live keys and the
offset of each key's latest record.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from py4j.protocol import Py4JJavaError
from pyspark.errors import PySparkException
from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from loader.config import LoaderSettings
from loader.formats.lookup import FormatPlace, open_format, open_state
from loader.operations.current_state_audit import CurrentStateAudit, reconcile_current
from loader.planning.audit_files import recorded_counts
from loader.runtime.spark_errors import first_line
from loader.schema.current_state import CURRENT_STATE_PROPERTY, CURRENT_SUFFIX
from loader.warehouse_layout import check_layout

WINDOW_MINUTES = 10


def window_of(timestamp: Column) -> Column:
    """The start of the record's 10-minute window in UTC (the session's time zone), as text."""
    return F.date_format(F.window(timestamp, f"{WINDOW_MINUTES} minutes").start, "yyyy-MM-dd HH:mm")


@dataclass(frozen=True)
class WindowAudit:
    topic: str
    table: str
    window: str
    kafka: int
    table_rows: int
    quarantined: int
    skipped: int = 0  # tombstones not loaded, by the skip-tombstones setting

    @property
    def difference(self) -> int:
        return self.table_rows + self.quarantined + self.skipped - self.kafka

    @property
    def ok(self) -> bool:
        return self.difference == 0


@dataclass
class AuditReport:
    database: str
    windows: list[WindowAudit] = field(default_factory=list)
    notes: dict[str, list[str]] = field(default_factory=dict)  # topic -> what runs noted about its offsets
    # Tables that could not be counted (an Iceberg data file deleted behind the loader's back) -> why;
    # their topics have no windows in the report, since their rows are unknown.
    unreadable: dict[str, str] = field(default_factory=dict)
    # Each current-state table's reconciliation with a full read of its topic.
    current: list[tuple[str, CurrentStateAudit]] = field(default_factory=list)

    @property
    def mismatches(self) -> list[WindowAudit]:
        return [w for w in self.windows if not w.ok]

    @property
    def current_mismatches(self) -> list[CurrentStateAudit]:
        return [c for _, c in self.current if not c.agrees]

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.unreadable and not self.current_mismatches

    def to_json(self) -> str:
        rows = [{**asdict(w), "difference": w.difference, "ok": w.ok} for w in self.windows]
        current = [{"topic": t, **asdict(c), "ok": c.agrees} for t, c in self.current]
        return json.dumps(
            {
                "database": self.database,
                "ok": self.ok,
                "windows": rows,
                "current_state": current,
                "unreadable": self.unreadable,
                "notes": self.notes,
            },
            indent=2,
        )

    def write_json(self, path: Path) -> None:
        path.write_text(self.to_json() + "\n")


def audit(settings: LoaderSettings, spark: SparkSession, quarantine_table: str) -> AuditReport:
    """Compares what the runs read from Kafka with what the tables and the quarantine hold."""
    store = open_state(spark, settings.state_location, settings.iceberg)
    check_layout(spark, settings.warehouse, settings.database)  # never audit another lake's tables
    recorded = recorded_counts(store)
    quarantine = f"{settings.database}.{quarantine_table}"
    quarantined: dict[tuple[str, str], int] = {}
    if spark.catalog.tableExists(quarantine):
        spark.catalog.refreshTable(quarantine)
        grouped = spark.table(quarantine).groupBy("topic", window_of(F.col("timestamp")).alias("w")).count()
        quarantined = {(r["topic"], r["w"]): int(r["count"]) for r in grouped.collect()}
    report = AuditReport(settings.database, notes={t: n for t, n in sorted(recorded.notes.items()) if n})
    formatted = open_format(settings.table_format, spark, store, FormatPlace.of(settings), "audit")
    for topic, tables in sorted(recorded.tables.items()):
        current = _current_state_tables(spark, tables)
        for table in current:
            try:
                held = formatted.held_offsets(table.rpartition(".")[2], topic, None)
                report.current.append((topic, reconcile_current(spark, settings, topic, held, table)))
            except (PySparkException, Py4JJavaError) as exc:
                report.unreadable[table] = first_line(exc, 500) or type(exc).__name__
        tables = tables - set(current)  # a topic's only table may be its current-state table
        if not tables:
            continue
        loaded: dict[str, int] = {}
        for table in sorted(tables):  # a topic of several event types: the sum over its tables
            try:
                for window, count in _rows_per_window(spark, table).items():
                    loaded[window] = loaded.get(window, 0) + count
            except (PySparkException, Py4JJavaError) as exc:
                report.unreadable[table] = first_line(exc, 500) or type(exc).__name__
        if any(t in report.unreadable for t in tables):
            continue
        table = ", ".join(sorted(tables))
        windows = {w for (t, w) in recorded.read if t == topic} | set(loaded)
        windows |= {w for (t, w) in quarantined if t == topic}
        for window in sorted(windows):
            report.windows.append(
                WindowAudit(
                    topic,
                    table,
                    window,
                    kafka=recorded.read.get((topic, window), 0),
                    table_rows=loaded.get(window, 0),
                    quarantined=quarantined.get((topic, window), 0),
                    skipped=recorded.skipped.get((topic, window), 0),
                )
            )
    return report


def _current_state_tables(spark: SparkSession, tables: set[str]) -> list[str]:
    """A topic's current-state tables: among its recorded tables (its only one, without the history
    table) and the `_current` of each, those that exist and carry the loader's current-state property."""
    candidates = sorted(tables | {f"{t}{CURRENT_SUFFIX}" for t in tables if not t.endswith(CURRENT_SUFFIX)})
    found = []
    for table in candidates:
        if not spark.catalog.tableExists(table):
            continue
        properties = spark.sql(f"SHOW TBLPROPERTIES {table}").where(F.col("key") == CURRENT_STATE_PROPERTY)
        if properties.where(F.col("value") == "true").count():
            found.append(table)
    return found


def _rows_per_window(spark: SparkSession, table: str) -> dict[str, int]:
    """The table's rows per window ({} when it does not exist)."""
    if not spark.catalog.tableExists(table):
        return {}
    spark.catalog.refreshTable(table)
    grouped = spark.table(table).groupBy(window_of(F.col("_kafka_timestamp")).alias("w")).count()
    return {r["w"]: int(r["count"]) for r in grouped.collect()}


def render(report: AuditReport, console: Console) -> None:
    problems = [f"{len(report.mismatches)} mismatch(es)"] if report.mismatches else []
    problems += [f"{len(report.unreadable)} table(s) unreadable"] if report.unreadable else []
    wrong = report.current_mismatches
    problems += [f"{len(wrong)} current-state table(s) disagree with Kafka"] if wrong else []
    verdict = "[green]clean[/]" if report.ok else f"[bold red]{', '.join(problems)}[/]"
    table = Table(
        title=f"loader audit of database {report.database}: {verdict}",
        title_justify="left",
    )
    for column in (
        "topic",
        "table",
        "window (UTC)",
        "kafka",
        "table rows",
        "quarantined",
        "skipped",
        "difference",
    ):
        table.add_column(column, justify="left" if column in ("topic", "table", "window (UTC)") else "right")
    for w in report.windows:
        style = "green" if w.ok else "bold red"
        table.add_row(
            w.topic,
            escape(w.table),
            w.window,
            str(w.kafka),
            str(w.table_rows),
            str(w.quarantined),
            str(w.skipped),
            f"[{style}]{w.difference:+d}[/]",
        )
    console.print(table)
    if report.current:
        _render_current(report, console)
    for name, reason in sorted(report.unreadable.items()):
        console.print(f"[bold red]{escape(name)} could not be read:[/] {escape(reason)}")
    for topic, notes in report.notes.items():
        for note in notes:
            console.print(f"[yellow]{escape(topic)}[/]: {escape(note)}")


def _render_current(report: AuditReport, console: Console) -> None:
    """The current-state tables against a full read of their topics."""
    table = Table(title="current-state tables against a full read of the topic", title_justify="left")
    for column in ("topic", "table", "live keys", "rows", "missing", "extra", "stale"):
        table.add_column(column, justify="left" if column in ("topic", "table") else "right")
    for topic, c in report.current:
        style = "green" if c.agrees else "bold red"
        table.add_row(
            topic,
            escape(c.table),
            str(c.live_keys),
            str(c.rows),
            *(f"[{style}]{n}[/]" for n in (c.missing, c.extra, c.stale)),
        )
    console.print(table)
