"""Which partitions `loader maintain` compacts, and what it does with the directories earlier
compactions left behind: pure decisions over a listing, so every rule is tested without Spark.

A partition is compacted only when it is closed (its time span ended at least `min_age` ago, so a
load is unlikely to add to it again) and it holds more than `min_files` small files. Its rows are
rewritten into a new directory; the metastore's partition then points there, and the old files stay
until `grace` has passed, for queries that listed them before the switch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import Enum

from loader.formats.hive.relocation_record import Relocation
from loader.formats.maintenance import CompactionPolicy


@dataclass(frozen=True)
class DataFile:
    path: str
    size: int  # bytes


@dataclass(frozen=True)
class PartitionListing:
    """One partition as the metastore and the file system show it."""

    spec: dict[str, str]  # {"dt": "2026-11-23", "hour": "04"}
    location: str
    files: list[DataFile]


@dataclass(frozen=True)
class Compaction:
    partition: PartitionListing
    output_files: int

    @property
    def input_files(self) -> int:
        return len(self.partition.files)


def partition_end(spec: dict[str, str]) -> datetime | None:
    """When a partition's time span ends (UTC): the next day, or the next hour for an hourly one;
    None for a partition whose values are not the loader's (it is never compacted)."""
    try:
        day = datetime.strptime(spec["dt"], "%Y-%m-%d").replace(tzinfo=UTC)
        if "hour" not in spec:
            return day + timedelta(days=1)
        hour = int(spec["hour"])
    except (KeyError, ValueError):
        return None
    if not 0 <= hour <= 23:
        return None
    return day + timedelta(hours=hour + 1)


def is_closed(spec: dict[str, str], now: datetime, min_age: timedelta) -> bool:
    end = partition_end(spec)
    return end is not None and end + min_age <= now


def plan_compactions(
    partitions: list[PartitionListing], policy: CompactionPolicy, now: datetime
) -> list[Compaction]:
    """The closed partitions with more than `min_files` small files, each rewritten into as many files
    of about `target_file_bytes` as its data needs (every file is rewritten: the new directory must hold
    all of the partition's rows)."""
    planned = []
    for partition in partitions:
        small = [f for f in partition.files if f.size < policy.small_file_bytes]
        if len(small) <= policy.min_files or not is_closed(partition.spec, now, policy.min_age):
            continue
        total = sum(f.size for f in partition.files)
        output = max(1, math.ceil(total / policy.target_file_bytes))
        if output >= len(partition.files):
            continue  # it would not get fewer files
        planned.append(Compaction(partition, output))
    return planned


class Cleanup(Enum):
    """What a later maintain run does with a recorded relocation."""

    WAIT = "the grace period has not passed"
    CONFIRM_SWITCH = "the partition points to the new directory: the switch happened"
    DROP_NEW = "the partition never pointed to the new directory: it is removed"
    REMOVE_OLD = "the grace period has passed: the old files are removed"


def cleanup_decision(
    relocation: Relocation, current_location: str | None, now: datetime, grace: timedelta
) -> Cleanup:
    """Decides from the record and where the metastore's partition points now (None: it is gone).

    A relocation not yet confirmed was interrupted between writing the new directory and recording
    the switch: the metastore says which side of the switch it stopped on. A confirmed one waits for the
    grace period, counted from the confirmation, before its old files go.
    """
    points_to_new = current_location is not None and _same(current_location, relocation.new_location)
    if relocation.switched_at is None:
        return Cleanup.CONFIRM_SWITCH if points_to_new else Cleanup.DROP_NEW
    if current_location is not None and _same(current_location, relocation.old_location):
        # Pointed back by hand: the old files are the partition's again, the new directory is not.
        return Cleanup.DROP_NEW
    if now - relocation.switched_at < grace:
        return Cleanup.WAIT
    return Cleanup.REMOVE_OLD


def _same(a: str, b: str) -> bool:
    return a.rstrip("/") == b.rstrip("/")
