"""Which records seed a current-state table that starts behind its topic's plan (the decisions of
`loader.planning.current_seed`; whole runs in test_current_state_seed.py)."""

from __future__ import annotations

from loader.planning.current_seed import partitions_behind, seed_ranges
from loader.planning.offsets import OffsetRange

PLANNED = [OffsetRange("t", 0, 40, 50), OffsetRange("t", 1, 7, 7), OffsetRange("t", 2, 0, 3)]


def test_a_new_table_is_seeded_from_kafka_s_earliest_offsets_up_to_the_planned_start() -> None:
    assert partitions_behind(PLANNED, {}) == [0, 1]
    # Partition 1 has no new record in this run: seeded all the same (the merge names its offset).
    assert seed_ranges(PLANNED, {}, {0: 10, 1: 0}) == [OffsetRange("t", 0, 10, 40), OffsetRange("t", 1, 0, 7)]


def test_a_table_that_holds_the_topic_up_to_the_planned_start_is_not_seeded() -> None:
    held = {0: 40, 1: 7, 2: 0}
    assert partitions_behind(PLANNED, held) == []
    assert seed_ranges(PLANNED, held, {0: 0, 1: 0, 2: 0}) == []
    # A rerun after a kill after the merge: the table holds more than the plan starts from.
    assert seed_ranges(PLANNED, {0: 50, 1: 7, 2: 3}, {0: 0, 1: 0, 2: 0}) == []


def test_a_table_behind_in_some_partitions_is_seeded_from_what_it_holds() -> None:
    # It stopped being merged for a while (the topic left the pattern and came back), and a partition
    # was added meanwhile.
    held = {0: 25}
    assert partitions_behind(PLANNED, held) == [0, 1]
    seeds = [OffsetRange("t", 0, 25, 40), OffsetRange("t", 1, 2, 7)]
    assert seed_ranges(PLANNED, held, {0: 10, 1: 2}) == seeds


def test_records_retention_deleted_are_not_asked_for() -> None:
    assert seed_ranges(PLANNED, {0: 5}, {0: 30, 1: 7}) == [OffsetRange("t", 0, 30, 40)]
    # Kafka retains nothing before the plan's start (it starts at the earliest offset): no seed.
    assert seed_ranges(PLANNED, {}, {0: 40, 1: 7}) == []


def test_a_partition_whose_earliest_offset_is_unknown_gets_no_seed() -> None:
    assert seed_ranges(PLANNED, {}, {1: 0}) == [OffsetRange("t", 1, 0, 7)]
