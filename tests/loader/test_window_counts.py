"""Counting records per window from the histogram the write job observes (no services)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from loader.reading.window_counts import (
    HISTOGRAM_BINS,
    is_exact,
    summed_by_member,
    window_label,
)


def test_a_window_number_is_labelled_by_its_start_in_utc() -> None:
    moment = datetime(2026, 11, 23, 4, 17, 59, tzinfo=UTC)
    assert window_label(int(moment.timestamp()) // 600) == "2026-11-23 04:10"
    assert window_label(0) == "1970-01-01 00:00"


def test_bins_of_one_window_from_several_tasks_are_summed() -> None:
    bins = [{"x": 2_940_000.0, "y": 57.0}, {"x": 2_940_000.0, "y": 29.0}, {"x": 2_940_001.0, "y": 3.0}]
    assert summed_by_member(json.dumps(bins), 1) == [
        {window_label(2_940_000): 86, window_label(2_940_001): 3}
    ]
    assert summed_by_member(None, 1) == [{}]  # nothing was read


def test_the_histogram_is_exact_only_while_the_windows_fit_its_bins() -> None:
    assert is_exact(None, None)
    assert is_exact(100, 100 + HISTOGRAM_BINS - 1)
    assert not is_exact(100, 100 + HISTOGRAM_BINS)
    # Several topics' windows share the bins.
    assert is_exact(100, 100 + HISTOGRAM_BINS // 4 - 1, members=4)
    assert not is_exact(100, 100 + HISTOGRAM_BINS // 4, members=4)


def test_a_histogram_over_several_topics_is_split_by_topic_and_window() -> None:
    # Key = window * 3 + topic: window 2_900_000 for topics 0 and 2 (two tasks' bins for topic 0).
    bins = [
        {"x": 2_900_000 * 3 + 0, "y": 4.0},
        {"x": 2_900_000 * 3 + 0, "y": 1.0},
        {"x": 2_900_000 * 3 + 2, "y": 7.0},
        {"x": 2_900_001 * 3 + 2, "y": 2.0},
    ]
    first, second = window_label(2_900_000), window_label(2_900_001)
    assert summed_by_member(json.dumps(bins), 3) == [{first: 5}, {}, {first: 7, second: 2}]
    assert summed_by_member(None, 2) == [{}, {}]
