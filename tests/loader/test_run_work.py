"""The values a run's passes share (`loader.run.work`): what claims a table, and which of a topic's
offsets a table holds already by its own account."""

from __future__ import annotations

from loader.planning.offsets import OffsetRange
from loader.run.work import TableClaim, TopicWork


def test_a_table_claim_says_what_loads_into_the_table_and_two_are_the_same_only_if_alike() -> None:
    history, typed = TableClaim("orders"), TableClaim("orders", "Refund")
    current = TableClaim("orders", current_state=True)
    assert [str(c) for c in (history, typed, current)] == [
        "topic orders",
        "topic orders, event type Refund",
        "topic orders, current state",
    ]
    assert [c.history for c in (history, typed, current)] == [True, False, False]
    assert TableClaim("orders") == history != TableClaim("orders.eu")


def test_a_topic_reads_what_its_table_holds_only_past_the_start_of_a_range() -> None:
    work = TopicWork("t", "t", None, None, [OffsetRange("t", 0, 10, 20), OffsetRange("t", 1, 5, 9)])
    assert not work.reads_any_of({})
    assert not work.reads_any_of({0: 10, 1: 5, 2: 99})  # what earlier commits loaded, no further
    assert work.reads_any_of({0: 11})  # a table's commit the manifest does not know
    assert work.reads_any_of({1: 9})
