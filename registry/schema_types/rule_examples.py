"""Each schema type's compatibility rules by example: a change from one version to the next, and what
each level says of it, as the type's own check answers.

docs/registry.md's tables of rules are made from these examples (`python -m
registry.schema_types.rule_examples docs/registry.md` writes them), so the manual says what the
registry does; a test fails when a table and the check differ.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from registry.compatibility.levels import CompatibilityLevel
from registry.schema_types import schema_type

#: The levels a table shows. Each `_TRANSITIVE` level says the same as its level, against every version
#: instead of the latest; NONE compares nothing.
LEVELS = (CompatibilityLevel.BACKWARD, CompatibilityLevel.FORWARD, CompatibilityLevel.FULL)


@dataclass(frozen=True)
class Example:
    """`change` in words, `shown` as the manual prints it, and the two versions it is made of."""

    change: str
    shown: str
    old: str
    new: str


def _avro(*fields: str) -> str:
    return '{"type": "record", "name": "Order", "fields": [' + ", ".join(fields) + "]}"


_ID = '{"name": "id", "type": "long"}'
_QTY_INT = '{"name": "qty", "type": "int"}'
_QTY_LONG = '{"name": "qty", "type": "long"}'
_NOTE = '{"name": "note", "type": "string", "default": ""}'
_NOTE_NO_DEFAULT = '{"name": "note", "type": "string"}'
_STATE = '{"name": "state", "type": {"type": "enum", "name": "State", "symbols": ["NEW", "PAID"]%s}}'

AVRO = (
    Example("a field added with a default", '`{"name": "note", "type": "string", "default": ""}`',
            _avro(_ID), _avro(_ID, _NOTE)),
    Example("a field added without a default", '`{"name": "note", "type": "string"}`',
            _avro(_ID), _avro(_ID, _NOTE_NO_DEFAULT)),
    Example("a field with a default removed", "`note` (default `\"\"`) removed",
            _avro(_ID, _NOTE), _avro(_ID)),
    Example("a field without a default removed", "`note` (no default) removed",
            _avro(_ID, _NOTE_NO_DEFAULT), _avro(_ID)),
    Example("a type promoted", "`qty`: `int` to `long`", _avro(_ID, _QTY_INT), _avro(_ID, _QTY_LONG)),
    Example("a type narrowed", "`qty`: `long` to `int`", _avro(_ID, _QTY_LONG), _avro(_ID, _QTY_INT)),
    Example("an enum symbol added, the enum without a default", "`State`: `SHIPPED` added",
            _avro(_ID, _STATE % ""),
            _avro(_ID, (_STATE % "").replace('"PAID"]', '"PAID", "SHIPPED"]'))),
    Example("an enum symbol added, the enum with a default", "`State` (default `NEW`): `SHIPPED` added",
            _avro(_ID, _STATE % ', "default": "NEW"'),
            _avro(_ID, (_STATE % ', "default": "NEW"').replace('"PAID"]', '"PAID", "SHIPPED"]'))),
)  # fmt: skip


def _proto(body: str, header: str = 'syntax = "proto3";\npackage shop;\n') -> str:
    return header + body


_ORDER = "message Order {\n  int64 id = 1;\n  %s\n}\n"
_WITH_QTY = _ORDER % "int32 qty = 2;"

PROTOBUF = (
    Example("a field added", "`string note = 3;`", _proto(_WITH_QTY),
            _proto(_ORDER % "int32 qty = 2;\n  string note = 3;")),
    Example("a field removed", "`qty = 2` removed", _proto(_WITH_QTY), _proto(_ORDER % "")),
    Example("a field renamed, its number kept", "`qty = 2` to `quantity = 2`", _proto(_WITH_QTY),
            _proto(_ORDER % "int32 quantity = 2;")),
    Example("a scalar type changed within its wire group", "`int32 qty` to `int64 qty`", _proto(_WITH_QTY),
            _proto(_ORDER % "int64 qty = 2;")),
    Example("a scalar type changed to another wire encoding", "`int32 qty` to `string qty`",
            _proto(_WITH_QTY), _proto(_ORDER % "string qty = 2;")),
    Example("`string` to `bytes`", "`string note` to `bytes note`", _proto(_ORDER % "string note = 2;"),
            _proto(_ORDER % "bytes note = 2;")),
    Example("a numeric field without a label made `repeated`", "`int32 qty` to `repeated int32 qty`",
            _proto(_WITH_QTY), _proto(_ORDER % "repeated int32 qty = 2;")),
    Example("an `optional` numeric field made `repeated`", "`optional int32 qty` to `repeated int32 qty`",
            _proto(_ORDER % "optional int32 qty = 2;"), _proto(_ORDER % "repeated int32 qty = 2;")),
    Example("a message type changed", "`Money price` to `Cost price`",
            _proto("message Money { int64 cents = 1; }\nmessage Cost { int64 cents = 1; }\n"
                   + _ORDER % "Money price = 2;"),
            _proto("message Money { int64 cents = 1; }\nmessage Cost { int64 cents = 1; }\n"
                   + _ORDER % "Cost price = 2;")),
    Example("a message added", "`message Refund { int64 id = 1; }`", _proto(_WITH_QTY),
            _proto(_WITH_QTY + "message Refund {\n  int64 id = 1;\n}\n")),
    Example("a message removed", "`message Refund` removed",
            _proto(_WITH_QTY + "message Refund {\n  int64 id = 1;\n}\n"), _proto(_WITH_QTY)),
    Example("an enum value added", "`SHIPPED = 2;`",
            _proto("enum State {\n  NEW = 0;\n  PAID = 1;\n}\n" + _ORDER % "State state = 2;"),
            _proto("enum State {\n  NEW = 0;\n  PAID = 1;\n  SHIPPED = 2;\n}\n"
                   + _ORDER % "State state = 2;")),
    Example("a field moved into a new `oneof`", "`oneof amount { int32 qty = 2; }`", _proto(_WITH_QTY),
            _proto(_ORDER % "oneof amount {\n    int32 qty = 2;\n  }")),
    Example("a field moved into an existing `oneof`", "`int32 qty = 2` into `oneof amount`",
            _proto(_ORDER % "int32 qty = 2;\n  oneof amount {\n    int32 weight = 3;\n  }"),
            _proto(_ORDER % "oneof amount {\n    int32 weight = 3;\n    int32 qty = 2;\n  }")),
    Example("the package changed", "`package shop;` to `package store;`", _proto(_WITH_QTY),
            _proto(_WITH_QTY, 'syntax = "proto3";\npackage store;\n')),
)  # fmt: skip


def _json(properties: str, *extra: str) -> str:
    return '{"type": "object", "properties": {' + properties + "}" + "".join(", " + e for e in extra) + "}"


_P_ID = '"id": {"type": "integer"}'
_P_NOTE = '"note": {"type": "string"}'
_CLOSED = '"additionalProperties": false'
_STRINGS = '"additionalProperties": {"type": "string"}'

JSON = (
    Example("a property added, the object open", '`"note": {"type": "string"}`', _json(_P_ID),
            _json(f"{_P_ID}, {_P_NOTE}")),
    Example("a property added, the object closed", '`"note"` added, `"additionalProperties": false`',
            _json(_P_ID, _CLOSED), _json(f"{_P_ID}, {_P_NOTE}", _CLOSED)),
    Example("a property added, the object's other properties strings", '`"note": {"type": "string"}`, '
            '`"additionalProperties": {"type": "string"}`', _json(_P_ID, _STRINGS),
            _json(f"{_P_ID}, {_P_NOTE}", _STRINGS)),
    Example("a property removed, the object open", '`"note"` removed', _json(f"{_P_ID}, {_P_NOTE}"),
            _json(_P_ID)),
    Example("a property removed, the object closed", '`"note"` removed, `"additionalProperties": false`',
            _json(f"{_P_ID}, {_P_NOTE}", _CLOSED), _json(_P_ID, _CLOSED)),
    Example("a property made required", '`"required": ["note"]`', _json(f"{_P_ID}, {_P_NOTE}"),
            _json(f"{_P_ID}, {_P_NOTE}", '"required": ["note"]')),
    Example("a type widened", '`"id"`: `integer` to `number`', _json(_P_ID),
            _json('"id": {"type": "number"}')),
    Example("a type narrowed", '`"id"`: `number` to `integer`', _json('"id": {"type": "number"}'),
            _json(_P_ID)),
    Example("an enum value added", '`"state"`: `["NEW", "PAID"]` to `["NEW", "PAID", "SHIPPED"]`',
            _json('"state": {"enum": ["NEW", "PAID"]}'),
            _json('"state": {"enum": ["NEW", "PAID", "SHIPPED"]}')),
    Example("a maximum length lowered", '`"note"`: `"maxLength": 100` to `50`',
            _json('"note": {"type": "string", "maxLength": 100}'),
            _json('"note": {"type": "string", "maxLength": 50}')),
    Example("the object closed", '`"additionalProperties": false` added', _json(_P_ID),
            _json(_P_ID, _CLOSED)),
    Example("an array's items changed", '`"tags"`: items `string` to `integer`',
            _json('"tags": {"type": "array", "items": {"type": "string"}}'),
            _json('"tags": {"type": "array", "items": {"type": "integer"}}')),
)  # fmt: skip

EXAMPLES: Mapping[str, tuple[Example, ...]] = {"AVRO": AVRO, "PROTOBUF": PROTOBUF, "JSON": JSON}


def verdict(type_name: str, example: Example, level: CompatibilityLevel) -> str:
    """What `level` says of `example`'s new version after its old one: "yes", or "no" and the rules."""
    kind = schema_type(type_name)
    old, new = kind.parse(example.old), kind.parse(example.new)
    conflicts = kind.conflicts(new, [(1, old)], level)
    if not conflicts:
        return "yes"
    return "no: " + ", ".join(sorted({f"`{c.incompatibility.kind}`" for c in conflicts}))


def rules_table(type_name: str) -> str:
    """The manual's table of `type_name`'s examples, one row each, a column per level."""
    header = "| change | example | " + " | ".join(str(level) for level in LEVELS) + " |"
    lines = [header, "|" + " --- |" * (len(LEVELS) + 2)]
    for example in EXAMPLES[type_name]:
        verdicts = " | ".join(verdict(type_name, example, level) for level in LEVELS)
        lines.append(f"| {example.change} | {example.shown} | {verdicts} |")
    return "\n".join(lines) + "\n"


_TABLE = re.compile(r"(<!-- rules table: ([A-Z]+) .*?-->\n)(.*?)(<!-- end of the rules table -->)", re.S)


def with_rules_tables(text: str) -> str:
    """`text` with each marked table of rules made again from the examples of the type it names."""

    def table(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in EXAMPLES:
            raise ValueError(f"no examples of schema type {name!r} (known: {', '.join(EXAMPLES)})")
        return match.group(1) + rules_table(name) + match.group(4)

    return _TABLE.sub(table, text)


if __name__ == "__main__":  # python -m registry.schema_types.rule_examples docs/registry.md
    for name in sys.argv[1:]:
        manual = Path(name)
        manual.write_text(with_rules_tables(manual.read_text()))
