"""Compatibility levels: which existing versions a new schema is compared with, and which way round.

BACKWARD means the new schema reads data written with the old one (``new_reads_old``), FORWARD the old
reads the new (``old_reads_new``), FULL both. A plain level compares only with the newest existing
version; a ``_TRANSITIVE`` one with every version, newest first, so the first conflicts reported are the
ones with the schema producers most likely still use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from registry.compatibility.hints import Incompatibility
from registry.compatibility.kinds import CompatibilityLevel
from registry.compatibility.parsed import ParsedSchema, check_reader_writer

Direction = Literal["new_reads_old", "old_reads_new"]
Schema = TypeVar("Schema")

_DIRECTION_TEXT = {
    "new_reads_old": "the new schema cannot read data written with version {v}",
    "old_reads_new": "version {v} cannot read data written with the new schema",
}


@dataclass(frozen=True)
class Conflict:
    """An incompatibility between the new schema and one existing version, in one direction."""

    incompatibility: Incompatibility
    version: int
    direction: Direction

    @property
    def new_pointer(self) -> str:
        """Where in the NEW schema the problem is (the new one is the reader when it reads old data)."""
        if self.direction == "new_reads_old":
            return self.incompatibility.reader_pointer
        return self.incompatibility.writer_pointer

    def describe(self) -> str:
        """One line: version, direction, what is wrong, where in the new schema, and the fix."""
        inc = self.incompatibility
        why = _DIRECTION_TEXT[self.direction].format(v=self.version)
        return (
            f"version {self.version}, {self.direction} ({why}): {inc.kind.value}: {inc.message}; "
            f"fix: {inc.hint} (new schema at {self.new_pointer or '/'})"
        )


def parse_level(level: CompatibilityLevel | str) -> CompatibilityLevel:
    """The level named by ``level`` (case-insensitive); ValueError names the valid ones."""
    if isinstance(level, CompatibilityLevel):
        return level
    try:
        return CompatibilityLevel(str(level).strip().upper())
    except ValueError:
        valid = ", ".join(lv.value for lv in CompatibilityLevel)
        raise ValueError(f"unknown compatibility level {level!r}; valid levels: {valid}") from None


def check_compatibility(
    new: ParsedSchema,
    existing: Sequence[tuple[int, ParsedSchema]],
    level: CompatibilityLevel | str,
) -> list[Conflict]:
    """Conflicts of ``new`` with ``existing`` (``(version, schema)``, oldest first) under ``level``."""
    return compare_versions(new, existing, level, check_reader_writer)


def compare_versions(
    new: Schema,
    existing: Sequence[tuple[int, Schema]],
    level: CompatibilityLevel | str,
    reader_writer: Callable[[Schema, Schema], list[Incompatibility]],
) -> list[Conflict]:
    """:func:`check_compatibility` for schemas of any type, whose rules ``reader_writer(reader, writer)``
    say why a reader cannot read a writer's data: the levels mean the same for every type."""
    chosen = parse_level(level)
    if chosen is CompatibilityLevel.NONE or not existing:
        return []
    versions = list(reversed(existing)) if chosen.transitive else [existing[-1]]
    conflicts: list[Conflict] = []
    for version, old in versions:
        if chosen.new_reads_old:
            for inc in reader_writer(new, old):
                conflicts.append(Conflict(inc, version, "new_reads_old"))
        if chosen.old_reads_new:
            for inc in reader_writer(old, new):
                conflicts.append(Conflict(inc, version, "old_reads_new"))
    return conflicts
