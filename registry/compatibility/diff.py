"""What changed between two schemas, field by field: the structural diff people read between versions.

The compatibility rules answer "can one read the other"; this answers "what did the author change", which
is what a reviewer or a consumer asks first. Like the rules it is a pure walk over two parsed models, and
it reports changes as values (:class:`Change`: a kind, a field path in the rules' notation, the old and
the new value as text) so that a page, a CLI or a test can use them alike.

How the walk pairs things up:

* record fields by name, else by one of the new field's aliases (a rename, as Avro resolves it);
* union branches by what they are (a named type by its full name, anything else by its type), and a type
  that became a union, or stopped being one, is paired with its branch, so ``"string"`` ->
  ``["null", "string"]`` is one type change and a record made optional still shows its own changes;
* array items at ``path[]`` and map values at ``path{}``, as in the rules' field paths.

A type change is reported where it happens and only there: an array whose items changed is not also
reported as a changed array. Named types shared by several fields are compared once per pair, which also
makes recursive schemas terminate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from registry.compatibility.hints import root_label
from registry.compatibility.parsed import ParsedSchema
from registry.compatibility.schema_model import NAMED, Field, Node

__all__ = ["Change", "ChangeKind", "diff_schemas", "type_label"]

#: Attributes of a primitive or fixed that change what its values mean (and so, for people, its type).
_LOGICAL_ATTRIBUTES = ("logicalType", "precision", "scale")


class ChangeKind(StrEnum):
    """What happened at one place in the schema."""

    FIELD_ADDED = "field added"
    FIELD_REMOVED = "field removed"
    FIELD_RENAMED = "field renamed"
    TYPE_CHANGED = "type changed"
    DEFAULT_CHANGED = "default changed"
    DOC_CHANGED = "doc changed"
    SYMBOLS_CHANGED = "symbols changed"


@dataclass(frozen=True)
class Change:
    """One change at ``path``; ``old``/``new`` are None where the thing did not exist on that side."""

    kind: ChangeKind
    path: str
    old: str | None = None
    new: str | None = None


def diff_schemas(old: ParsedSchema, new: ParsedSchema) -> list[Change]:
    """Every change from ``old`` to ``new``, in the order of the new schema (removed fields after)."""
    walk = _Walk()
    walk.compare(old.root, new.root, root_label(new.root))
    return walk.changes


def type_label(node: Node) -> str:
    """A type as people say it: ``long (timestamp-millis)``, ``array<string>``, ``null | record a.B``."""
    if node.type == "union":
        return " | ".join(type_label(branch) for branch in node.branches)
    if node.type == "array":
        return f"array<{type_label(node.items)}>"  # type: ignore[arg-type]
    if node.type == "map":
        return f"map<{type_label(node.values)}>"  # type: ignore[arg-type]
    base = f"{node.type} {node.name}" if node.name is not None else node.type
    if node.type == "fixed":
        base += f" (size {node.size})"
    logical = _logical(node)
    return f"{base} ({logical})" if logical else base


def default_text(value: Any) -> str:
    """A default as it is written in the schema's JSON."""
    return json.dumps(value, ensure_ascii=False)


def _logical(node: Node) -> str:
    """``decimal(10, 2)``, ``timestamp-millis``, or empty when the node has no logical type."""
    logical = node.logical_type
    if logical is None:
        return ""
    if logical == "decimal":
        return f"decimal({node.props.get('precision')}, {node.props.get('scale', 0)})"
    return logical


def _shape(node: Node) -> tuple[Any, ...]:
    """What must be equal for a spot to count as the same type, without looking inside other types."""
    if node.type == "union":
        return ("union", *(_branch_key(branch) for branch in node.branches))
    if node.type in ("array", "map"):
        return (node.type,)
    logical = tuple(node.props.get(attribute) for attribute in _LOGICAL_ATTRIBUTES)
    return (node.type, node.name, node.size, logical)


def _branch_key(node: Node) -> str:
    """How a union branch is recognised in the other version: a named type by name, else by its type."""
    return node.name if node.name is not None else node.type


def _field_text(field: Field) -> str:
    text = type_label(field.type)
    return f"{text}, default {default_text(field.default)}" if field.has_default else text


