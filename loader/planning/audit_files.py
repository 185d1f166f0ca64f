"""The run's audit files in the state directory (LinkedIn's section 6): what each committed run read, per
topic and 10-minute window of record time, written by the run's commit (`loader.run.commit`, staged and
moved into `audit/` with the run's data) and summed by `loader audit` (`loader.operations.audit`), which
compares the sums with the tables. One file per committed run: their sum is exactly what Kafka's loaded
ranges held."""

from __future__ import annotations

import json
import posixpath
from dataclasses import asdict, dataclass, field

from loader.planning.state_store import StateFiles

AUDIT_DIR = "audit"


@dataclass(frozen=True)
class TopicRecord:
    """What one run read of one topic: its table, the records per window, the tombstones among them
    that the `skip-tombstones` setting kept out of the table, and what the operator must know about the
    offsets it read (a recreated topic, a truncated log)."""

    table: str
    windows: dict[str, int]
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # A topic of several event types: their tables, besides `table` (its `<topic>-value` table, or "").
    tables: list[str] = field(default_factory=list)


def audit_record(run_id: str, topics: dict[str, TopicRecord]) -> str:
    """The audit file of a run."""
    recorded = {
        topic: {k: v for k, v in asdict(record).items() if v or k in ("table", "windows")}
        for topic, record in sorted(topics.items())
    }
    return json.dumps({"run_id": run_id, "topics": recorded}, indent=1, sort_keys=True)


def audit_path(store: StateFiles, run_id: str) -> str:
    return store.path(f"{AUDIT_DIR}/{run_id}.json")


@dataclass
class RecordedCounts:
    """Every committed run's audit files summed."""

    tables: dict[str, set[str]] = field(default_factory=dict)  # topic -> its tables
    read: dict[tuple[str, str], int] = field(default_factory=dict)  # (topic, window) -> records read
    skipped: dict[tuple[str, str], int] = field(default_factory=dict)  # (topic, window) -> not loaded
    notes: dict[str, list[str]] = field(default_factory=dict)  # topic -> "run <id>: <note>"


def recorded_counts(store: StateFiles) -> RecordedCounts:
    found = RecordedCounts()
    for entry in store.list(store.path(AUDIT_DIR)):
        if not posixpath.basename(entry).endswith(".json"):
            continue
        data = json.loads(store.read_text(entry))
        for topic, recorded in data["topics"].items():
            tables = found.tables.setdefault(topic, set())
            tables.update(t for t in [recorded["table"], *recorded.get("tables", [])] if t)
            found.notes.setdefault(topic, []).extend(
                f"run {data['run_id']}: {n}" for n in recorded.get("notes", [])
            )
            for into, windows in (
                (found.read, recorded["windows"]),
                (found.skipped, recorded.get("skipped", {})),
            ):
                for window, count in windows.items():
                    into[(topic, window)] = into.get((topic, window), 0) + int(count)
    return found
