"""A schema's type as people say it (``string``, ``integer``, ``array<object>``, ``string | null``,
``enum``), and what does not fit a type name (values, formats, bounds): for the field tree, the diff and
the rules' messages."""

from __future__ import annotations

import json
from typing import Any

from registry.schema_types.json_schema.model import Node

__all__ = ["default_text", "details", "type_label"]

#: Enum values shown in a detail before "..."
_SHOWN_VALUES = 10
_BOUNDS = (
    "minLength", "maxLength", "pattern", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum",
    "multipleOf", "minItems", "maxItems", "minProperties", "maxProperties",
)  # fmt: skip


def type_label(node: Node, depth: int = 0) -> str:
    """``node``'s type in a few words; nested combinations beyond a few levels are ``...``."""
    if depth > 3:
        return "..."
    kind = node.kind
    if kind == "number":
        return "integer" if node.integer else "number"
    if kind == "empty":
        return "any"
    if kind == "false":
        return "nothing"
    if kind == "array":
        items = node.child("items")
        if isinstance(node.raw.get("prefixItems", node.raw.get("items")), list):
            return "tuple"
        return (
            f"array<{type_label(items, depth + 1)}>"
            if items is not None and items.kind != "empty"
            else "array"
        )
    if kind == "not":
        inner = node.child("not")
        return f"not {type_label(inner, depth + 1)}" if inner is not None else "not"
    if kind == "conditional":
        return "if/then/else"
    if kind == "combined":
        parts = node.parts
        if node.synthetic and node.criterion == "allOf":
            for special in ("const", "enum"):  # {"type": "string", "enum": [...]} is an enum of strings
                if any(part.kind == special for part in parts):
                    return special
        joiner = " & " if node.criterion == "allOf" else " | "
        return joiner.join(type_label(part, depth + 1) for part in parts) or str(node.criterion)
    return kind


def details(node: Node, required: bool = False) -> list[str]:
    """What the tree shows beside the type: required, values, format and bounds."""
    out = ["required"] if required else []
    for part in _parts(node):
        raw = part.raw
        if part.kind == "enum" and isinstance(raw.get("enum"), list):
            values = [json.dumps(v, ensure_ascii=False) for v in raw["enum"]]
            more = ", ..." if len(values) > _SHOWN_VALUES else ""
            out.append("values: " + ", ".join(values[:_SHOWN_VALUES]) + more)
        elif part.kind == "const":
            out.append("value: " + json.dumps(raw.get("const"), ensure_ascii=False))
    raw = node.raw
    if isinstance(raw.get("format"), str):
        out.append(f"format: {raw['format']}")
    out.extend(f"{k} {json.dumps(raw[k], ensure_ascii=False)}" for k in _BOUNDS if k in raw)
    if raw.get("uniqueItems") is True:
        out.append("unique items")
    return out


def default_text(node: Node) -> str | None:
    return json.dumps(node.raw["default"], ensure_ascii=False) if node.has_default else None


def _parts(node: Node) -> list[Node]:
    return node.parts if node.kind == "combined" and node.synthetic else [node]


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