class _Walk:
    """One diff: the changes found so far and the pairs of named types already compared."""

    def __init__(self) -> None:
        self.changes: list[Change] = []
        self.seen: set[tuple[int, int]] = set()

    def add(self, kind: ChangeKind, path: str, old: str | None, new: str | None) -> None:
        self.changes.append(Change(kind, path, old, new))

    def compare(self, old: Node, new: Node, path: str) -> None:
        """The type at ``path`` in both versions: reports a change here, then looks inside."""
        self.retyped(old, new, path)
        self.inside(old, new, path)

    def retyped(self, old: Node, new: Node, path: str) -> None:
        if _shape(old) != _shape(new):
            self.add(ChangeKind.TYPE_CHANGED, path, type_label(old), type_label(new))

    def inside(self, old: Node, new: Node, path: str) -> None:
        if old.type == "union" or new.type == "union":
            self.branches(old, new, path)
            return
        if old.type != new.type:
            return
        if old.type == "array":
            self.compare(old.items, new.items, path + "[]")  # type: ignore[arg-type]
        elif old.type == "map":
            self.compare(old.values, new.values, path + "{}")  # type: ignore[arg-type]
        elif old.type in NAMED:
            pair = (id(old), id(new))
            if pair in self.seen:
                return
            self.seen.add(pair)
            self.doc(old.props, new.props, path)
            if old.type == "record":
                self.fields(old, new, path)
            elif old.type == "enum":
                self.enum(old, new, path)

    def branches(self, old: Node, new: Node, path: str) -> None:
        """Pairs the branches of a union (or a lone type with its branch) and compares each pair."""
        old_branches = old.branches if old.type == "union" else [old]
        new_branches = new.branches if new.type == "union" else [new]
        by_key = {_branch_key(branch): branch for branch in new_branches}
        for branch in old_branches:
            match = by_key.get(_branch_key(branch))
            if match is None:
                continue
            self.compare(branch, match, path)  # a change here: same kind, other logical type or size

    def fields(self, old: Node, new: Node, path: str) -> None:
        matched: set[str] = set()
        for field in new.fields:
            here = f"{path}.{field.name}"
            before = old.field_index.get(field.name)
            if before is None:
                before = _renamed_from(field, old, new)
                if before is not None:
                    self.add(ChangeKind.FIELD_RENAMED, here, before.name, field.name)
            if before is None:
                self.add(ChangeKind.FIELD_ADDED, here, None, _field_text(field))
                continue
            matched.add(before.name)
            self.retyped(before.type, field.type, here)
            self.default(before, field, here)
            self.doc(before.props, field.props, here)
            self.inside(before.type, field.type, here)
        for field in old.fields:
            if field.name not in matched:
                self.add(ChangeKind.FIELD_REMOVED, f"{path}.{field.name}", _field_text(field), None)

    def enum(self, old: Node, new: Node, path: str) -> None:
        removed = [symbol for symbol in old.symbols if symbol not in new.symbols]
        added = [symbol for symbol in new.symbols if symbol not in old.symbols]
        if removed or added:
            self.add(
                ChangeKind.SYMBOLS_CHANGED,
                path,
                ", ".join(removed) + " removed" if removed else None,
                ", ".join(added) + " added" if added else None,
            )
        if old.enum_default != new.enum_default:
            self.add(ChangeKind.DEFAULT_CHANGED, path, old.enum_default, new.enum_default)

    def doc(self, old_props: dict[str, Any], new_props: dict[str, Any], path: str) -> None:
        before, after = old_props.get("doc"), new_props.get("doc")
        if before != after:
            self.add(ChangeKind.DOC_CHANGED, path, _text_or_none(before), _text_or_none(after))

    def default(self, old: Field, new: Field, path: str) -> None:
        before = default_text(old.default) if old.has_default else None
        after = default_text(new.default) if new.has_default else None
        if before != after:  # as JSON text: 1, 1.0 and true are different defaults
            self.add(ChangeKind.DEFAULT_CHANGED, path, before, after)


def _renamed_from(field: Field, old: Node, new: Node) -> Field | None:
    """The old field a new one takes over through its aliases (one the new record does not keep)."""
    for alias in field.aliases:
        before = old.field_index.get(alias)
        if before is not None and alias not in new.field_index:
            return before
    return None


def _text_or_none(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
