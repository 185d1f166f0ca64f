"""Topics of other kinds that ride along a kill test's runs: a transactional topic and a topic of several
event types. Their runs take the commit path of the test's table format, so the same kills, in the same
`loader run` processes, prove that each kind too is loaded exactly once after them; the tests of each kind
kill runs of their own only in the full tier (at every step, then from outside)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loader.schema.naming import table_name
from tests.loader.event_types import click, numbered, order, produce, table, view
from tests.loader.harness import (
    Harness,
    committed_offsets,
    in_transaction,
    record_schema,
    transactional_producer,
)

Rows = list[list[dict[str, Any]]]


@dataclass(frozen=True)
class Rider:
    """`produce(i)` before the kill test's i-th run; after its last run, `check` on the rows of
    `statements` (read in the same application as the test's own)."""

    produce: Callable[[int], None]
    statements: tuple[str, ...]
    check: Callable[[Rows], None]


TRANSACTIONAL_EVENT = record_schema(
    "Payment", [{"name": "n", "type": "long"}, {"name": "target", "type": "string"}]
)


def transactional(harness: Harness) -> Rider:
    """Each round five records in a committed transaction and three in an aborted one: every committed
    record is loaded once, no aborted one (the run's offsets go past the transactions' markers)."""
    topic = harness.topic(partitions=2, prefix="transactional")
    serialize = harness.serializer(topic, TRANSACTIONAL_EVENT)
    producer = transactional_producer(harness)
    produced = 0

    def more(_: int) -> None:
        nonlocal produced
        values = [serialize({"n": produced + i, "target": "ok"}) for i in range(5)]
        in_transaction(producer, topic, values, commit=True)
        aborted = [serialize({"n": -1, "target": "aborted"}) for _ in range(3)]
        in_transaction(producer, topic, aborted, commit=False)
        produced += 5

    def check(rows: Rows) -> None:
        (loaded,) = rows
        pairs = sorted((row["p"], row["o"]) for row in loaded)
        assert pairs == committed_offsets(harness, topic), "a committed record was lost or loaded twice"
        assert {row["target"] for row in loaded} == {"ok"}, "an aborted record was loaded"
        assert sorted(row["n"] for row in loaded) == list(range(produced))

    statement = (
        f"SELECT _kafka_partition AS p, _kafka_offset AS o, n, target "
        f"FROM {harness.database}.{table_name(topic)}"
    )
    return Rider(more, (statement,), check)


def several_event_types(harness: Harness, evolved_from: int = 2) -> Rider:
    """Each round two records of each of three types (under TopicNameStrategy, RecordNameStrategy and
    TopicRecordNameStrategy) interleaved in two partitions, the types evolving from round `evolved_from`:
    every record once, in its type's table."""
    topic = harness.topic(partitions=2, prefix="types")
    produced = 0

    def more(round_: int) -> None:
        nonlocal produced
        v2 = round_ >= evolved_from
        produce(harness, topic, [
            (order(harness, v2), "topic", numbered(produced, 2)),
            (click(harness, v2), "record", numbered(produced + 2, 2, page="p")),
            (view(harness, v2), "topic_record", numbered(produced + 4, 2, url="u")),
        ])  # fmt: skip
        produced += 6

    def check(rows: Rows) -> None:
        loaded = [row for rows_of_a_table in rows for row in rows_of_a_table]
        pairs = sorted((row["p"], row["o"]) for row in loaded)
        assert pairs == committed_offsets(harness, topic), "a record was lost or loaded twice"
        assert sorted(row["n"] for row in loaded) == list(range(produced))

    statements = tuple(
        f"SELECT _kafka_partition AS p, _kafka_offset AS o, n FROM {table(harness, topic, suffix)}"
        for suffix in ("", "__click", "__view")
    )
    return Rider(more, statements, check)
