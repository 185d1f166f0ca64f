"""Properties the loader records on a Hive table after its commit, with SQL (`ALTER TABLE ... SET
TBLPROPERTIES`): the table's `loader.valid-through` (see `loader.planning.freshness`), which a
reader's query can check (`SHOW TBLPROPERTIES t ('loader.valid-through')`).

They are set after the run's commit point, so a run stopped in between leaves the previous value, which
is still true (older than it could be), never one ahead of the data. Each costs the metastore a call per
table, so a table's value is rewritten only once it is a step behind the run's (the `valid-through-step-s`
setting; `loader.planning.freshness.due_for_recording`)."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import SparkSession

from loader.formats.hive.table_catalog import TableCatalog
from loader.outcome.report import RunReport
from loader.planning.freshness import PROPERTY, due_for_recording, valid_through_property
from loader.reading.sql_text import identifier, string_literal


def set_properties_sql(qualified: str, properties: dict[str, str]) -> str:
    name = ".".join(identifier(part) for part in qualified.split(".", 1))
    pairs = ", ".join(f"{string_literal(k)} = {string_literal(v)}" for k, v in sorted(properties.items()))
    return f"ALTER TABLE {name} SET TBLPROPERTIES ({pairs})"


def read_valid_through(spark: SparkSession, qualified: str) -> str | None:
    """The table's recorded `loader.valid-through` property; None when it has none."""
    name = ".".join(identifier(part) for part in qualified.split(".", 1))
    found = [r["value"] for r in spark.sql(f"SHOW TBLPROPERTIES {name}").collect() if r["key"] == PROPERTY]
    return str(found[0]) if found else None


def record_valid_through(
    catalog: TableCatalog, report: RunReport, step_s: float, warn: Callable[[str], None]
) -> None:
    """Each table a loaded topic committed rows into this run gets the topic's valid-through, once its
    recorded one is `step_s` behind (see `loader.planning.freshness.due_for_recording`); a table the
    metastore refuses is named in a warning, never a reason to fail the committed run."""
    for topic in report.topics:
        properties = valid_through_property(topic.valid_through)
        if topic.status != "loaded" or not properties:
            continue
        for table in sorted(topic.tables):
            database, _, name = table.partition(".")
            recorded = catalog.recorded_valid_through(name) if database == catalog.database else None
            if not due_for_recording(table, recorded, topic.valid_through, step_s):
                continue
            try:
                catalog.spark.sql(set_properties_sql(table, properties))
            except Exception as exc:  # the data is committed: a property left older is still true
                warn(f"{table}: loader.valid-through not recorded: {str(exc).splitlines()[0][:300]}")
