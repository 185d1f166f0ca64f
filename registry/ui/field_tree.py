"""A version's field tree as the page shows it: its type's rows (``SchemaType.field_tree``), each field
with the tags the version's data contract gives its path added to its own."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from registry.schema_types import FieldRow, Parsed, SchemaType
from registry.ui.contract_diff import path_tags

__all__ = ["field_tree"]


def field_tree(kind: SchemaType, schema: Parsed, metadata: Mapping[str, Any] | None = None) -> list[FieldRow]:
    """The rows of ``schema``'s tree (of type ``kind``), the top-level type first; ``metadata`` (the
    version's data contract) adds its tags to the fields whose paths they name."""
    tree = kind.field_tree(schema)
    if not metadata or not metadata.get("tags"):
        return list(tree.rows)
    return [
        replace(row, tags=tuple(sorted({*row.tags, *path_tags(metadata, row.path, tree.namespace)})))
        if row.is_field
        else row
        for row in tree.rows
    ]
