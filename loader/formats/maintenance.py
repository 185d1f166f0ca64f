"""What `loader maintain` asks of a table format, and what a format answers: the format-neutral half of
maintenance. The command (`loader.operations.maintain`) holds the run lock, completes a committed
manifest and reports; each format maintains its own tables (`loader.formats.hive.maintenance`,
`loader.formats.iceberg_maintenance`), reached through `loader.formats.lookup`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pyspark.sql import SparkSession

from loader.planning.state_store import StateFiles


@dataclass(frozen=True)
class CompactionPolicy:
    """What `loader maintain` compacts, from the maintain settings."""

    min_files: int = 10  # compact when more than this many small files are in a partition
    small_file_bytes: int = 32 * 1024 * 1024
    target_file_bytes: int = 128 * 1024 * 1024
    min_age: timedelta = timedelta(hours=1)  # after the partition's time span ended

    def validate(self) -> CompactionPolicy:
        if self.min_files < 1:
            raise ValueError("maintain-min-files must be at least 1")
        if self.small_file_bytes < 1 or self.target_file_bytes < 1:
            raise ValueError("maintain-small-file-mb and maintain-target-file-mb must be at least 1")
        if self.min_age < timedelta(0):
            raise ValueError("maintain-min-age-minutes must not be negative")
        return self


@dataclass(frozen=True)
class MaintainRequest:
    """One maintain run, as a format sees it: where, when, and by which rules."""

    run_id: str
    database: str
    now: datetime
    compaction: CompactionPolicy
    grace: timedelta  # how long replaced files stay for the queries that listed them
    snapshot_retention: timedelta  # how long a format that keeps snapshots keeps them
    catalog_name: str = ""  # the Iceberg catalog's kind ("hadoop", "rest", ...), for the report's words


@dataclass(frozen=True)
class PartitionAction:
    """One thing maintain did, or found, to one partition (or one table)."""

    table: str
    partition: str
    action: str
    files_before: int = 0
    files_after: int = 0
    rows: int = 0
    detail: str = ""


@dataclass(frozen=True)
class Maintained:
    """What a format's maintenance looked at and did."""

    tables: int  # the tables looked at
    kind: str  # what they are, in the report's words ("loader's table"; "Iceberg table in the rest catalog")
    actions: list[PartitionAction] = field(default_factory=list)


class TablesNotListed(RuntimeError):
    """The catalog did not list the database's tables: nothing was maintained."""


# A format's maintenance of the database's tables. It never raises for one table's or partition's
# trouble, which becomes a "failed" action; it raises for what stops all of it (`TablesNotListed`).
Maintenance = Callable[[SparkSession, StateFiles, MaintainRequest], Maintained]


def closed_before(now: datetime, min_age: timedelta, hourly: bool) -> datetime:
    """Where closed partitions end: every record with a timestamp before this is in a partition whose
    day or hour ended at least `min_age` ago."""
    latest_end = now - min_age
    if hourly:
        return latest_end.replace(minute=0, second=0, microsecond=0)
    return latest_end.replace(hour=0, minute=0, second=0, microsecond=0)
