"""Which topics of a run share one query (see `loader.run.topic_group_pass`): the small ones.

A topic is small when a run reads at most `small_topic_records` offsets of it; a topic whose records
may be of several event types (or of types not known yet) is never grouped, as its pass may look into
its records first, and neither is one with a current-state table, whose pass merges its latest rows into
that table too. Small topics go in groups of `topics_per_query`, in the run's order; a group of one
is a topic's own pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar


class Groupable(Protocol):
    @property
    def span(self) -> int: ...

    @property
    def single_type(self) -> bool: ...

    @property
    def current_table(self) -> str | None: ...


T = TypeVar("T", bound=Groupable)


@dataclass(frozen=True)
class TopicGroups(Generic[T]):
    groups: list[list[T]]  # each loaded in one query
    alone: list[T]  # each loaded in a pass of its own


def topic_groups(work: Sequence[T], small_topic_records: int, topics_per_query: int) -> TopicGroups[T]:
    small = [
        w for w in work if w.single_type and w.current_table is None and 0 < w.span <= small_topic_records
    ]
    chunks = [small[i : i + topics_per_query] for i in range(0, len(small), topics_per_query)]
    groups = [c for c in chunks if len(c) > 1]
    grouped = {id(w) for g in groups for w in g}
    return TopicGroups(groups, [w for w in work if id(w) not in grouped])
