"""One table format per database: a run refuses tables of the other format instead of writing into them.

The format is a property of the lake. A Hive-format run that met an Iceberg table would write ORC files
beside Iceberg's metadata that no Iceberg reader sees, and an Iceberg-format run that met a Hive table would
find no snapshot saying what it holds and load its topic again: either way rows lost to readers or loaded
twice. So the run names such tables and loads nothing, before any pass starts.
"""

from __future__ import annotations

from collections.abc import Mapping

# The metastore parameter by which Iceberg's Hive catalog marks its tables (`table_type=ICEBERG`).
TABLE_TYPE_PARAMETER = "table_type"


FORMAT_NAMES = {"hive": "Hive", "iceberg": "Iceberg"}


class MixedTableFormats(RuntimeError):
    pass


def format_of_metastore_table(table_type: str | None) -> str:
    """`iceberg` for a table Iceberg's Hive catalog keeps, `hive` for any other metastore table."""
    return "iceberg" if (table_type or "").upper() == "ICEBERG" else "hive"


def raise_mixed_formats(database: str, table_format: str, found: Mapping[str, str]) -> None:
    """Raises MixedTableFormats when one of the tables the run writes (name -> format) is of another
    format than the run's."""
    others = sorted(name for name, fmt in found.items() if fmt != table_format)
    if not others:
        return
    names = ", ".join(f"{database}.{name}" for name in others)
    kind = " and ".join(sorted({FORMAT_NAMES[found[name]] for name in others}))
    article = "an" if kind[0] in "AEIOU" else "a"
    what = f"is {article} {kind} table" if len(others) == 1 else f"are {kind} tables"
    raise MixedTableFormats(
        f"the run's table format is {table_format}, but {names} {what}. Nothing was loaded. The format is "
        "a property of the database: run with the database's format (--table-format), or load the other "
        "format into a database of its own (--database)."
    )
