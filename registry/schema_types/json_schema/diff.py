"""What changed between two JSON schemas, property by property: the diff people read between versions.

The rules answer "can one read the other"; this answers "what did the author change", in the registry's
:class:`~registry.compatibility.Change` values: properties added and removed, a type changed (a property
made required or optional is shown as a change of its type's text, ``string, required`` ->
``string``), a ``default`` or a ``description`` changed, ``enum`` values added or removed. Paths are
the field tree's. Properties are paired by name, array items at ``path[]``, and the choices of a
``oneOf``/``anyOf`` (or a lone schema and a choice) by their type, so ``object`` -> ``object | null``
is one type change and the object's own changes still show. Pairs already compared are not compared
again, which ends recursive schemas, and the walk stops :data:`MAX_DIFF_DEPTH` properties deep.
"""

from __future__ import annotations

import json

from registry.compatibility import Change, ChangeKind
from registry.schema_types.json_schema.labels import default_text, text_of, type_label
from registry.schema_types.json_schema.model import Node
from registry.schema_types.json_schema.parsed import ParsedJsonSchema

__all__ = ["MAX_DIFF_DEPTH", "diff_json_schemas"]

#: The deepest level of properties compared (a chain of ``$ref``s may be as deep as it is long).
MAX_DIFF_DEPTH = 32


def diff_json_schemas(old: ParsedJsonSchema, new: ParsedJsonSchema) -> list[Change]:
    """Every change from ``old`` to ``new``, in the order of the new schema (removed properties after)."""
    walk = _Walk()
    walk.compare(old.model.root(), new.model.root(), new.label, None, None)
    return walk.changes


class _Walk:
    def __init__(self) -> None:
        self.changes: list[Change] = []
        self.seen: set[tuple[int, int]] = set()
        self.depth = 0

    def add(self, kind: ChangeKind, path: str, old: str | None, new: str | None) -> None:
        self.changes.append(Change(kind, path, old, new))

    def compare(
        self, old: Node, new: Node, path: str, was_required: bool | None, now_required: bool | None
    ) -> None:
        before, after = _text(old, was_required), _text(new, now_required)
        if before != after:
            self.add(ChangeKind.TYPE_CHANGED, path, before, after)
        if default_text(old) != default_text(new):
            self.add(ChangeKind.DEFAULT_CHANGED, path, default_text(old), default_text(new))
        doc_before, doc_after = old.annotation("description"), new.annotation("description")
        if doc_before != doc_after:
            self.add(ChangeKind.DOC_CHANGED, path, _maybe(doc_before), _maybe(doc_after))
        self.inside(old, new, path)

    def inside(self, old: Node, new: Node, path: str) -> None:
        pair = (id(old), id(new))
        if pair in self.seen:
            return
        self.seen.add(pair)
        self.values(old, new, path)
        if _choices(old) or _choices(new):
            by_label = {type_label(part): part for part in _choices(new) or [new]}
            for part in _choices(old) or [old]:
                match = by_label.get(type_label(part))
                if match is not None and (part, match) != (old, new):
                    self.inside(part, match, path)
            return
        if old.kind != new.kind:
            return
        if old.kind == "array":
            items_old, items_new = old.child("items"), new.child("items")
            if items_old is not None and items_new is not None:
                self.compare(items_old, items_new, path + "[]", None, None)
        elif old.kind == "object":
            self.properties(old, new, path)

    def properties(self, old: Node, new: Node, path: str) -> None:
        if self.depth >= MAX_DIFF_DEPTH:
            return
        self.depth += 1
        old_required, new_required = set(old.required), set(new.required)
        for name, now in new.properties.items():
            here = f"{path}.{name}"
            was = old.properties.get(name)
            if was is None:
                self.add(ChangeKind.FIELD_ADDED, here, None, _field(now, name in new_required))
            else:
                self.compare(was, now, here, name in old_required, name in new_required)
        for name, was in old.properties.items():
            if name not in new.properties:
                self.add(ChangeKind.FIELD_REMOVED, f"{path}.{name}", _field(was, name in old_required), None)
        self.depth -= 1

    def values(self, old: Node, new: Node, path: str) -> None:
        before, after = _enum(old), _enum(new)
        if before is None or after is None:
            return
        removed = [v for v in before if v not in after]
        added = [v for v in after if v not in before]
        if removed or added:
            self.add(
                ChangeKind.SYMBOLS_CHANGED,
                path,
                ", ".join(removed) + " removed" if removed else None,
                ", ".join(added) + " added" if added else None,
            )


def _choices(node: Node) -> list[Node]:
    """The choices of a oneOf/anyOf (a ``"type"`` list included); none for other schemas."""
    if node.kind != "combined":
        return []
    if node.criterion != "allOf":
        return node.parts
    for part in node.parts:  # {"type": [...], "enum": [...]}: the choices of the type list
        if part.kind == "combined" and part.criterion != "allOf":
            return part.parts
    return []


def _enum(node: Node) -> list[str] | None:
    parts = node.parts if node.kind == "combined" and node.synthetic else [node]
    for part in parts:
        if part.kind == "enum" and isinstance(part.raw.get("enum"), list):
            return [json.dumps(v, ensure_ascii=False) for v in part.raw["enum"]]
    return None


def _text(node: Node, required: bool | None) -> str:
    label = type_label(node)
    return label if required is None else f"{label}, required" if required else label


def _field(node: Node, required: bool) -> str:
    text = _text(node, required)
    default = default_text(node)
    return f"{text}, default {default}" if default is not None else text


def _maybe(value: object) -> str | None:
    return None if value is None else text_of(value)
