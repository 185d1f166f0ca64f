"""Table names from topic names: the one mapping every run must agree on, and its collisions."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

_NOT_ALLOWED = re.compile(r"[^a-z0-9_]")


class TableNameCollision(ValueError):
    """Two or more topics map to one table name; loading either would mix their records."""

    def __init__(self, table: str, topics: list[str]) -> None:
        self.table = table
        self.topics = sorted(topics)
        super().__init__(
            f"topics {', '.join(repr(t) for t in self.topics)} all map to table '{table}'; none of them is "
            "loaded. Rename a topic, or exclude all but one with the loader's topic exclude pattern."
        )


def table_name(topic: str) -> str:
    """`page.views-v2` -> `page_views_v2`: lower case, `.` and `-` (and anything else) become `_`.

    A name that would start with a digit gets a `t_` prefix, because Hive and Spark SQL need quoting
    for such names and people forget to quote.
    """
    name = _NOT_ALLOWED.sub("_", topic.lower())
    if name[:1].isdigit():
        name = f"t_{name}"
    return name


def table_names(topics: Iterable[str]) -> tuple[dict[str, str], list[TableNameCollision]]:
    """Each topic's table name, and the collisions (whose topics are left out of the mapping)."""
    by_table: dict[str, list[str]] = defaultdict(list)
    for topic in topics:
        by_table[table_name(topic)].append(topic)
    names: dict[str, str] = {}
    collisions: list[TableNameCollision] = []
    for table, members in sorted(by_table.items()):
        if len(members) == 1:
            names[members[0]] = table
        else:
            collisions.append(TableNameCollision(table, members))
    return names, collisions
