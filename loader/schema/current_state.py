"""Current-state tables: the decisions about them that need neither Spark nor a service.

- Which topics get one: a topic whose `cleanup.policy` includes `compact`, or whose value schema is a
  Debezium change envelope (`loader.schema.change_envelope`); the `current-state-topics` pattern adds
  topics, `no-current-state-topics` removes them (the removal wins).
- Its name: the topic's table name with `_current` after it (`accounts` -> `accounts_current`); a name
  that is another topic's table, or another topic's current-state table, is a collision, and that topic
  gets no current-state table.
- Its rows: per key, the record with the highest offset up to the run's end offsets wins; a tombstone, or
  a Debezium `op = d`, removes the key; `c`, `u`, `r` upsert the `after` row; a record without a key has
  no place in it (refused with `NO_KEY`, and kept in the history table).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from loader.schema.naming import TableNameCollision

CURRENT_SUFFIX = "_current"
# What marks a table as a current-state table, in its properties, whatever its format.
CURRENT_STATE_PROPERTY = "loader.current-state"
# The reason a record is refused from a current-state table (counted in the run's report).
NO_KEY = "no key: a current-state table holds rows by their Kafka key"

Action = Literal["upsert", "delete", "ignore"]
# Debezium's operations: create, update, snapshot read upsert; delete deletes. Others (`t`, truncate,
# and `m`, a message) change no row.
UPSERTS = ("c", "u", "r")
DELETES = ("d",)


def current_state_topics(
    topics: Iterable[str],
    compacted: set[str],
    envelopes: set[str],
    include: str | None = None,
    exclude: str | None = None,
) -> set[str]:
    """The topics that get a current-state table. `include` and `exclude` match whole topic names."""
    chosen = set()
    for topic in topics:
        added = topic in compacted or topic in envelopes or bool(include and re.fullmatch(include, topic))
        if added and not (exclude and re.fullmatch(exclude, topic)):
            chosen.add(topic)
    return chosen


def unchecked_compaction(refused: Mapping[str, str]) -> str:
    """What a run says once when Kafka refused to describe topics' settings (topic -> Kafka's error): for
    which topics compaction was not checked, why, and what to grant."""
    codes = ", ".join(sorted(set(refused.values())))
    return (
        f"compaction not checked for topic(s) {', '.join(sorted(refused))}: Kafka refused to describe their "
        f"settings ({codes}); grant the user a DESCRIBE_CONFIGS ACL on them for compacted topics to get a "
        "current-state table (those chosen by current-state-topics or by a Debezium envelope still get one)"
    )


def current_table_name(table: str) -> str:
    return table + CURRENT_SUFFIX


def current_table_names(
    tables: Mapping[str, str], current: Iterable[str]
) -> tuple[dict[str, str], list[TableNameCollision]]:
    """Each current-state topic's table name (`tables`: every loaded topic -> its table name), and the
    collisions: a name that is also another topic's table (both topics are named in it). A topic with a
    collision gets no current-state table; its history table loads as before."""
    owners = {table: topic for topic, table in tables.items()}
    names: dict[str, str] = {}
    collisions: list[TableNameCollision] = []
    for topic in sorted(current):
        if topic not in tables:
            continue
        name = current_table_name(tables[topic])
        other = owners.get(name)
        if other is not None and other != topic:
            collisions.append(TableNameCollision(name, [topic, other]))
        else:
            names[topic] = name
    return names, collisions


def change_action(tombstone: bool, op: str | None = None, envelope: bool = False) -> Action:
    """What a keyed record does to its key's row: a tombstone deletes; a Debezium envelope's `op` says;
    any other record upserts its value."""
    if tombstone:
        return "delete"
    if not envelope:
        return "upsert"
    if op in UPSERTS:
        return "upsert"
    if op in DELETES:
        return "delete"
    return "ignore"


@dataclass(frozen=True)
class KeyedChange:
    """One record as a current-state table sees it."""

    key: Hashable | None  # None: the record has no key
    partition: int
    offset: int
    action: Action
    row: Any = None  # what an upsert leaves as the key's row


def wins(a: KeyedChange, b: KeyedChange) -> bool:
    """Whether `a` replaces `b` as its key's latest record: the higher offset (then partition; a key lives
    in one partition while the topic's partitioner and partition count stay as they are)."""
    return (a.offset, a.partition) > (b.offset, b.partition)


def current_rows(changes: Iterable[KeyedChange], rows: Mapping[Hashable, Any] | None = None) -> dict:
    """The table's rows (key -> row) after `changes` are applied to `rows` (the rows before): the
    reference the Spark and Iceberg implementation must equal. Records without a key and ignored
    operations change nothing."""
    latest: dict[Hashable, KeyedChange] = {}
    for change in changes:
        if change.key is None or change.action == "ignore":
            continue
        held = latest.get(change.key)
        if held is None or wins(change, held):
            latest[change.key] = change
    result = dict(rows or {})
    for key, change in latest.items():
        if change.action == "delete":
            result.pop(key, None)
        else:
            result[key] = change.row
    return result
