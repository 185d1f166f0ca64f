"""A JSON schema as the rows of a field tree: what a person reads instead of the schema's JSON.

Pure: the root row first, then each property depth first in the order written, with its path in the
rules' notation (``Order.items[].price``; the root is the schema's ``title`` when a plain name, else
``$``), its type as people say it, its ``default``, its ``description`` as the doc, the details that do
not fit a type name (required, enum values, format, bounds) and its own ``confluent:tags``. An object
reached by several ``$ref``s, or by itself, is expanded where it first appears; later rows say where
("fields: see Order.customer"), which keeps recursive schemas finite. Rows stop at
:data:`MAX_TREE_DEPTH` levels (a long chain of ``$ref``s to ever new objects is no recursion, but as
deep as it is long), where the last row says so.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from registry.schema_types.base import FieldRow, FieldTree
from registry.schema_types.json_schema.labels import default_text, details, type_label
from registry.schema_types.json_schema.model import Node
from registry.schema_types.json_schema.parsed import ParsedJsonSchema

__all__ = ["MAX_TREE_DEPTH", "field_tree", "objects_in"]

#: The deepest level of properties the tree lists.
MAX_TREE_DEPTH = 32


def field_tree(schema: ParsedJsonSchema) -> FieldTree:
    """The rows of ``schema``'s tree, the root first."""
    root = schema.model.root()
    label = schema.label
    builder = _Builder()
    detail = "; ".join(details(root)) or None
    builder.rows.append(
        FieldRow(0, label, label, type_label(root), default_text(root), _doc(root), detail, is_field=False)
    )
    builder.children(root, 1, label)
    return FieldTree(tuple(builder.rows))


def objects_in(node: Node, seen: frozenset[int] = frozenset()) -> list[Node]:
    """The schemas below ``node`` whose properties the tree shows: objects, in arrays and combinations."""
    if id(node) in seen or len(seen) > MAX_TREE_DEPTH:
        return []
    seen = seen | {id(node)}
    if node.kind == "object":
        return [node] if node.properties else []
    if node.kind == "array":
        items = node.child("items")
        return objects_in(items, seen) if items is not None else []
    if node.kind == "combined":
        return [found for part in node.parts for found in objects_in(part, seen)]
    return []


def _doc(node: Node) -> str | None:
    doc = node.annotation("description")
    return doc if isinstance(doc, str) else None


def _tags(node: Node) -> tuple[str, ...]:
    own: Any = node.raw.get("confluent:tags")
    return tuple(sorted({t for t in own if isinstance(t, str)})) if isinstance(own, list) else ()


class _Builder:
    """One tree: its rows so far and where each object was first expanded."""

    def __init__(self) -> None:
        self.rows: list[FieldRow] = []
        self.expanded: dict[int, str] = {}

    def children(self, node: Node, depth: int, path: str) -> None:
        """The rows below the row of ``node`` (at ``path``)."""
        if node.kind == "array":
            items = node.child("items")
            if items is not None:
                self.children(items, depth, path + "[]")
        elif node.kind == "combined":
            branches = [part for part in node.parts if objects_in(part)]
            several = node.criterion != "allOf" and len(branches) > 1
            for branch in branches:
                if several:  # say which choice the rows below belong to
                    label = type_label(branch)
                    self.rows.append(FieldRow(depth, f"({label})", path, label, is_field=False))
                self.children(branch, depth + 1 if several else depth, path)
        elif node.kind == "object" and id(node) not in self.expanded:
            if depth > MAX_TREE_DEPTH:
                last = self.rows[-1]
                more = f"deeper fields not shown (over {MAX_TREE_DEPTH} levels)"
                self.rows[-1] = replace(last, detail="; ".join(filter(None, [last.detail, more])))
                return
            self.expanded[id(node)] = path
            required = set(node.required)
            for name, child in node.properties.items():
                here = f"{path}.{name}"
                shown = details(child, name in required)
                again = [
                    f"fields: see {self.expanded[id(o)]}" for o in objects_in(child) if id(o) in self.expanded
                ]
                detail = "; ".join([*shown, *again]) or None
                row = FieldRow(
                    depth,
                    name,
                    here,
                    type_label(child),
                    default_text(child),
                    _doc(child),
                    detail,
                    _tags(child),
                )
                self.rows.append(row)
                self.children(child, depth + 1, here)
