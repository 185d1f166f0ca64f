"""Refused values inside a schema: logical type parameters and field defaults, with exact messages."""

from __future__ import annotations

import json

import pytest

from registry.compatibility import InvalidSchemaError, parse_schema

INT_RULE = "expected an int (integer from -2147483648 to 2147483647)"


def record_with(field: dict) -> str:
    return json.dumps({"type": "record", "name": "A", "fields": [field]})


INVALID_VALUES: list[tuple[str, str, list[tuple[str, str]]]] = [
    # logical types
    (
        "decimal-without-precision",
        '{"type": "bytes", "logicalType": "decimal"}',
        [("", 'a decimal needs a "precision" (the number of digits), a positive integer')],
    ),
    (
        "decimal-zero-precision",
        '{"type": "bytes", "logicalType": "decimal", "precision": 0}',
        [("/precision", 'decimal "precision" must be a positive integer, not 0')],
    ),
    (
        "decimal-scale-above-precision",
        '{"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 5}',
        [("/scale", 'decimal "scale" (5) cannot be greater than "precision" (4)')],
    ),
    (
        "decimal-negative-scale",
        '{"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": -1}',
        [("/scale", 'decimal "scale" must be a non-negative integer, not -1')],
    ),
    (
        "decimal-fixed-too-small",
        '{"type": "fixed", "name": "D", "size": 2, "logicalType": "decimal", "precision": 5}',
        [("/precision", 'a fixed of size 2 holds at most 4 decimal digits, but "precision" is 5')],
    ),
    (
        "decimal-on-string",
        '{"type": "string", "logicalType": "decimal", "precision": 5}',
        [("/logicalType", 'the logical type "decimal" annotates bytes or fixed, not string')],
    ),
    (
        "date-on-long",
        '{"type": "long", "logicalType": "date"}',
        [("/logicalType", 'the logical type "date" annotates int, not long')],
    ),
    (
        "uuid-fixed-wrong-size",
        '{"type": "fixed", "name": "U", "size": 8, "logicalType": "uuid"}',
        [("/size", 'the logical type "uuid" needs a fixed of size 16, not 8')],
    ),
    (
        "duration-wrong-size",
        '{"type": "fixed", "name": "U", "size": 8, "logicalType": "duration"}',
        [("/size", 'the logical type "duration" needs a fixed of size 12, not 8')],
    ),
    (
        "logical-type-not-string",
        '{"type": "int", "logicalType": 5}',
        [("/logicalType", '"logicalType" must be a string, not 5')],
    ),
    # defaults
    (
        "default-string-for-int",
        record_with({"name": "x", "type": "int", "default": "1"}),
        [("/fields/0/default", f'the default "1" does not match the type: {INT_RULE}, got "1"')],
    ),
    (
        "default-out-of-int-range",
        record_with({"name": "x", "type": "int", "default": 3000000000}),
        [
            (
                "/fields/0/default",
                f"the default 3000000000 does not match the type: {INT_RULE}, got 3000000000",
            )
        ],
    ),
    (
        "default-float-for-long",
        record_with({"name": "x", "type": "long", "default": 1.5}),
        [
            (
                "/fields/0/default",
                "the default 1.5 does not match the type: expected a long "
                "(integer from -9223372036854775808 to 9223372036854775807), got 1.5",
            )
        ],
    ),
    (
        "default-in-no-union-branch",
        record_with({"name": "x", "type": ["null", "string"], "default": 1}),
        [
            (
                "/fields/0/default",
                "the default 1 does not match the type: it matches no branch of the union "
                "(null: expected null, got 1; string: expected a string, got 1)",
            )
        ],
    ),
    (
        "default-bytes-above-255",
        record_with({"name": "x", "type": "bytes", "default": "\u0100"}),
        [
            (
                "/fields/0/default",
                'the default "\u0100" does not match the type: '
                "a bytes default must use only code points 0-255 (one per byte)",
            )
        ],
    ),
    (
        "default-fixed-wrong-length",
        record_with({"name": "x", "type": {"type": "fixed", "name": "F", "size": 2}, "default": "abc"}),
        [
            (
                "/fields/0/default",
                'the default "abc" does not match the type: '
                "a default for fixed F must be 2 bytes long, not 3",
            )
        ],
    ),
    (
        "default-not-a-symbol",
        record_with({"name": "x", "type": {"type": "enum", "name": "E", "symbols": ["A"]}, "default": "B"}),
        [
            (
                "/fields/0/default",
                'the default "B" does not match the type: expected one of the symbols of enum E (A), got "B"',
            )
        ],
    ),
    (
        "default-record-missing-field",
        record_with(
            {
                "name": "x",
                "type": {"type": "record", "name": "B", "fields": [{"name": "y", "type": "int"}]},
                "default": {},
            }
        ),
        [
            (
                "/fields/0/default",
                "the default {} does not match the type: "
                'field "y" of record B has no default, so the object must give it',
            )
        ],
    ),
    (
        "default-nested-record-array",
        record_with(
            {
                "name": "x",
                "type": {
                    "type": "record",
                    "name": "B",
                    "fields": [{"name": "y", "type": {"type": "array", "items": "int"}}],
                },
                "default": {"y": [1, "2"]},
            }
        ),
        [
            (
                "/fields/0/default",
                'the default {"y": [1, "2"]} does not match the type: '
                f'field "y": item 1: {INT_RULE}, got "2"',
            )
        ],
    ),
    (
        "default-map-value",
        record_with({"name": "x", "type": {"type": "map", "values": "boolean"}, "default": {"k": 1}}),
        [
            (
                "/fields/0/default",
                'the default {"k": 1} does not match the type: value "k": expected true or false, got 1',
            )
        ],
    ),
    (
        "default-boolean-for-double",
        record_with({"name": "x", "type": "double", "default": True}),
        [
            (
                "/fields/0/default",
                "the default true does not match the type: expected a number for double, got true",
            )
        ],
    ),
    (
        "default-zero-for-null",
        record_with({"name": "x", "type": "null", "default": 0}),
        [("/fields/0/default", "the default 0 does not match the type: expected null, got 0")],
    ),
    (
        "enum-default-not-a-symbol",
        '{"type": "enum", "name": "E", "symbols": ["A"], "default": "Z"}',
        [("/default", 'the enum default "Z" is not one of its symbols')],
    ),
    (
        "default-of-a-recursive-record",
        json.dumps(
            {
                "type": "record",
                "name": "Node",
                "fields": [
                    {"name": "v", "type": "int"},
                    {"name": "next", "type": ["null", "Node"], "default": None},
                    {"name": "child", "type": ["Node", "null"], "default": {"v": 1, "next": {"v": "x"}}},
                ],
            }
        ),
        [
            (
                "/fields/2/default",
                'the default {"v": 1, "next": {"v": "x"}} does not match the type: '
                'it matches no branch of the union (record "Node": field "next": it matches no branch of the '
                'union (null: expected null, got {"v": "x"}; record "Node": field "v": '
                f'{INT_RULE}, got "x"); null: expected null, got {{"v": 1, "next": {{"v": "x"}}}})',
            )
        ],
    ),
]


@pytest.mark.parametrize(("name", "text", "expected"), INVALID_VALUES, ids=[c[0] for c in INVALID_VALUES])
def test_invalid_values_are_refused_with_a_pointer(name: str, text: str, expected: list) -> None:
    with pytest.raises(InvalidSchemaError) as caught:
        parse_schema(text)
    assert [(p.pointer, p.message) for p in caught.value.problems] == expected
