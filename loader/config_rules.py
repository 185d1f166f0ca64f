"""The rules a loader's settings keep beyond their types and bounds, as functions of their values: a
pattern that must compile, a path that must be local, and the table format's rules over the catalog and
the store. The settings model (`loader.config`) calls them from its validators whenever settings are made;
nothing here looks at the machine (that is `loader.config_environment`)."""

from __future__ import annotations

import os
import re

from loader.formats.iceberg_catalogs import check as check_catalog
from loader.formats.preflight import Lake, Preflight


def is_uri(location: str) -> bool:
    return "://" in location or location.startswith("file:")


def a_pattern(value: str | None, name: str) -> str | None:
    """`value`, a regular expression over topic names; ValueError if it does not compile."""
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"{name} is not a regular expression: {exc}") from None
    return value


def a_local_file(value: str | None, what: str) -> str | None:
    """`value`, a path on this machine (the metrics file, the class archive's directory)."""
    if value and is_uri(value):
        raise ValueError(f"{what} must be a local path, not {value!r}")
    return value


def an_archive_directory(value: str | None) -> str | None:
    """The driver class archive's directory: local, and without the JVM's separator of archives."""
    a_local_file(value, "the driver class archive directory")
    if value and os.pathsep in value:
        # The JVM reads `-XX:SharedArchiveFile` as a list of archives separated by it.
        raise ValueError(f"the driver class archive directory must not contain {os.pathsep!r}: {value!r}")
    return value


def check_tables_and_store(preflight: Preflight, lake: Lake) -> None:
    """Raises ValueError for a table format, catalog and store that cannot work together: what the format
    refuses first (`loader.formats.preflight`), then an Iceberg catalog's description that cannot work,
    whichever the format (its settings are given, so they must make sense)."""
    if refusal := preflight.refuses_settings(lake):
        raise ValueError(refusal)
    check_catalog(lake.catalog)
