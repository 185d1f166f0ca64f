"""An Avro schema as the rows of a field tree: what a person reads instead of the schema's JSON.

Pure: one row per field (and per union branch where a union holds more than one record), each with its
depth, its path in the rules' notation (``PageView.user.addresses[].city``), its type as people say it
(logical types included), its default, its doc and its own tags (``confluent:tags``). A record used in
several places is expanded where it first appears; later rows point there, which keeps recursive schemas
finite and big shared types short. The page adds the tags a version's data contract gives a path.
"""

from __future__ import annotations

from typing import Any

from registry.compatibility.diff import default_text, type_label
from registry.compatibility.hints import root_label
from registry.compatibility.parsed import ParsedSchema
from registry.compatibility.schema_model import Node
from registry.schema_types.base import FieldRow, FieldTree

__all__ = ["field_tree"]


def field_tree(schema: ParsedSchema) -> FieldTree:
    """The rows of ``schema``'s tree, the top-level type first, in the order of the schema's fields."""
    root = schema.root
    label = root_label(root)
    namespace = (root.name or "").rpartition(".")[0] if "." not in label else ""
    builder = _Builder()
    top = FieldRow(0, label, label, type_label(root), None, _doc(root), builder.detail(root), is_field=False)
    builder.rows.append(top)
    builder.children(root, 1, label)
    return FieldTree(tuple(builder.rows), namespace or None)


def _doc(node: Node) -> str | None:
    doc = node.props.get("doc")
    return doc if isinstance(doc, str) else None


def _records_in(node: Node) -> list[Node]:
    """The types below ``node`` whose fields the tree shows: records, possibly inside unions and arrays."""
    if node.type == "record":
        return [node]
    if node.type == "array":
        return _records_in(node.items)  # type: ignore[arg-type]
    if node.type == "map":
        return _records_in(node.values)  # type: ignore[arg-type]
    if node.type == "union":
        return [record for branch in node.branches for record in _records_in(branch)]
    return []


class _Builder:
    """One tree: its rows so far and where each record was first expanded."""

    def __init__(self) -> None:
        self.rows: list[FieldRow] = []
        self.expanded: dict[int, str] = {}

    @staticmethod
    def tags(own: Any) -> tuple[str, ...]:
        return tuple(sorted({tag for tag in own if isinstance(tag, str)})) if isinstance(own, list) else ()

    def detail(self, node: Node) -> str | None:
        """Enum symbols, a fixed's size, or where a record already seen is expanded."""
        if node.type == "enum":
            text = "symbols: " + ", ".join(node.symbols)
            return text + (f"; default {node.enum_default}" if node.enum_default is not None else "")
        if node.type == "union":
            parts = [self.detail(branch) for branch in node.branches]
            return "; ".join(part for part in parts if part) or None
        if node.type in ("array", "map"):
            return self.detail(node.items if node.type == "array" else node.values)  # type: ignore[arg-type]
        if node.type == "record" and id(node) in self.expanded:
            return f"fields: see {self.expanded[id(node)]}"
        return None

    def children(self, node: Node, depth: int, path: str) -> None:
        """The rows below the row of ``node`` (at ``path``)."""
        if node.type == "array":
            self.children(node.items, depth, path + "[]")  # type: ignore[arg-type]
        elif node.type == "map":
            self.children(node.values, depth, path + "{}")  # type: ignore[arg-type]
        elif node.type == "union":
            several = len([b for b in node.branches if _records_in(b)]) > 1
            for branch in node.branches:
                if not _records_in(branch):
                    continue
                if several:  # say which branch the fields below belong to
                    branch_row = FieldRow(
                        depth, f"({type_label(branch)})", path, type_label(branch), is_field=False
                    )
                    self.rows.append(branch_row)
                self.children(branch, depth + 1 if several else depth, path)
        elif node.type == "record" and id(node) not in self.expanded:
            self.expanded[id(node)] = path
            for field in node.fields:
                here = f"{path}.{field.name}"
                default = default_text(field.default) if field.has_default else None
                doc = field.props.get("doc")
                self.rows.append(
                    FieldRow(
                        depth,
                        field.name,
                        here,
                        type_label(field.type),
                        default,
                        doc if isinstance(doc, str) else None,
                        self.detail(field.type),
                        self.tags(field.props.get("confluent:tags")),
                    )
                )
                self.children(field.type, depth + 1, here)
