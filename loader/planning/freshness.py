"""How fresh a table is: the time through which every partition of its topic is loaded.

A partition that a run read up to the end offset Kafka had when the run planned is loaded through that
moment: every record Kafka had then is in the table (or the quarantine), whatever the time of its newest
record, so an idle partition does not hold its table back. A partition that the run left behind (the
`max-records-per-partition` bound) is loaded only through an unknown time; the run then does not advance
the table's valid-through, which keeps what an earlier run recorded (still true, merely older).

The table's valid-through is the minimum over its topic's partitions: the run's start when the run read
every partition to its end, else nothing new. Record time is Kafka's timestamp: with producers' own
timestamps (CreateTime) a late record stamped earlier can still arrive, and records of a transaction
still open at planning time are not readable yet; both are read by a later run.

Where recording it costs a metastore call per table and run (a Hive table's property), a table's recorded
value is rewritten only once it is `step` behind the run's (`due_for_recording`): it then lags the true
value by less than the step plus one run's interval, and is never ahead of it.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from datetime import UTC, datetime

from loader.planning.offsets import OffsetRange

PROPERTY = "loader.valid-through"  # the table property (Hive) or snapshot summary property (Iceberg)


def valid_through(planned_at: datetime, ranges: Iterable[OffsetRange]) -> datetime | None:
    """The time through which a topic's table holds every record: `planned_at` (a moment no later than
    the run's reading of Kafka's end offsets) when no partition has offsets left past the run's ranges;
    None when one has (the run does not know how far that partition's records reach)."""
    if any(r.remaining for r in ranges):
        return None
    return planned_at


def timestamp_text(moment: datetime) -> str:
    """`2026-11-28T17:40:03Z`: UTC, whole seconds, as the table property and the report write it."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_timestamp(text: str | None) -> datetime | None:
    """A time the report or a table property wrote (ISO 8601), in UTC; None for none or garbage."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def valid_through_property(text: str | None) -> dict[str, str]:
    """The table property a commit records (nothing when the run does not know a valid-through)."""
    return {PROPERTY: text} if text else {}


def due_for_recording(table: str, recorded: str | None, new: str | None, step_s: float) -> bool:
    """Whether a table whose recorded valid-through is `recorded` gets the run's `new` one. Always when it
    has none (or one that does not parse), when the new one is earlier (a recorded value must never claim
    more than the table holds), and with a step of 0; otherwise once the new one is a share of `step_s`
    past the recorded one: between half of it and all of it, by the table's name, so that tables loaded
    by the same runs come due in different runs instead of all in one."""
    new_at = parse_timestamp(new)
    if new_at is None:
        return False
    recorded_at = parse_timestamp(recorded)
    if recorded_at is None or recorded_at > new_at or step_s <= 0:
        return True
    share = 0.5 + 0.5 * zlib.crc32(table.encode()) / 2**32
    return (new_at - recorded_at).total_seconds() >= step_s * share
