"""Which topics of a run share one query: the small topics of one event type, in groups (pure logic)."""

from __future__ import annotations

from dataclasses import dataclass

from loader.planning.topic_groups import topic_groups


@dataclass(frozen=True)
class Work:
    name: str
    span: int
    single_type: bool = True
    current_table: str | None = None


def names(works: list[Work]) -> list[str]:
    return [w.name for w in works]


def test_small_topics_go_in_groups_of_the_size_asked_and_the_rest_alone() -> None:
    work = [Work("a", 10), Work("big", 50_000), Work("b", 1), Work("c", 20_000), Work("d", 5), Work("e", 7)]
    planned = topic_groups(work, small_topic_records=20_000, topics_per_query=2)
    assert [names(g) for g in planned.groups] == [["a", "b"], ["c", "d"]]
    assert names(planned.alone) == ["big", "e"]  # a group of one is a topic's own pass


def test_quiet_topics_topics_of_several_event_types_and_current_state_ones_are_never_grouped() -> None:
    current = Work("current", 3, current_table="current_current")
    work = [Work("quiet", 0), Work("types", 3, single_type=False), Work("a", 3), current, Work("b", 4)]
    planned = topic_groups(work, small_topic_records=100, topics_per_query=16)
    assert [names(g) for g in planned.groups] == [["a", "b"]]
    assert names(planned.alone) == ["quiet", "types", "current"]


def test_one_topic_per_query_loads_every_topic_alone() -> None:
    work = [Work("a", 1), Work("b", 1)]
    planned = topic_groups(work, small_topic_records=100, topics_per_query=1)
    assert (planned.groups, names(planned.alone)) == ([], ["a", "b"])
