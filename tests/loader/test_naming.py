"""Table names from topic names, and collisions refused clearly."""

from __future__ import annotations

import pytest

from loader.schema.naming import TableNameCollision, table_name, table_names


@pytest.mark.parametrize(
    ("topic", "table"),
    [
        ("page_views", "page_views"),
        ("page.views", "page_views"),
        ("Page-Views", "page_views"),
        ("events.v2-clicks", "events_v2_clicks"),
        ("2024.audit", "t_2024_audit"),
        ("a+b", "a_b"),
    ],
)
def test_topic_maps_to_a_plain_table_name(topic: str, table: str) -> None:
    assert table_name(topic) == table


def test_collisions_are_reported_and_their_topics_left_out() -> None:
    names, collisions = table_names(["page.views", "page-views", "clicks", "Page_Views", "search"])
    assert names == {"clicks": "clicks", "search": "search"}
    assert len(collisions) == 1
    collision = collisions[0]
    assert isinstance(collision, TableNameCollision)
    assert collision.table == "page_views"
    assert collision.topics == ["Page_Views", "page-views", "page.views"]
    assert str(collision) == (
        "topics 'Page_Views', 'page-views', 'page.views' all map to table 'page_views'; "
        "none of them is loaded. Rename a topic, or exclude all but one "
        "with the loader's topic exclude pattern."
    )
