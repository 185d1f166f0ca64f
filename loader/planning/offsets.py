"""Which offsets a run loads: exactly [saved, end) of every partition, decided before anything is read.

The end offsets are fixed here, from what Kafka said at the start of the run, and the same numbers are
committed afterwards: records that arrive while the run works are left for the next run, never half-read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

TopicPartition = tuple[str, int]


@dataclass(frozen=True)
class Watermarks:
    """What Kafka holds for one partition: offsets [earliest, end)."""

    earliest: int
    end: int


@dataclass(frozen=True)
class OffsetRange:
    """Records [start, end) of one partition, and what retention deleted before `start`."""

    topic: str
    partition: int
    start: int
    end: int
    lost: int = 0
    remaining: int = 0  # offsets past `end` that Kafka already has: left to later runs by the bound

    @property
    def span(self) -> int:
        """Offsets in the range: an upper bound of its records, since transaction markers, aborted
        records and compaction leave gaps. Records are counted where they are read, never from this."""
        return self.end - self.start


@dataclass(frozen=True)
class Discontinuity:
    """A partition whose saved offset no longer means what it meant when it was saved."""

    topic: str
    partition: int
    kind: Literal["recreated", "truncated"]
    saved: int
    restart: int  # where this run reads from

    def describe(self) -> str:
        if self.kind == "recreated":
            return f"recreated: offsets restarted at {self.restart} (saved {self.saved})"
        return (
            f"truncated: Kafka's end offset went back to {self.restart} (saved {self.saved}); offsets "
            f"[{self.restart}, {self.saved}) may now be loaded twice"
        )


@dataclass(frozen=True)
class Plan:
    ranges: list[OffsetRange]
    discontinuities: list[Discontinuity]

    def recreated(self) -> frozenset[str]:
        """The topics deleted and created again since their offsets were saved: those offsets are the
        old topic's, and none of them is kept (a partition the new topic lacks included)."""
        return frozenset(d.topic for d in self.discontinuities if d.kind == "recreated")


def plan_ranges(
    saved: Mapping[TopicPartition, int],
    watermarks: Mapping[TopicPartition, Watermarks],
    saved_topic_ids: Mapping[str, str] | None = None,
    topic_ids: Mapping[str, str] | None = None,
    max_offsets_per_partition: int | None = None,
) -> Plan:
    """One range per partition Kafka has now; new partitions start at the earliest offset Kafka holds.

    A saved offset below the earliest one means retention deleted records before they were loaded: they
    are counted as lost (never silently skipped). A topic whose id differs from the saved one was deleted
    and created again: its saved offsets mean nothing and it is read from its start, named "recreated".
    Where ids are unknown (a state saved before they were kept, or a broker without them), a saved
    offset above the end is taken for the same. With the same id, an end below the saved offset is a
    truncated log (an unclean leader election): reading goes on from the new end, and the offsets that
    may come twice are named.

    With `max_offsets_per_partition`, a run reads at most that many offsets of each partition (a first run
    over days of backlog commits in bounded steps); the rest is `remaining`, for the next run.
    """
    saved_topic_ids, topic_ids = saved_topic_ids or {}, topic_ids or {}
    ranges, discontinuities = [], []
    for (topic, partition), marks in sorted(watermarks.items()):
        start = saved.get((topic, partition), marks.earliest)
        same_id = topic in saved_topic_ids and saved_topic_ids[topic] == topic_ids.get(topic)
        recreated = topic in saved_topic_ids and topic in topic_ids and not same_id
        lost = 0
        if (topic, partition) in saved and (recreated or (start > marks.end and not same_id)):
            discontinuities.append(Discontinuity(topic, partition, "recreated", start, marks.earliest))
            start = marks.earliest
        elif start > marks.end:
            discontinuities.append(Discontinuity(topic, partition, "truncated", start, marks.end))
            start = marks.end
        elif start < marks.earliest:
            lost = marks.earliest - start
            start = marks.earliest
        end = marks.end
        if max_offsets_per_partition is not None:
            end = min(end, start + max_offsets_per_partition)
        ranges.append(OffsetRange(topic, partition, start, end, lost, remaining=marks.end - end))
    return Plan(ranges, discontinuities)


def kafka_source_options(ranges: Iterable[OffsetRange]) -> dict[str, str]:
    """Options for Spark's Kafka source reading exactly these ranges (numeric offsets, never `latest`)."""
    to_read = [r for r in ranges if r.span > 0]
    assign: dict[str, list[int]] = {}
    starting: dict[str, dict[str, int]] = {}
    ending: dict[str, dict[str, int]] = {}
    for r in to_read:
        assign.setdefault(r.topic, []).append(r.partition)
        starting.setdefault(r.topic, {})[str(r.partition)] = r.start
        ending.setdefault(r.topic, {})[str(r.partition)] = r.end
    return {
        "assign": json.dumps(assign, sort_keys=True),
        "startingOffsets": json.dumps(starting, sort_keys=True),
        "endingOffsets": json.dumps(ending, sort_keys=True),
    }


# Below this many offsets per task, splitting a topic's read costs more in task overhead than it saves.
MIN_OFFSETS_PER_TASK = 50_000


def task_count(ranges: Iterable[OffsetRange], records_per_task: int, pool_size: int) -> int:
    """How many Spark tasks read one topic's ranges: enough that none reads more than `records_per_task`
    offsets, up to `pool_size` for a topic big enough to keep the pool busy, and one for a small topic.

    Spark's Kafka source splits large partitions into offset sub-ranges when asked for more tasks than
    partitions (`minPartitions`) and gives each partition a task of its own otherwise; this number is what
    it is asked for.
    """
    total = sum(r.span for r in ranges)
    if total == 0:
        return 0
    return max(-(-total // records_per_task), min(pool_size, -(-total // MIN_OFFSETS_PER_TASK)))
