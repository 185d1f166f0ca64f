"""The metaschema check: the compiled validator decides validity, jsonschema says where and why."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from registry.compatibility import InvalidSchemaError
from registry.schema_types.json_schema import metaschema, parse_json_schema
from registry.schema_types.json_schema.drafts import DRAFTS

_DRAFT_URIS = [draft.uri for draft in DRAFTS]


@pytest.mark.parametrize("uri", _DRAFT_URIS)
def test_a_valid_schema_never_reaches_jsonschema(uri: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(name: str) -> Any:
        raise AssertionError("jsonschema walked a valid schema")

    monkeypatch.setattr(metaschema, "_validator", refuse)
    schema = {"$schema": uri, "type": "object", "properties": {"a": {"type": "string", "minLength": 1}}}
    assert parse_json_schema(json.dumps(schema)).draft.uri == uri


@pytest.mark.parametrize("uri", _DRAFT_URIS)
def test_an_invalid_schema_found_by_the_fast_check_keeps_its_pointer_line_and_column(uri: str) -> None:
    text = (
        f'{{\n  "$schema": "{uri}",\n  "type": "object",\n  "properties": {{\n'
        '    "a": {"type": "strin"},\n    "b": {"minLength": -1}\n  }\n}'
    )
    draft = next(d for d in DRAFTS if d.uri == uri)
    assert metaschema._fast_validator(draft.name).is_valid(json.loads(text)) is False
    with pytest.raises(InvalidSchemaError) as caught:
        parse_json_schema(text)
    assert [(p.pointer, p.line, p.column) for p in caught.value.problems] == [
        ("/properties/a/type", 5, 19),
        ("/properties/b/minLength", 6, 24),
    ]
    assert all(p.message.startswith(f"not valid {draft.name}: ") for p in caught.value.problems)


def test_a_value_the_fast_check_cannot_take_is_judged_by_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def is_valid(self, document: Any) -> bool:
            raise ValueError("cannot convert")

    monkeypatch.setattr(metaschema, "_fast_validator", lambda name: Broken())
    parse_json_schema('{"type": "string"}')
    with pytest.raises(InvalidSchemaError) as caught:
        parse_json_schema('{"type": "strin"}')
    assert [p.pointer for p in caught.value.problems] == ["/type"]


_KEYWORDS = [
    *("type", "properties", "required", "additionalProperties", "items", "prefixItems", "additionalItems"),
    *("minLength", "maximum", "exclusiveMinimum", "multipleOf", "enum", "const", "anyOf", "oneOf", "not"),
    *("$ref", "$id", "id", "definitions", "$defs", "pattern", "format", "uniqueItems", "dependencies"),
    *("dependentRequired", "if", "contains", "propertyNames", "$anchor", "$dynamicRef", "$recursiveRef"),
    *("default", "examples", "title", "unevaluatedProperties", "patternProperties", "$vocabulary", "x"),
]
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, 1.0, 2.5, -1.5, 2**64, -(2**64), 10**30, 1e300]),
    st.sampled_from(["", "a", "string", "object", "integer", "objec", "#", "#/definitions/a", "^a$", "["]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(_KEYWORDS), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(st.dictionaries(st.sampled_from(_KEYWORDS), _VALUES, max_size=6), st.sampled_from(DRAFTS))
def test_the_fast_check_accepts_nothing_jsonschema_refuses(document: dict[str, Any], draft: Any) -> None:
    """Soundness of the shortcut: a document the compiled validator passes has no problem for jsonschema
    either (the converse costs only time: jsonschema then finds nothing and the document is valid)."""
    if metaschema._fast_valid(document, draft):
        assert list(metaschema._validator(draft.name).iter_errors(document)) == []
