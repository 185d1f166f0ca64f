"""A version's change from the one before it, in one line for the versions table: "+2 fields (email,
phone), 1 type changed, +1 migration rule".

Quick where it can be: two Avro schemas' JSON as registered, walked record by record (fields by name; a
field's type compared with named types written as their full names, so a type defined in place and the
same type referred to by name are equal), and the contract diff of the diff page. That walk reads no
schema through the parser, so a subject page with dozens of versions stays about as fast as one with a
single version (and lines are remembered per pair of schema ids). Schemas it finds no named type in (a
Protobuf or JSON schema, an Avro primitive) are compared by their type's own diff
(``SchemaType.diff``), the comparison the diff page shows in full.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from registry.compatibility import ChangeKind
from registry.schema_types import schema_type
from registry.ui.contract_diff import ContractChange, contract_changes

if TYPE_CHECKING:
    from registry.storage.repository import Registry
    from registry.storage.views import StoredSchema, SubjectHistory

MAX_NAMES = 2
NAMED = ("record", "error", "enum", "fixed")
PRIMITIVES = frozenset(("null", "boolean", "int", "long", "float", "double", "bytes", "string"))
#: (what changed, its words); the order of the line.
KINDS = (
    ("added", "+{n} field{s}"),
    ("removed", "-{n} field{s}"),
    ("type", "{n} type{s} changed"),
    ("default", "{n} default{s} changed"),
    ("doc", "{n} doc{s} changed"),
    ("symbols", "{n} enum{s} changed"),
)


@dataclass(frozen=True)
class FieldChange:
    kind: str  # added, removed, type, default, doc, symbols
    path: str


def _full(name: str, namespace: str | None) -> str:
    return name if "." in name or not namespace else f"{namespace}.{name}"


def _signature(schema: Any, namespace: str | None) -> Any:
    """A type with every named type written as its full name (definitions and references alike)."""
    if isinstance(schema, list):
        return [_signature(branch, namespace) for branch in schema]
    if isinstance(schema, str):
        return schema if schema in PRIMITIVES else _full(schema, namespace)
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if kind in NAMED and isinstance(schema.get("name"), str):
        return _full(schema["name"], schema.get("namespace") or namespace)
    if kind == "array":
        return {"array": _signature(schema.get("items"), namespace)}
    if kind == "map":
        return {"map": _signature(schema.get("values"), namespace)}
    return {key: value for key, value in schema.items() if key not in ("doc",)}


def _named(schema: Any, namespace: str | None, found: dict[str, dict[str, Any]]) -> None:
    """Every named type defined in the schema, by full name (the first definition of each)."""
    if isinstance(schema, list):
        for branch in schema:
            _named(branch, namespace, found)
        return
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if kind in NAMED and isinstance(schema.get("name"), str):
        full = _full(schema["name"], schema.get("namespace") or namespace)
        space = full.rpartition(".")[0] or None
        found.setdefault(full, {**schema, "_space": space})
        for field in schema.get("fields", ()) if kind in ("record", "error") else ():
            if isinstance(field, dict):
                _named(field.get("type"), space, found)
    elif kind in ("array", "map"):
        _named(schema.get("items" if kind == "array" else "values"), namespace, found)
    elif isinstance(kind, dict | list):
        _named(kind, namespace, found)


#: The type's diff's kinds as the line counts them (a rename shows on the diff page only).
_DIFF_KINDS = {
    ChangeKind.FIELD_ADDED: "added",
    ChangeKind.FIELD_REMOVED: "removed",
    ChangeKind.TYPE_CHANGED: "type",
    ChangeKind.DEFAULT_CHANGED: "default",
    ChangeKind.DOC_CHANGED: "doc",
    ChangeKind.SYMBOLS_CHANGED: "symbols",
}


def field_changes(old_text: str, new_text: str) -> list[FieldChange] | None:
    """Fields added, removed or changed (type, default, doc) and enum symbols changed, per named type of
    two Avro schemas' JSON; ``None`` when the texts are not JSON or define no named type (the walk cannot
    tell)."""
    try:
        old_doc, new_doc = json.loads(old_text), json.loads(new_text)
    except ValueError:
        return None
    before: dict[str, dict[str, Any]] = {}
    after: dict[str, dict[str, Any]] = {}
    _named(old_doc, None, before)
    _named(new_doc, None, after)
    if not before and not after:
        return None
    return list(_compare(before, after))


def schema_changes(registry: Registry, old: StoredSchema, new: StoredSchema) -> list[FieldChange]:
    """What the line counts between two stored schemas: the quick walk's, else the type's diff (nothing
    for two schemas of different types, which the diff page cannot compare either)."""
    if old.schema == new.schema:
        return []
    quick = field_changes(old.schema, new.schema)
    if quick is not None or old.schema_type != new.schema_type:
        return quick or []
    changes = schema_type(new.schema_type).diff(registry.parsed(old), registry.parsed(new))
    return [FieldChange(_DIFF_KINDS[c.kind], c.path) for c in changes if c.kind in _DIFF_KINDS]


def _compare(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> Iterator[FieldChange]:
    for name, new in after.items():
        old = before.get(name)
        short = name.rpartition(".")[2]
        if old is None or old.get("type") != new.get("type"):
            continue  # a new type shows as its field's type change (or a new field)
        if new.get("type") == "enum" and old.get("symbols") != new.get("symbols"):
            yield FieldChange("symbols", short)
        if new.get("type") not in ("record", "error"):
            continue
        old_fields = {f["name"]: f for f in old.get("fields", ()) if isinstance(f, dict) and "name" in f}
        new_fields = {f["name"]: f for f in new.get("fields", ()) if isinstance(f, dict) and "name" in f}
        for field_name in new_fields.keys() - old_fields.keys():
            yield FieldChange("added", f"{short}.{field_name}")
        for field_name in old_fields.keys() - new_fields.keys():
            yield FieldChange("removed", f"{short}.{field_name}")
        for field_name in old_fields.keys() & new_fields.keys():
            a, b = old_fields[field_name], new_fields[field_name]
            path = f"{short}.{field_name}"
            if _signature(a.get("type"), old["_space"]) != _signature(b.get("type"), new["_space"]):
                yield FieldChange("type", path)
            if a.get("default", ...) != b.get("default", ...):
                yield FieldChange("default", path)
            if a.get("doc") != b.get("doc"):
                yield FieldChange("doc", path)


def _names(paths: Sequence[str]) -> str:
    shown = [path.rpartition(".")[2] for path in paths[:MAX_NAMES]]
    more = ", …" if len(paths) > MAX_NAMES else ""
    return f" ({', '.join(shown)}{more})"


def summary_line(changes: Sequence[FieldChange], contract: Sequence[ContractChange]) -> str:
    """The changes in one line, schema first, then the contract; ``no change`` when there is none."""
    parts = []
    for kind, words in KINDS:
        paths = sorted(change.path for change in changes if change.kind == kind)
        if paths:
            text = words.format(n=len(paths), s="" if len(paths) == 1 else "s")
            parts.append(text + (_names(paths) if kind in ("added", "removed") else ""))
    counted = Counter((change.part, change.kind) for change in contract)
    for (part, kind), count in counted.items():
        sign = {"added": "+", "removed": "-"}.get(kind, "")
        label = _noun(part, count)
        parts.append(f"{sign}{count} {label}" if sign else f"{count} {label} changed")
    return ", ".join(parts) or "no change"


# A contract's part as the line counts it: its noun, one and many.
_NOUNS = {"property": ("property", "properties"), "sensitive": ("sensitive name", "sensitive names")}


def _noun(part: str, count: int) -> str:
    """`2 properties`, `1 sensitive name`, `3 migration rules`."""
    one, many = _NOUNS.get(part, (part, f"{part}s"))
    return one if count == 1 else many


def version_summaries(registry: Registry, history: SubjectHistory) -> dict[int, str]:
    """Each version's line against the version before it (soft-deleted ones included); the first
    version's is "first version"."""
    versions = history.versions
    pairs = list(pairwise(versions))
    lines = registry.summary_cache  # by (older schema id, newer schema id): an id's content never changes
    missing = [(b, a) for b, a in pairs if lines.get((b.schema_id, a.schema_id)) is None]
    stored = registry.schemas_by_id({v.schema_id for pair in missing for v in pair}) if missing else {}
    out: dict[int, str] = {}
    for before, after in pairs:
        key = (before.schema_id, after.schema_id)
        line = lines.get(key)
        if line is None:
            old, new = stored[before.schema_id], stored[after.schema_id]
            changes = schema_changes(registry, old, new)
            line = summary_line(changes, contract_changes(old.contract, new.contract))
            lines.put(key, line)
        out[after.version] = line
    if versions:
        out[versions[0].version] = "first version"
    return out
