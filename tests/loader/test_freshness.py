"""When a Hive table's recorded valid-through is rewritten: a pure decision, by a table of cases."""

from __future__ import annotations

import zlib

import pytest

from loader.planning.freshness import due_for_recording

TABLE = "kafka.orders"
# Its share of the step: between a half and the whole, by its name.
SHARE = 0.5 + 0.5 * zlib.crc32(TABLE.encode()) / 2**32


@pytest.mark.parametrize(
    ("recorded", "new", "step_s", "due"),
    [
        (None, "2026-12-06T10:00:00Z", 600.0, True),  # nothing recorded yet
        ("not a time", "2026-12-06T10:00:00Z", 600.0, True),  # garbage is replaced
        ("2026-12-06T10:00:00Z", None, 600.0, False),  # the run knows no valid-through
        ("2026-12-06T10:00:00Z", "2026-12-06T10:00:01Z", 0.0, True),  # step 0: every run
        ("2026-12-06T10:05:00Z", "2026-12-06T10:00:00Z", 600.0, True),  # recorded ahead: never left so
        ("2026-12-06T10:00:00Z", "2026-12-06T10:00:00Z", 0.0, True),
        ("2026-12-06T10:00:00Z", "2026-12-06T10:02:59Z", 600.0, False),  # below half a step
        ("2026-12-06T10:00:00Z", "2026-12-06T10:10:00Z", 600.0, True),  # a whole step
    ],
)
def test_a_recorded_valid_through_is_rewritten_once_a_step_behind(
    recorded: str | None, new: str | None, step_s: float, due: bool
) -> None:
    assert due_for_recording(TABLE, recorded, new, step_s) is due


def test_the_table_s_share_of_the_step_decides_in_between() -> None:
    behind = round(600 * SHARE)
    recorded = "2026-12-06T10:00:00Z"
    at = "2026-12-06T10:{:02d}:{:02d}Z"
    assert not due_for_recording(TABLE, recorded, at.format(*divmod(behind - 1, 60)), 600.0)
    assert due_for_recording(TABLE, recorded, at.format(*divmod(behind + 1, 60)), 600.0)


def test_tables_loaded_by_the_same_runs_come_due_in_different_runs() -> None:
    """Of 100 tables whose values were recorded together, runs a minute apart rewrite some in each of
    several runs, not all in one."""
    tables = [f"kafka.t{i:03d}" for i in range(100)]
    recorded = "2026-12-06T10:00:00Z"
    due_by_minute = [
        {t for t in tables if due_for_recording(t, recorded, f"2026-12-06T10:{m:02d}:00Z", 600.0)}
        for m in range(1, 11)
    ]
    first_due = [next(m for m, due in enumerate(due_by_minute, 1) if t in due) for t in tables]
    assert min(first_due) >= 5 and max(first_due) == 10  # between half a step and a whole one
    assert len(set(first_due)) >= 4
