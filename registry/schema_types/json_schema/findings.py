"""A difference the rules found, located in both schemas; and the bound keywords every type compares the
same way (a limit added, removed, raised or lowered)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from registry.schema_types.json_schema.kinds import COMPATIBLE, Difference
from registry.schema_types.json_schema.model import Node

__all__ = ["Finding", "bound", "compatible", "found", "json_text", "prefixed"]


@dataclass(frozen=True)
class Finding:
    """One difference: ``writer``/``reader`` are pointers into each schema, ``path`` the dotted path
    relative to the pair of schemas compared, ``detail`` what the wording quotes (as text)."""

    kind: Difference
    writer: str
    reader: str
    path: str = ""
    detail: tuple[str, ...] = ()


def found(kind: Difference, writer: Node, reader: Node, keyword: str | None = None, *detail: str) -> Finding:
    """A finding at ``keyword`` of both nodes (at the node itself where it lacks the keyword)."""
    writer_at = writer.at(keyword) if keyword is not None and keyword in writer.raw else writer.pointer
    reader_at = reader.at(keyword) if keyword is not None and keyword in reader.raw else reader.pointer
    return Finding(kind, writer_at, reader_at, "", detail)


def prefixed(segment: str, findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` of a pair found below the current one, at ``segment`` (``.name``, ``[]``...)."""
    return [replace(f, path=segment + f.path) for f in findings] if segment else list(findings)


def compatible(findings: Iterable[Finding]) -> bool:
    return all(f.kind in COMPATIBLE for f in findings)


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def bound(
    writer: Node, reader: Node, keyword: str, old: Any, new: Any, kinds: tuple[Difference, ...]
) -> list[Finding]:
    """A limit ``keyword`` (``old`` in the writer, ``new`` in the reader, None where absent) compared:
    ``kinds`` are its (added, removed, increased, decreased) differences."""
    if old == new:
        return []
    added, removed, increased, decreased = kinds
    if old is None:
        kind = added
    elif new is None:
        kind = removed
    else:
        kind = increased if old < new else decreased
    return [found(kind, writer, reader, keyword, keyword, _text(old), _text(new))]


def _text(value: Any) -> str:
    return "absent" if value is None else json_text(value)
