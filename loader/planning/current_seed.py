"""Which records seed a current-state table that starts behind its topic's plan (see docs/loader.md,
"Current-state tables"): a topic whose current-state table came after records of it were loaded into its
history table (a `current-state-topics` pattern added later, a topic made compacted later).

A current-state table says, in its own snapshot summary, up to which offset of each partition its rows
hold the topic. Where that is below the run's planned start (nothing at all, for a new table), the
table's merge takes the records from there, or from Kafka's earliest offset when retention has moved past
it, up to the planned start, besides the run's own records; the history table gets the run's own range
only. Nothing here reads Kafka or a table: the offsets are given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from loader.planning.offsets import OffsetRange


def partitions_behind(planned: Sequence[OffsetRange], held: Mapping[int, int]) -> list[int]:
    """The partitions whose planned range starts past what the current-state table holds of them: those
    whose earliest offsets Kafka is asked for. None in a steady run (the table holds each partition up to
    its planned start), and none that starts at offset 0 (nothing comes before it)."""
    return sorted(r.partition for r in planned if held.get(r.partition, 0) < r.start)


def seed_ranges(
    planned: Sequence[OffsetRange], held: Mapping[int, int], earliest: Mapping[int, int]
) -> list[OffsetRange]:
    """Per partition, the records the current-state table misses before the run's planned range: from
    what the table holds (or Kafka's earliest offset, whichever is later) up to the planned start. Every
    partition of the topic counts, one without new records in this run too: the merge's snapshot names
    them all, so a partition not seeded now would never be. A partition whose earliest offset is not
    given has no seed."""
    seeds = []
    for r in planned:
        start = max(held.get(r.partition, 0), earliest.get(r.partition, r.start))
        if start < r.start:
            seeds.append(OffsetRange(r.topic, r.partition, start, r.start))
    return seeds
