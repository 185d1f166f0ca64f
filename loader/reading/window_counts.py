"""Records per 10-minute window of record time, counted in the very job that writes a topic's rows.

The audit needs, per topic and window, how many records each run read from Kafka (good, bad and
skipped alike), counted before decoding. A separate `GROUP BY` would cost a second pass over the data;
instead the write job observes, on the rows as read, a histogram of window numbers
(`histogram_numeric`, one bin per distinct window). Each task's histogram has exact counts; merging the
tasks' histograms keeps a bin per task and window (same window, separate bins), and only merges bins of
*different* windows when there are more distinct windows than bins. So the counts are exact whenever the
run's windows span at most `HISTOGRAM_BINS` windows, which the observed minimum and maximum window tell;
beyond that (a single run over more than four months of backlog) the caller counts with a `GROUP BY`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

WINDOW_SECONDS = 600  # the audit's windows: 10 minutes of record time, in UTC
HISTOGRAM_BINS = 20_000  # about 139 days of 10-minute windows


def window_label(number: int) -> str:
    """The window's start as the audit writes it (`2026-11-23 04:10`), from its number since the epoch."""
    return datetime.fromtimestamp(number * WINDOW_SECONDS, UTC).strftime("%Y-%m-%d %H:%M")


def is_exact(lowest: int | None, highest: int | None, members: int = 1) -> bool:
    """Whether a histogram over windows [lowest, highest] kept every window in a bin of its own (every
    window of each of `members` topics, numbered `window * members + member`)."""
    return lowest is None or highest is None or (highest - lowest + 1) * members <= HISTOGRAM_BINS


def summed_by_member(bins_json: str | None, members: int) -> list[dict[str, int]]:
    """A histogram over `window * members + member` (`[{"x": number, "y": count}, ...]`, several bins per
    window: one per task) -> each member's label: count."""
    pairs: list[list[tuple[int, int]]] = [[] for _ in range(members)]
    for b in json.loads(bins_json) if bins_json else []:
        window, member = divmod(round(b["x"]), members)
        pairs[member].append((window, round(b["y"])))
    return [summed(p) for p in pairs]


def summed(pairs: Iterable[tuple[int, int]]) -> dict[str, int]:
    totals: dict[int, int] = {}
    for number, count in pairs:
        totals[number] = totals.get(number, 0) + count
    return {window_label(number): count for number, count in sorted(totals.items()) if count}


def total(windows: Mapping[str, int]) -> int:
    return sum(windows.values())
