"""Checks on values inside a schema: field defaults against their types, and logical type parameters.

A default that does not match its type is accepted by some parsers and only blows up when a reader
needs it, long after the schema was registered; so we refuse it up front, with Avro Java 1.12's rules (an
int or long default is an integral JSON number in range, a float or double any number, a union default
matches any of the union's branches, a record default is an object that gives every field without a
default of its own). Avro 1.12 changed the union rule: before it, the specification required the first
branch; now "default values for union fields correspond to the first schema that matches in the union",
which :func:`default_branch` finds. We are stricter than Java in three places, each a default Java
accepts but cannot use as written: an enum default must be one of the symbols, a bytes or fixed default
may only hold code points 0-255 (one per byte), and a fixed default must have exactly ``size`` of them
(Java pads a shorter one with zero bytes and cuts a longer one when it fills the field, so readers would
get a value the schema does not say).

Logical types: Avro Java ignores an invalid logical type and reads the data as the underlying type. We
refuse them instead, because a producer that believes it writes ``decimal(4, 2)`` into a ``fixed`` too
small for 4 digits, or a ``date`` into a ``string``, is making a mistake that surfaces only in consumers.
Unknown logical type names are left alone: custom logical types are legitimate.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from registry.compatibility.schema_model import Node

INT_RANGE = (-(2**31), 2**31 - 1)
LONG_RANGE = (-(2**63), 2**63 - 1)

#: the underlying types each known logical type may annotate
LOGICAL_TYPES: dict[str, frozenset[str]] = {
    "decimal": frozenset({"bytes", "fixed"}),
    "big-decimal": frozenset({"bytes"}),
    "uuid": frozenset({"string", "fixed"}),
    "date": frozenset({"int"}),
    "time-millis": frozenset({"int"}),
    "time-micros": frozenset({"long"}),
    "timestamp-millis": frozenset({"long"}),
    "timestamp-micros": frozenset({"long"}),
    "timestamp-nanos": frozenset({"long"}),
    "local-timestamp-millis": frozenset({"long"}),
    "local-timestamp-micros": frozenset({"long"}),
    "local-timestamp-nanos": frozenset({"long"}),
    "duration": frozenset({"fixed"}),
}
_FIXED_SIZES = {"uuid": 16, "duration": 12}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def max_decimal_precision(size: int) -> int:
    """Digits a two's-complement ``fixed`` of ``size`` bytes always holds: floor(log10(2^(8n-1) - 1))."""
    if size <= 0:
        return 0
    bits = 8 * size - 1
    if bits <= 4096:
        return len(str(2**bits - 1)) - 1
    return math.floor(bits * math.log10(2))


def logical_type_problems(node: Node) -> Iterator[tuple[str, str]]:
    """(pointer suffix, message) for each problem with ``node``'s logical type annotation."""
    logical = node.props.get("logicalType")
    if not isinstance(logical, str):
        yield "logicalType", f'"logicalType" must be a string, not {json.dumps(logical)}'
        return
    allowed = LOGICAL_TYPES.get(logical)
    if allowed is None:
        return
    if node.type not in allowed:
        names = " or ".join(sorted(allowed))
        yield "logicalType", f'the logical type "{logical}" annotates {names}, not {node.type}'
        return
    if node.type == "fixed" and logical in _FIXED_SIZES and node.size != _FIXED_SIZES[logical]:
        yield (
            "size",
            f'the logical type "{logical}" needs a fixed of size {_FIXED_SIZES[logical]}, not {node.size}',
        )
    if logical == "decimal":
        yield from _decimal_problems(node)


