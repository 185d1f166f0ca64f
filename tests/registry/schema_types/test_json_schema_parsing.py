"""JSON Schema text to a parsed schema: drafts, metaschema problems with their places, $refs, limits,
and the canonical forms two texts of one schema share."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import pytest

from registry.compatibility import InvalidSchemaError, SchemaProblem, parse_schema
from registry.schema_types import Reference
from registry.schema_types.json_schema import MAX_NESTING, MAX_SCHEMA_CHARS, parse_json_schema


def problems(text: str, references: list[Reference] | None = None) -> list[SchemaProblem]:
    with pytest.raises(InvalidSchemaError) as caught:
        parse_json_schema(text, references or [])
    return caught.value.problems


@pytest.mark.parametrize(
    ("declared", "draft", "schema"),
    [
        # each with a keyword only its own draft reads this way
        ("http://json-schema.org/draft-04/schema#", "draft-04", {"maximum": 5, "exclusiveMaximum": True}),
        ("http://json-schema.org/draft-06/schema#", "draft-06", {"exclusiveMaximum": 5, "examples": [1]}),
        (
            "http://json-schema.org/draft-07/schema#",
            "draft-07",
            {"if": {"minimum": 0}, "then": {"maximum": 9}},
        ),
        ("https://json-schema.org/draft/2019-09/schema", "2019-09", {"dependentRequired": {"a": ["b"]}}),
        ("https://json-schema.org/draft/2020-12/schema", "2020-12", {"prefixItems": [{"type": "string"}]}),
    ],
)
def test_each_draft_is_accepted_as_its_schema_keyword_names_it(
    declared: str, draft: str, schema: dict
) -> None:
    parsed = parse_json_schema(json.dumps({"$schema": declared, **schema}))
    assert parsed.draft.name == draft
    assert parsed.schema_type == "JSON"


def test_without_schema_keyword_a_document_is_draft_7_and_an_unknown_draft_is_refused() -> None:
    assert parse_json_schema('{"type": "string"}').draft.name == "draft-07"
    [problem] = problems('{"$schema": "http://example.com/my-draft", "type": "string"}')
    assert problem.pointer == "/$schema"
    assert "names no draft" in problem.message and "2020-12" in problem.message


def test_a_metaschema_violation_has_its_pointer_line_and_column() -> None:
    text = (
        '{\n  "type": "object",\n  "properties": {\n'
        '    "a": {"type": "strin"},\n    "b": {"minLength": -1}\n  }\n}'
    )
    found = problems(text)
    assert [(p.pointer, p.line, p.column) for p in found] == [
        ("/properties/a/type", 4, 19),
        ("/properties/b/minLength", 5, 24),
    ]
    assert "'strin' is not valid" in found[0].message
    assert "less than the minimum of 0" in found[1].message


def test_the_draft_decides_what_is_valid() -> None:
    # draft 4's exclusiveMinimum is a boolean, draft 6's a number
    text = '{"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 1, "exclusiveMinimum": 5}'
    assert [p.pointer for p in problems(text)] == ["/exclusiveMinimum"]
    parse_json_schema(text.replace("draft-04", "draft-06"))


def test_a_syntax_error_has_its_line_and_column() -> None:
    [problem] = problems('{\n  "type": "object",\n  "properties": {,}\n}')
    assert (problem.line, problem.column) == (3, 18)
    assert problem.message.startswith("the schema is not valid JSON")


def test_a_ref_to_another_document_resolves_to_the_reference_of_that_name() -> None:
    customer = parse_json_schema('{"type": "object", "properties": {"name": {"type": "string"}}}')
    text = json.dumps({"properties": {"buyer": {"$ref": "customer.json"}}})
    order = parse_json_schema(text, [Reference("customer.json", customer)])
    assert order.model.root().properties["buyer"].properties["name"].kind == "string"
    [problem] = problems(text)
    assert problem.pointer == "/properties/buyer/$ref"
    assert "'customer.json'" in problem.message and "add a reference named 'customer.json'" in problem.message
    [other] = problems(text, [Reference("other.json", customer)])
    assert "given: 'other.json'" in other.message


def test_a_relative_ref_resolves_against_the_document_id() -> None:
    customer = parse_json_schema('{"$defs": {"Name": {"type": "string"}}}')
    text = json.dumps(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://example.com/schemas/order.json",
            "properties": {"buyer": {"$ref": "customer.json#/$defs/Name"}},
        }
    )
    for name in ("customer.json", "https://example.com/schemas/customer.json"):
        order = parse_json_schema(text, [Reference(name, customer)])
        assert order.model.root().properties["buyer"].kind == "string"
    assert problems(text, [Reference("https://example.com/customer.json", customer)])


def test_local_refs_resolve_in_the_document_and_a_missing_one_is_named() -> None:
    text = json.dumps(
        {
            "definitions": {"Id": {"type": "integer"}},
            "$defs": {"Name": {"type": "string"}},
            "properties": {"id": {"$ref": "#/definitions/Id"}, "name": {"$ref": "#/$defs/Name"}},
        }
    )
    root = parse_json_schema(text).model.root()
    assert (root.properties["id"].kind, root.properties["id"].integer) == ("number", True)
    assert root.properties["name"].kind == "string"
    [problem] = problems(text.replace("#/$defs/Name", "#/$defs/Nom"))
    assert problem.pointer == "/properties/name/$ref"
    assert "'#/$defs/Nom' leads nowhere" in problem.message


def test_a_ref_inside_data_is_data() -> None:
    parse_json_schema('{"enum": [{"$ref": "nowhere.json"}], "default": {"$ref": "#/nothing"}}')


def test_a_recursive_schema_parses_and_a_ref_that_only_leads_to_itself_is_refused() -> None:
    recursive = parse_json_schema('{"properties": {"next": {"$ref": "#"}, "value": {"type": "string"}}}')
    root = recursive.model.root()
    assert root.properties["next"] is root
    found = problems('{"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}}')
    assert [p.pointer for p in found] == ["/definitions/a/$ref", "/definitions/b/$ref"]
    assert all("is a loop" in p.message for p in found)


def test_a_reference_must_be_a_json_schema() -> None:
    avro = parse_schema('{"type": "fixed", "name": "Money", "size": 8}')
    [problem] = problems('{"$ref": "money"}', [Reference("money", avro)])  # type: ignore[arg-type]
    assert "is a AVRO schema" in problem.message


def test_size_and_nesting_are_limited() -> None:
    [too_big] = problems(json.dumps({"description": "x" * MAX_SCHEMA_CHARS}))
    assert f"at most {MAX_SCHEMA_CHARS}" in too_big.message
    deep: Any = {"type": "string"}
    for _ in range(MAX_NESTING):
        deep = {"items": deep}
    [too_deep] = problems(json.dumps(deep))
    assert f"more than {MAX_NESTING} deep" in too_deep.message and too_deep.line == 1
    allowed: Any = {"type": "string"}
    for _ in range(MAX_NESTING - 1):
        allowed = {"items": allowed}
    assert parse_json_schema(json.dumps(allowed)).draft.name == "draft-07"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"enum": ["\ud800"]}', "lone surrogate U+D800"),
        ('{"enum": ["\\udc00"]}', "lone surrogate U+DC00"),
        ('{"maximum": NaN}', "NaN is not a JSON value"),
        ('{"maximum": 1e400}', "too large"),
        ('{"maximum": ' + "9" * 5000 + "}", "not valid JSON"),
    ],
)
def test_text_that_is_not_unicode_or_json_numbers_is_refused(text: str, says: str) -> None:
    [problem] = problems(text)
    assert says in problem.message


def test_a_huge_enum_parses_quickly() -> None:
    start = time.perf_counter()
    parsed = parse_json_schema(json.dumps({"enum": [f"value-{i}" for i in range(50_000)]}))
    assert parsed.model.root().kind == "enum"
    assert time.perf_counter() - start < 5


def test_texts_differing_in_layout_and_key_order_share_canonical_identity_and_fingerprint() -> None:
    one = parse_json_schema('{"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}}')
    two = parse_json_schema(
        '{\n  "properties" : {"a": {"maxLength": 3,\n "type": "string"}},\n  "type":"object"\n}'
    )
    assert one.text != two.text
    assert (one.canonical, one.identity, one.fingerprint) == (two.canonical, two.identity, two.fingerprint)
    assert one.canonical == '{"properties":{"a":{"maxLength":3,"type":"string"}},"type":"object"}'
    assert one.fingerprint == hashlib.sha256(one.canonical.encode()).hexdigest()


def test_different_schemas_have_different_canonical_forms() -> None:
    one = parse_json_schema('{"type": "string", "description": "a name"}')
    for other in ('{"type": "string"}', '{"type": "string", "description": "a nom"}', '{"type": ["string"]}'):
        parsed = parse_json_schema(other)
        assert (parsed.canonical, parsed.identity, parsed.fingerprint) != (
            one.canonical,
            one.identity,
            one.fingerprint,
        )
