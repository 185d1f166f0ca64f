"""A JSON schema for people: its field tree, what changed between two versions, its readable form."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from registry.compatibility import Change, ChangeKind
from registry.schema_types import FieldRow, Reference
from registry.schema_types.json_schema import JsonSchema

JSON = JsonSchema()

ORDER: dict[str, Any] = {
    "title": "Order",
    "description": "One order.",
    "type": "object",
    "required": ["id", "status"],
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "status": {"type": "string", "enum": ["NEW", "PAID"], "default": "NEW"},
        "email": {"type": ["string", "null"], "format": "email", "confluent:tags": ["PII"]},
        "items": {
            "type": "array",
            "items": {"$ref": "#/definitions/Item"},
            "description": "What was bought.",
        },
        "gift": {"$ref": "#/definitions/Item"},
        "parent": {"$ref": "#"},
    },
    "definitions": {"Item": {"type": "object", "properties": {"price": {"type": "number", "maximum": 1000}}}},
}


def rows(schema: Any, references: list[Reference] | None = None) -> list[FieldRow]:
    return list(JSON.field_tree(JSON.parse(json.dumps(schema), references or [])).rows)


def test_the_tree_lists_properties_depth_first_with_types_defaults_docs_details_and_tags() -> None:
    assert rows(ORDER) == [
        FieldRow(0, "Order", "Order", "object", None, "One order.", is_field=False),
        FieldRow(1, "id", "Order.id", "integer", None, None, "required; minimum 1"),
        FieldRow(1, "status", "Order.status", "enum", '"NEW"', None, 'required; values: "NEW", "PAID"'),
        FieldRow(1, "email", "Order.email", "string | null", None, None, "format: email", ("PII",)),
        FieldRow(1, "items", "Order.items", "array<object>", None, "What was bought."),
        FieldRow(2, "price", "Order.items[].price", "number", None, None, "maximum 1000"),
        FieldRow(1, "gift", "Order.gift", "object", None, None, "fields: see Order.items[]"),
        FieldRow(1, "parent", "Order.parent", "object", None, "One order.", "fields: see Order"),
    ]
    assert rows(ORDER)[0].is_field is False and rows(ORDER)[1].is_field is True


def test_a_choice_of_several_objects_names_the_choice_each_row_belongs_to() -> None:
    card = {"type": "object", "properties": {"last4": {"type": "string"}}}
    bank = {"type": "object", "properties": {"iban": {"type": "string"}}, "required": ["iban"]}
    schema = {"type": "object", "properties": {"method": {"oneOf": [card, bank]}}}
    assert [(r.depth, r.name, r.path, r.type, r.detail) for r in rows(schema)] == [
        (0, "$", "$", "object", None),
        (1, "method", "$.method", "object | object", None),
        (2, "(object)", "$.method", "object", None),
        (3, "last4", "$.method.last4", "string", None),
        (2, "(object)", "$.method", "object", None),
        (3, "iban", "$.method.iban", "string", "required"),
    ]


def test_a_reference_s_properties_are_expanded_in_the_tree() -> None:
    customer = JSON.parse('{"type": "object", "properties": {"name": {"type": "string"}}}')
    schema = {"type": "object", "properties": {"buyer": {"$ref": "customer.json"}}}
    assert [r.path for r in rows(schema, [Reference("customer.json", customer)])] == [
        "$",
        "$.buyer",
        "$.buyer.name",
    ]


def diff(old: Any, new: Any) -> list[Change]:
    return JSON.diff(JSON.parse(json.dumps(old)), JSON.parse(json.dumps(new)))


def test_the_diff_reports_added_removed_retyped_default_doc_and_enum_changes() -> None:
    new = json.loads(json.dumps(ORDER))
    props = new["properties"]
    props["id"] = {"type": "string"}
    props["status"] = {"type": "string", "enum": ["NEW", "SHIPPED"], "default": "SHIPPED"}
    props["items"]["description"] = "The lines."
    props["note"] = {"type": "string", "default": ""}
    del props["email"]
    new["definitions"]["Item"]["properties"]["price"] = {"type": "integer"}
    new["required"] = ["status"]
    assert diff(ORDER, new) == [
        Change(ChangeKind.TYPE_CHANGED, "Order.id", "integer, required", "string"),
        Change(ChangeKind.DEFAULT_CHANGED, "Order.status", '"NEW"', '"SHIPPED"'),
        Change(ChangeKind.SYMBOLS_CHANGED, "Order.status", '"PAID" removed', '"SHIPPED" added'),
        Change(ChangeKind.DOC_CHANGED, "Order.items", "What was bought.", "The lines."),
        Change(ChangeKind.TYPE_CHANGED, "Order.items[].price", "number", "integer"),
        Change(ChangeKind.FIELD_ADDED, "Order.note", None, 'string, default ""'),
        Change(ChangeKind.FIELD_REMOVED, "Order.email", "string | null", None),
    ]


def test_an_object_made_nullable_is_one_type_change_and_its_own_changes_still_show() -> None:
    item = {"type": "object", "properties": {"sku": {"type": "string"}}}
    nullable = {"anyOf": [{"type": "null"}, {"type": "object", "properties": {"sku": {"type": "integer"}}}]}
    assert diff({"properties": {"item": item}}, {"properties": {"item": nullable}}) == [
        Change(ChangeKind.TYPE_CHANGED, "$.item", "object", "null | object"),
        Change(ChangeKind.TYPE_CHANGED, "$.item.sku", "string", "integer"),
    ]


def test_recursive_schemas_diff_once() -> None:
    node = {"title": "Node", "properties": {"next": {"$ref": "#"}, "v": {"type": "string"}}}
    changed = {"title": "Node", "properties": {"next": {"$ref": "#"}, "v": {"type": "number"}}}
    assert diff(node, changed) == [Change(ChangeKind.TYPE_CHANGED, "Node.v", "string", "number")]
    assert diff(node, node) == []


def test_readable_is_the_identity_form_laid_out_with_sorted_keys() -> None:
    parsed = JSON.parse('{"type": "object", "properties": {"b": {"type": "string"}, "a": {}}}')
    text = JSON.readable(parsed)
    assert json.loads(text) == json.loads(parsed.identity)
    assert text.splitlines()[:4] == ["{", '  "properties": {', '    "a": {},', '    "b": {']


@pytest.mark.parametrize("recursion_limit", [1000, 2500, 20_000])
def test_a_long_chain_of_refs_ends_everywhere_without_a_crash(recursion_limit: int) -> None:
    """The same verdicts whatever the recursion limit: Python's default, the 2500 a CEL environment
    (celpy) leaves behind in a test worker, and one under which the chain's recursion would fit."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(recursion_limit)
    try:
        _a_long_chain_of_refs_ends_everywhere_without_a_crash()
    finally:
        sys.setrecursionlimit(limit)


def _a_long_chain_of_refs_ends_everywhere_without_a_crash() -> None:
    from registry.compatibility import InvalidSchemaError
    from registry.schema_types.json_schema.rules import MAX_DEPTH
    from registry.schema_types.json_schema.tree import MAX_TREE_DEPTH

    count = 4 * MAX_DEPTH
    definitions: dict[str, Any] = {
        f"D{i}": {"type": "object", "properties": {"next": {"$ref": f"#/definitions/D{i + 1}"}}}
        for i in range(count)
    }
    definitions[f"D{count}"] = {"type": "string"}
    one = JSON.parse(json.dumps({"$ref": "#/definitions/D0", "definitions": definitions}))
    definitions[f"D{count}"] = {"type": "integer"}
    two = JSON.parse(json.dumps({"$ref": "#/definitions/D0", "definitions": definitions}))
    tree = JSON.field_tree(one).rows
    assert len(tree) == MAX_TREE_DEPTH + 1
    assert "deeper fields not shown" in (tree[-1].detail or "")
    assert JSON.diff(one, two) == []  # the change is deeper than the diff looks
    with pytest.raises(InvalidSchemaError, match="too deeply to compare"):  # not a RecursionError
        JSON.reads(two, one)
