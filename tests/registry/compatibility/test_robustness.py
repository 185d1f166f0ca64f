"""Hostile and half-right input: parsing and checking either succeed or raise InvalidSchemaError."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from registry.compatibility import InvalidSchemaError, check_compatibility, parse_schema

KEYS = ["type", "name", "namespace", "fields", "symbols", "items", "values", "size", "default", "aliases"]
KEYS += ["logicalType", "precision", "scale", "order", "doc"]
WORDS = [
    "record",
    "enum",
    "fixed",
    "array",
    "map",
    "int",
    "long",
    "string",
    "bytes",
    "null",
    "A",
    "a.B",
    "decimal",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**65), max_value=2**65),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(WORDS),
    st.text(max_size=5),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), children, max_size=6),
    ),
    max_leaves=30,
)


def outcome(value: Any) -> str:
    try:
        parsed = parse_schema(json.dumps(value))
    except InvalidSchemaError as exc:
        assert exc.problems, "an InvalidSchemaError always lists its problems"
        assert all(p.pointer == "" or p.pointer.startswith("/") for p in exc.problems)
        return "invalid"
    conflicts = check_compatibility(parsed, [(1, parsed), (2, parse_schema('"string"'))], "FULL_TRANSITIVE")
    assert all(c.version == 2 for c in conflicts), "a schema is always compatible with itself"
    return "valid"


# Examples: tests/tiers.py's profile, 100 in the default tier and 400 in the full one.
@given(json_values)
def test_any_json_value_is_parsed_or_refused_cleanly(value: Any) -> None:
    assert outcome(value) in ("valid", "invalid")


def test_garbage_text_is_refused_cleanly() -> None:
    for text in [
        "",
        "{",
        "nul",
        '{"type": "record", "name": "A", "fields": [',
        "\u0000",
        "[1, 2",
        '"\\ud800"',
    ]:
        try:
            parse_schema(text)
        except InvalidSchemaError as exc:
            assert exc.problems
        else:
            raise AssertionError(f"accepted {text!r}")
