"""Offset planning: exactly [saved, end) per partition, lost records counted, work spread over tasks."""

from __future__ import annotations

import json

from loader.planning.offsets import (
    OffsetRange,
    Plan,
    Watermarks,
    kafka_source_options,
    plan_ranges,
    task_count,
)


def test_saved_offsets_continue_and_new_partitions_start_at_earliest() -> None:
    marks = {("a", 0): Watermarks(0, 10), ("a", 1): Watermarks(0, 5), ("b", 0): Watermarks(3, 7)}
    ranges = plan_ranges({("a", 0): 4}, marks).ranges
    assert ranges == [OffsetRange("a", 0, 4, 10), OffsetRange("a", 1, 0, 5), OffsetRange("b", 0, 3, 7)]
    assert [r.span for r in ranges] == [6, 5, 4]


def test_nothing_new_plans_an_empty_range() -> None:
    plan = plan_ranges({("a", 0): 10}, {("a", 0): Watermarks(0, 10)})
    assert plan == Plan([OffsetRange("a", 0, 10, 10)], [])


def test_records_deleted_by_retention_are_counted_as_lost() -> None:
    plan = plan_ranges({("a", 0): 4}, {("a", 0): Watermarks(9, 12)})
    assert plan == Plan([OffsetRange("a", 0, 9, 12, lost=5)], [])


def test_without_topic_ids_a_saved_offset_beyond_the_end_is_a_recreated_topic() -> None:
    plan = plan_ranges({("a", 0): 50}, {("a", 0): Watermarks(0, 3)})
    assert plan.ranges == [OffsetRange("a", 0, 0, 3)]
    [gap] = plan.discontinuities
    assert gap.describe() == "recreated: offsets restarted at 0 (saved 50)"


def test_a_new_topic_id_restarts_the_topic_even_when_its_end_is_past_the_saved_offset() -> None:
    marks = {("a", 0): Watermarks(0, 900), ("a", 1): Watermarks(0, 10), ("b", 0): Watermarks(0, 900)}
    saved = {("a", 0): 300, ("a", 1): 5, ("b", 0): 300}
    plan = plan_ranges(saved, marks, {"a": "id-1", "b": "id-b"}, {"a": "id-2", "b": "id-b"})
    assert plan.ranges == [
        OffsetRange("a", 0, 0, 900),
        OffsetRange("a", 1, 0, 10),
        OffsetRange("b", 0, 300, 900),
    ]
    assert [(g.topic, g.partition, g.kind, g.saved) for g in plan.discontinuities] == [
        ("a", 0, "recreated", 300),
        ("a", 1, "recreated", 5),
    ]
    assert plan.recreated() == {"a"}


def test_the_same_topic_id_with_an_end_below_the_saved_offset_is_a_truncated_log() -> None:
    plan = plan_ranges({("a", 0): 300}, {("a", 0): Watermarks(0, 250)}, {"a": "id-1"}, {"a": "id-1"})
    assert plan.ranges == [OffsetRange("a", 0, 250, 250)]  # nothing to read; new records from 250 on
    [gap] = plan.discontinuities
    assert gap.describe() == (
        "truncated: Kafka's end offset went back to 250 (saved 300); "
        "offsets [250, 300) may now be loaded twice"
    )
    assert plan.recreated() == frozenset()  # its saved offsets still name its records


def test_a_topic_first_seen_with_an_id_is_no_discontinuity() -> None:
    plan = plan_ranges({("a", 0): 3}, {("a", 0): Watermarks(0, 8)}, {}, {"a": "id-1"})
    assert plan == Plan([OffsetRange("a", 0, 3, 8)], [])


def test_source_options_are_numeric_and_skip_empty_ranges() -> None:
    options = kafka_source_options(
        [OffsetRange("a", 0, 4, 10), OffsetRange("a", 1, 5, 5), OffsetRange("b.c", 2, 0, 1)]
    )
    assert json.loads(options["assign"]) == {"a": [0], "b.c": [2]}
    assert json.loads(options["startingOffsets"]) == {"a": {"0": 4}, "b.c": {"2": 0}}
    assert json.loads(options["endingOffsets"]) == {"a": {"0": 10}, "b.c": {"2": 1}}
    assert "latest" not in options["endingOffsets"]


def test_a_small_topic_is_one_task_a_big_one_fills_the_pool_and_a_huge_one_is_split() -> None:
    assert (
        task_count([OffsetRange("t", p, 0, 500) for p in range(3)], records_per_task=500_000, pool_size=4)
        == 1
    )
    assert task_count([OffsetRange("t", 0, 0, 120_000)], records_per_task=500_000, pool_size=4) == 3
    assert task_count([OffsetRange("t", 0, 0, 1_000_000)], records_per_task=500_000, pool_size=4) == 4
    assert task_count([OffsetRange("t", 0, 0, 10_000_000)], records_per_task=500_000, pool_size=4) == 20
    assert task_count([OffsetRange("a", 0, 3, 3)], records_per_task=1000, pool_size=4) == 0


def test_the_bound_per_partition_leaves_the_rest_to_later_runs() -> None:
    marks = {("a", 0): Watermarks(0, 2_500), ("a", 1): Watermarks(0, 700), ("b", 0): Watermarks(100, 5_000)}
    plan = plan_ranges({("b", 0): 4_500}, marks, max_offsets_per_partition=1_000)
    assert plan.ranges == [
        OffsetRange("a", 0, 0, 1_000, remaining=1_500),
        OffsetRange("a", 1, 0, 700),
        OffsetRange("b", 0, 4_500, 5_000),
    ]
