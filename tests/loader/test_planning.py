"""Offset planning: exactly [saved, end) per partition, lost records counted, work spread over tasks."""

from __future__ import annotations

import json

from loader.planning import OffsetRange, Watermarks, kafka_source_options, plan_ranges, task_count


def test_saved_offsets_continue_and_new_partitions_start_at_earliest() -> None:
    marks = {("a", 0): Watermarks(0, 10), ("a", 1): Watermarks(0, 5), ("b", 0): Watermarks(3, 7)}
    ranges = plan_ranges({("a", 0): 4}, marks)
    assert ranges == [OffsetRange("a", 0, 4, 10), OffsetRange("a", 1, 0, 5), OffsetRange("b", 0, 3, 7)]
    assert [r.span for r in ranges] == [6, 5, 4]


def test_nothing_new_plans_an_empty_range() -> None:
    assert plan_ranges({("a", 0): 10}, {("a", 0): Watermarks(0, 10)}) == [OffsetRange("a", 0, 10, 10)]


def test_records_deleted_by_retention_are_counted_as_lost() -> None:
    ranges = plan_ranges({("a", 0): 4}, {("a", 0): Watermarks(9, 12)})
    assert ranges == [OffsetRange("a", 0, 9, 12, lost=5)]


def test_saved_offset_beyond_the_end_restarts_from_earliest() -> None:
    # The topic was deleted and made again: its offsets started over.
    assert plan_ranges({("a", 0): 50}, {("a", 0): Watermarks(0, 3)}) == [OffsetRange("a", 0, 0, 3)]


def test_source_options_are_numeric_and_skip_empty_ranges() -> None:
    options = kafka_source_options(
        [OffsetRange("a", 0, 4, 10), OffsetRange("a", 1, 5, 5), OffsetRange("b.c", 2, 0, 1)]
    )
    assert json.loads(options["assign"]) == {"a": [0], "b.c": [2]}
    assert json.loads(options["startingOffsets"]) == {"a": {"0": 4}, "b.c": {"2": 0}}
    assert json.loads(options["endingOffsets"]) == {"a": {"0": 10}, "b.c": {"2": 1}}
    assert "latest" not in options["endingOffsets"]


def test_task_count_uses_the_pool_for_small_work_and_splits_large_work() -> None:
    small = [OffsetRange(f"t{i}", 0, 0, 5) for i in range(200)]  # 200 tiny topics
    assert task_count(small, records_per_task=1000, pool_size=4) == 4
    large = [OffsetRange("big", 0, 0, 10_000)]
    assert task_count(large, records_per_task=1000, pool_size=4) == 10
    assert task_count([OffsetRange("a", 0, 3, 3)], records_per_task=1000, pool_size=4) == 0
