"""What a run did, per topic: printed as a table for people and written as JSON for machines."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from loader import printed
from loader.outcome.cause import Failure

TopicStatus = Literal["loaded", "up to date", "skipped", "failed"]

EXIT_OK = 0
EXIT_FAILED = 1  # a topic failed, or a dependency failed before the commit point
EXIT_USAGE = 2
EXIT_BAD_RECORDS = 3  # records were quarantined above the allowed ratio
EXIT_INCOMPLETE = 4  # committed (offsets moved), but the commit's partitions are not all registered yet
EXIT_LOCKED = 75  # another run holds the lock (EX_TEMPFAIL: try again later)
EXIT_SIGNALLED = 128  # plus the signal's number: stopped by SIGINT (130) or SIGTERM (143)


@dataclass
class TopicReport:
    topic: str
    status: TopicStatus
    table: str | None = None
    reason: str | None = None
    partitions: int = 0
    offsets: dict[int, tuple[int, int]] = field(default_factory=dict)  # partition -> [from, to)
    records: int = 0
    quarantined: int = 0
    # Records a table held already by its own account (an Iceberg commit of a run stopped before its
    # manifest): read again by this run, not loaded again.
    already_held: int = 0
    tombstones: int = 0  # records without a value read (loaded as deletion rows unless skipped)
    # A topic with a current-state table: its records without a key read, refused from that table (with
    # `loader.schema.current_state.NO_KEY`; its history table keeps them).
    no_key: int = 0
    lost: int = 0
    remaining: int = 0  # offsets Kafka has past this run's end, left by the per-partition bound
    table_action: str | None = None  # created, evolved, unchanged
    table_changes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the operator must know: a recreated topic...
    failure: Failure | None = None  # a failed topic's failed dependency, when its error names one
    seconds: float = 0.0
    windows: dict[str, int] = field(default_factory=dict)  # 10-minute window (UTC) -> records read
    skipped_windows: dict[str, int] = field(default_factory=dict)  # window -> tombstones not loaded
    # A topic of several event types: record full name -> the subject its rows project onto, and each
    # table's records this run (see `loader.reading.event_types`).
    event_types: dict[str, str] = field(default_factory=dict)
    tables: dict[str, int] = field(default_factory=dict)
    # Record time (Kafka's timestamp, ISO 8601 UTC) of the newest record read this run, good or bad, and
    # the time through which every partition of the topic is loaded (see `loader.planning.freshness`).
    newest_record: str | None = None
    valid_through: str | None = None

    @property
    def skipped(self) -> int:
        """Tombstones read and, by the `skip-tombstones` setting, not loaded."""
        return sum(self.skipped_windows.values())


@dataclass
class RunReport:
    run_id: str
    started: str
    database: str
    topics: list[TopicReport] = field(default_factory=list)
    seconds: float = 0.0
    exit_code: int = EXIT_OK
    error: str | None = None
    cluster_id: str | None = None  # the Kafka cluster the run read from
    phases: dict[str, float] = field(default_factory=dict)  # phase of the run -> seconds it took
    committed: bool = False  # the run published a manifest (its commit point passed)

    def to_json(self) -> str:
        data = asdict(self)
        for topic in data["topics"]:
            topic["offsets"] = {str(p): list(r) for p, r in topic["offsets"].items()}
        return json.dumps(data, indent=2)

    def write_json(self, path: Path) -> None:
        path.write_text(self.to_json() + "\n")


def write_json(reports: list[RunReport], path: Path) -> None:
    """One run's report as it is; the runs of `--until-caught-up` as `{"runs": [...]}`, in order."""
    if len(reports) == 1:
        reports[0].write_json(path)
        return
    path.write_text(json.dumps({"runs": [json.loads(r.to_json()) for r in reports]}, indent=2) + "\n")


def _offsets(topic: TopicReport) -> str:
    if not topic.offsets:
        return "-"
    start = sum(r[0] for r in topic.offsets.values())
    end = sum(r[1] for r in topic.offsets.values())
    if len(topic.offsets) == 1:
        return f"{start} → {end}"
    return f"Σ {start} → {end}"


def render(report: RunReport, console: Console) -> None:
    title = escape(f"loader run {report.run_id} → database {report.database}")
    table = Table(title=title, title_justify="left")
    counts = ("partitions", "records", "tombstones", "quarantined", "lost", "no key")
    # Records refused from current-state tables for want of a key: a column only when there are some.
    no_key = any(topic.no_key for topic in report.topics)
    for column in (
        "topic",
        "table",
        "status",
        "partitions",
        "offsets",
        "records",
        "tombstones",
        "quarantined",
        "lost",
        *(("no key",) if no_key else ()),
    ):
        table.add_column(column, justify="right" if column in counts else "left")
    table.add_column("table change")
    table.add_column("seconds", justify="right")
    styles = {"loaded": "green", "up to date": "dim", "skipped": "yellow", "failed": "bold red"}
    for topic in report.topics:
        more = [f"{topic.remaining} more offset(s) left for the next run"] if topic.remaining else []
        reason = topic.status if topic.reason is None else f"{topic.status}: {topic.reason}"
        status = "; ".join([reason, *topic.notes, *more])
        change = topic.table_action or ""
        if topic.table_changes:
            change += " (" + "; ".join(topic.table_changes) + ")"
        table.add_row(
            topic.topic,
            escape("\n".join(f"{t} ({n})" for t, n in topic.tables.items()))
            if topic.event_types
            else escape(topic.table or "-"),
            f"[{styles[topic.status]}]{escape(status)}[/]",
            str(topic.partitions),
            _offsets(topic),
            str(topic.records),
            f"{topic.tombstones} skipped" if topic.skipped else str(topic.tombstones),
            str(topic.quarantined),
            str(topic.lost),
            *((str(topic.no_key),) if no_key else ()),
            escape(change),
            f"{topic.seconds:.1f}",
        )
    console.print(table)
    if report.error:  # one line, however long: it names paths and addresses, never cut them
        printed.error(console, report.error, soft_wrap=True)