def _decimal_problems(node: Node) -> Iterator[tuple[str, str]]:
    precision = node.props.get("precision")
    scale = node.props.get("scale", 0)
    precision_ok = _is_int(precision) and precision > 0
    if "precision" not in node.props:
        yield "", 'a decimal needs a "precision" (the number of digits), a positive integer'
    elif not precision_ok:
        yield "precision", f'decimal "precision" must be a positive integer, not {json.dumps(precision)}'
    if not _is_int(scale) or scale < 0:
        yield "scale", f'decimal "scale" must be a non-negative integer, not {json.dumps(scale)}'
    elif precision_ok and scale > precision:
        yield "scale", f'decimal "scale" ({scale}) cannot be greater than "precision" ({precision})'
    if precision_ok and node.type == "fixed":
        most = max_decimal_precision(node.size)
        if precision > most:
            yield (
                "precision",
                f"a fixed of size {node.size} holds at most {most} decimal digits, "
                f'but "precision" is {precision}',
            )


def default_mismatch(node: Node, value: Any) -> str | None:
    """Why ``value`` is not a valid default for ``node`` (None when it is), Avro Java's rules."""
    kind = node.type
    if kind == "null":
        return None if value is None else f"expected null, got {_show(value)}"
    if kind == "boolean":
        return None if isinstance(value, bool) else f"expected true or false, got {_show(value)}"
    if kind in ("int", "long"):
        low, high = INT_RANGE if kind == "int" else LONG_RANGE
        if _is_int(value) and low <= value <= high:
            return None
        article = "an" if kind == "int" else "a"
        return f"expected {article} {kind} (integer from {low} to {high}), got {_show(value)}"
    if kind in ("float", "double"):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return None if ok else f"expected a number for {kind}, got {_show(value)}"
    if kind == "string":
        return None if isinstance(value, str) else f"expected a string, got {_show(value)}"
    if kind in ("bytes", "fixed"):
        return _bytes_mismatch(node, value)
    if kind == "enum":
        if isinstance(value, str) and value in node.symbols:
            return None
        return (
            f"expected one of the symbols of enum {node.name} ({', '.join(node.symbols)}), got {_show(value)}"
        )
    if kind == "array":
        if not isinstance(value, list):
            return f"expected an array, got {_show(value)}"
        for i, item in enumerate(value):
            reason = default_mismatch(node.items, item) if node.items is not None else None
            if reason is not None:
                return f"item {i}: {reason}"
        return None
    if kind == "map":
        if not isinstance(value, dict):
            return f"expected an object (map), got {_show(value)}"
        for key, item in value.items():
            reason = default_mismatch(node.values, item) if node.values is not None else None
            if reason is not None:
                return f'value "{key}": {reason}'
        return None
    if kind == "union":
        if not node.branches:
            return "a union without branches has no valid default"
        reasons = []
        for branch in node.branches:
            reason = default_mismatch(branch, value)
            if reason is None:
                return None
            reasons.append(f"{branch.describe()}: {reason}")
        return f"it matches no branch of the union ({'; '.join(reasons)})"
    if kind == "record":
        return _record_mismatch(node, value)
    return None  # an invalid part of the schema, already reported


def default_branch(union: Node, value: Any) -> Node | None:
    """The branch a union's default belongs to: the first one it is a valid value of (Avro 1.12)."""
    return next((b for b in union.branches if default_mismatch(b, value) is None), None)


def _bytes_mismatch(node: Node, value: Any) -> str | None:
    if not isinstance(value, str):
        return f"expected a string of code points 0-255 for {node.type}, got {_show(value)}"
    if any(ord(ch) > 255 for ch in value):
        return f"a {node.type} default must use only code points 0-255 (one per byte)"
    if node.type == "fixed" and len(value) != node.size:
        return f"a default for fixed {node.name} must be {node.size} bytes long, not {len(value)}"
    return None


def _record_mismatch(node: Node, value: Any) -> str | None:
    if not isinstance(value, dict):
        return f"expected an object for record {node.name}, got {_show(value)}"
    for f in node.fields:
        if f.name in value:
            reason = default_mismatch(f.type, value[f.name])
            if reason is not None:
                return f'field "{f.name}": {reason}'
        elif not f.has_default:
            return f'field "{f.name}" of record {node.name} has no default, so the object must give it'
    return None


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
