"""JSON Schema compatibility, case by case, as Confluent Schema Registry decides it.

Each case's id names the rule: the ``Difference.Type`` Confluent's ``SchemaDiff`` reports (compatible
unless listed as incompatible) and, for content models, the rule as Confluent documents it (R. Yokota,
"Understanding JSON Schema Compatibility", Confluent, 2021: backward compatibility may add optional
properties to a closed content model and remove them from an open one; forward compatibility the other
way round; a partially open model lets a property come or go when its schema is covered). ``expected``
lists the incompatible kinds the new schema's conflicts report under ``level`` against one older version.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from registry.compatibility import CompatibilityLevel, InvalidSchemaError, parse_schema
from registry.schema_types.json_schema import COMPATIBLE, Difference, JsonSchema
from registry.schema_types.json_schema import rules as json_rules

JSON = JsonSchema()
D7 = "http://json-schema.org/draft-07/schema#"
D4 = "http://json-schema.org/draft-04/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"
D2020 = "https://json-schema.org/draft/2020-12/schema"


def obj(properties: dict[str, Any] | None = None, **keywords: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties or {}, **keywords}


S, N, I = {"type": "string"}, {"type": "number"}, {"type": "integer"}  # noqa: E741
CLOSED = {"additionalProperties": False}


def kinds(old: Any, new: Any, level: str) -> list[str]:
    v1, v2 = JSON.parse(json.dumps(old)), JSON.parse(json.dumps(new))
    return sorted(c.incompatibility.kind.value for c in JSON.conflicts(v2, [(1, v1)], level))


CASES = [
    # --- content models: properties added and removed
    (
        "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL: backward may not add to an open model",
        obj({"a": S}),
        obj({"a": S, "b": N}),
        "BACKWARD",
        ["OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"],
    ),
    (
        "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL: forward may add to an open model",
        obj({"a": S}),
        obj({"a": S, "b": N}),
        "FORWARD",
        [],
    ),
    (
        "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL: backward may add to a closed model",
        obj({"a": S}, **CLOSED),
        obj({"a": S, "b": N}, **CLOSED),
        "BACKWARD",
        [],
    ),
    (
        "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL: forward may not add to a closed model",
        obj({"a": S}, **CLOSED),
        obj({"a": S, "b": N}, **CLOSED),
        "FORWARD",
        ["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"],
    ),
    (
        "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL: backward may not remove from a closed model",
        obj({"a": S, "b": N}, **CLOSED),
        obj({"a": S}, **CLOSED),
        "BACKWARD",
        ["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"],
    ),
    (
        "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL: backward may remove from an open model",
        obj({"a": S, "b": N}),
        obj({"a": S}),
        "BACKWARD",
        [],
    ),
    (
        "FULL: neither way for an optional property of an open model",
        obj({"a": S}),
        obj({"a": S, "b": N}),
        "FULL",
        ["OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"],
    ),
    (
        "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL: a property that accepts anything",
        obj({"a": S}),
        obj({"a": S, "b": {}}),
        "BACKWARD",
        [],
    ),
    (
        "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL: a property that was never allowed",
        obj({"a": S, "b": False}, **CLOSED),
        obj({"a": S}, **CLOSED),
        "BACKWARD",
        [],
    ),
    (
        "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL: additionalProperties covers the new one",
        obj({"a": S}, additionalProperties=S),
        obj({"a": S, "b": S}, additionalProperties=S),
        "BACKWARD",
        [],
    ),
    (
        "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL: extra strings are no numbers",
        obj({"a": S}, additionalProperties=S),
        obj({"a": S, "b": N}, additionalProperties=S),
        "BACKWARD",
        ["PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "TYPE_CHANGED"],
    ),
    (
        "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL: additionalProperties reads it",
        obj({"a": S, "b": S}, **CLOSED),
        obj({"a": S}, additionalProperties=S),
        "BACKWARD",
        [],
    ),
    (
        "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL: additionalProperties refuses it",
        obj({"a": S, "b": N}, **CLOSED),
        obj({"a": S}, additionalProperties=S),
        "BACKWARD",
        ["PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "TYPE_CHANGED"],
    ),
    (
        "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL: patternProperties reads it",
        obj({"a": S, "I_1": I}, **CLOSED),
        obj({"a": S}, patternProperties={"^I_": N}, **CLOSED),
        "BACKWARD",
        [],
    ),
    (
        "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL: a default fills it",
        obj({"a": S}, **CLOSED),
        obj({"a": S, "b": {**S, "default": "x"}}, required=["b"], **CLOSED),
        "BACKWARD",
        [],
    ),
    (
        "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL: the writer's data never has it",
        obj({"a": S}, **CLOSED),
        obj({"a": S, "b": S}, required=["b"], **CLOSED),
        "BACKWARD",
        ["REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL"],
    ),
    (
        "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
        obj({"a": S}),
        obj({"a": S, "b": S}, required=["b"]),
        "BACKWARD",
        ["REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"],
    ),
    (
        "ADDITIONAL_PROPERTIES_ADDED: opening a closed model",
        obj({"a": S}, **CLOSED),
        obj({"a": S}),
        "BACKWARD",
        [],
    ),
    (
        "ADDITIONAL_PROPERTIES_REMOVED: closing an open model",
        obj({"a": S}),
        obj({"a": S}, **CLOSED),
        "BACKWARD",
        ["ADDITIONAL_PROPERTIES_REMOVED"],
    ),
    (
        "ADDITIONAL_PROPERTIES_NARROWED: any value to a schema's",
        obj({"a": S}, additionalProperties=True),
        obj({"a": S}, additionalProperties=N),
        "BACKWARD",
        ["ADDITIONAL_PROPERTIES_NARROWED"],
    ),
    (
        "ADDITIONAL_PROPERTIES_EXTENDED: a schema's values to any",
        obj({"a": S}, additionalProperties=N),
        obj({"a": S}, additionalProperties=True),
        "BACKWARD",
        [],
    ),
    (
        "additionalProperties schemas compared: TYPE_CHANGED",
        obj({}, additionalProperties=S),
        obj({}, additionalProperties=N),
        "BACKWARD",
        ["TYPE_CHANGED"],
    ),
    (
        "UNEVALUATED_PROPERTIES_REMOVED (2020-12): closing with unevaluatedProperties",
        {"$schema": D2020, **obj({"a": S})},
        {"$schema": D2020, **obj({"a": S}, unevaluatedProperties=False)},
        "BACKWARD",
        ["UNEVALUATED_PROPERTIES_REMOVED"],
    ),
    (
        "UNEVALUATED_PROPERTIES_ADDED (2020-12): opening again",
        {"$schema": D2020, **obj({"a": S}, unevaluatedProperties=False)},
        {"$schema": D2020, **obj({"a": S})},
        "BACKWARD",
        [],
    ),
    (
        "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL (2019-09): closed by unevaluatedProperties",
        {"$schema": D2019, **obj({"a": S}, unevaluatedProperties=False)},
        {"$schema": D2019, **obj({"a": S, "b": N}, unevaluatedProperties=False)},
        "BACKWARD",
        [],
    ),
    (
        "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL (2020-12 unevaluated)",
        {"$schema": D2020, **obj({"a": S, "b": N}, unevaluatedProperties=False)},
        {"$schema": D2020, **obj({"a": S}, unevaluatedProperties=S)},
        "BACKWARD",
        ["PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "TYPE_CHANGED"],
    ),
    # --- required
    (
        "REQUIRED_ATTRIBUTE_ADDED",
        obj({"a": S}),
        obj({"a": S}, required=["a"]),
        "BACKWARD",
        ["REQUIRED_ATTRIBUTE_ADDED"],
    ),
    (
        "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED",
        obj({"a": S}),
        obj({"a": {**S, "default": ""}}, required=["a"]),
        "BACKWARD",
        [],
    ),
    ("REQUIRED_ATTRIBUTE_REMOVED: backward", obj({"a": S}, required=["a"]), obj({"a": S}), "BACKWARD", []),
    (
        "REQUIRED_ATTRIBUTE_REMOVED: forward is the reader requiring it",
        obj({"a": S}, required=["a"]),
        obj({"a": S}),
        "FORWARD",
        ["REQUIRED_ATTRIBUTE_ADDED"],
    ),
    # --- types
    ("TYPE_CHANGED: string to number", obj({"a": S}), obj({"a": N}), "BACKWARD", ["TYPE_CHANGED"]),
    ("TYPE_EXTENDED: integer within number", obj({"a": I}), obj({"a": N}), "BACKWARD", []),
    ("TYPE_NARROWED: number to integer", obj({"a": N}), obj({"a": I}), "BACKWARD", ["TYPE_NARROWED"]),
    ("SUM_TYPE_EXTENDED: string to string or null", S, {"type": ["string", "null"]}, "BACKWARD", []),
    ("TYPE_CHANGED: string or null to string", {"type": ["string", "null"]}, S, "BACKWARD", ["TYPE_CHANGED"]),
    ("anything may become the empty schema", obj({"a": S}, required=["a"]), {}, "BACKWARD", []),
    ("TYPE_CHANGED: the empty schema to a string", {}, S, "BACKWARD", ["TYPE_CHANGED"]),
    ("false may become anything", False, S, "BACKWARD", []),
    (
        "DESCRIPTION_CHANGED, TITLE_CHANGED, DEFAULT_CHANGED, ID_CHANGED are compatible",
        {"$id": "urn:a", "title": "A", "description": "x", "default": "1", **S},
        {"$id": "urn:b", "title": "B", "description": "y", "default": "2", **S},
        "FULL",
        [],
    ),
    # --- enum and const
    ("ENUM_ARRAY_EXTENDED", {"enum": ["a", "b"]}, {"enum": ["a", "b", "c"]}, "BACKWARD", []),
    ("ENUM_ARRAY_NARROWED", {"enum": ["a", "b"]}, {"enum": ["a"]}, "BACKWARD", ["ENUM_ARRAY_NARROWED"]),
    ("ENUM_ARRAY_CHANGED", {"enum": ["a", "b"]}, {"enum": ["a", "c"]}, "BACKWARD", ["ENUM_ARRAY_CHANGED"]),
    (
        "ENUM_ARRAY_EXTENDED: 1 and 1.0 are one JSON value",
        {"enum": [1, 2]},
        {"enum": [1.0, 2, 3]},
        "BACKWARD",
        [],
    ),
    ("ENUM_ARRAY_CHANGED: const", {"const": "a"}, {"const": "b"}, "BACKWARD", ["ENUM_ARRAY_CHANGED"]),
    ("PRODUCT_TYPE_NARROWED: a string's enum removed", {**S, "enum": ["a"]}, S, "BACKWARD", []),
    ("TYPE_CHANGED: an enum put on a string", S, {**S, "enum": ["a"]}, "BACKWARD", ["TYPE_CHANGED"]),
    (
        "COMBINED_TYPE_SUBSCHEMAS_CHANGED: forward of a typed enum extended",
        {**S, "enum": ["a"]},
        {**S, "enum": ["a", "b"]},
        "FORWARD",
        ["COMBINED_TYPE_SUBSCHEMAS_CHANGED"],
    ),
    # --- numbers
    ("MAXIMUM_DECREASED", {**N, "maximum": 10}, {**N, "maximum": 9}, "BACKWARD", ["MAXIMUM_DECREASED"]),
    ("MAXIMUM_INCREASED", {**N, "maximum": 10}, {**N, "maximum": 11}, "BACKWARD", []),
    ("MAXIMUM_ADDED", N, {**N, "maximum": 10}, "BACKWARD", ["MAXIMUM_ADDED"]),
    ("MAXIMUM_REMOVED", {**N, "maximum": 10}, N, "BACKWARD", []),
    ("MINIMUM_INCREASED", {**N, "minimum": 0}, {**N, "minimum": 1}, "BACKWARD", ["MINIMUM_INCREASED"]),
    ("MINIMUM_DECREASED", {**N, "minimum": 1}, {**N, "minimum": 0}, "BACKWARD", []),
    ("EXCLUSIVE_MINIMUM_ADDED", N, {**N, "exclusiveMinimum": 0}, "BACKWARD", ["EXCLUSIVE_MINIMUM_ADDED"]),
    (
        "EXCLUSIVE_MAXIMUM_DECREASED",
        {**N, "exclusiveMaximum": 5},
        {**N, "exclusiveMaximum": 4},
        "BACKWARD",
        ["EXCLUSIVE_MAXIMUM_DECREASED"],
    ),
    (
        "EXCLUSIVE_MAXIMUM_ADDED: draft 4's exclusiveMaximum true makes the maximum exclusive",
        {"$schema": D4, **N, "maximum": 5},
        {"$schema": D4, **N, "maximum": 5, "exclusiveMaximum": True},
        "BACKWARD",
        ["EXCLUSIVE_MAXIMUM_ADDED"],
    ),
    (
        "MULTIPLE_OF_EXPANDED",
        {**N, "multipleOf": 2},
        {**N, "multipleOf": 4},
        "BACKWARD",
        ["MULTIPLE_OF_EXPANDED"],
    ),
    ("MULTIPLE_OF_REDUCED", {**N, "multipleOf": 4}, {**N, "multipleOf": 2}, "BACKWARD", []),
    (
        "MULTIPLE_OF_CHANGED",
        {**N, "multipleOf": 2},
        {**N, "multipleOf": 3},
        "BACKWARD",
        ["MULTIPLE_OF_CHANGED"],
    ),
    ("MULTIPLE_OF_REDUCED: decimals", {**N, "multipleOf": 0.5}, {**N, "multipleOf": 0.1}, "BACKWARD", []),
    ("MULTIPLE_OF_ADDED", N, {**N, "multipleOf": 2}, "BACKWARD", ["MULTIPLE_OF_ADDED"]),
    # --- strings
    (
        "MAX_LENGTH_DECREASED",
        {**S, "maxLength": 5},
        {**S, "maxLength": 4},
        "BACKWARD",
        ["MAX_LENGTH_DECREASED"],
    ),
    ("MAX_LENGTH_INCREASED", {**S, "maxLength": 5}, {**S, "maxLength": 6}, "BACKWARD", []),
    ("MAX_LENGTH_ADDED", S, {**S, "maxLength": 5}, "BACKWARD", ["MAX_LENGTH_ADDED"]),
    (
        "MIN_LENGTH_INCREASED",
        {**S, "minLength": 1},
        {**S, "minLength": 2},
        "BACKWARD",
        ["MIN_LENGTH_INCREASED"],
    ),
    ("MIN_LENGTH_REMOVED", {**S, "minLength": 1}, S, "BACKWARD", []),
    ("PATTERN_ADDED", S, {**S, "pattern": "^a"}, "BACKWARD", ["PATTERN_ADDED"]),
    ("PATTERN_CHANGED", {**S, "pattern": "^a"}, {**S, "pattern": "^b"}, "BACKWARD", ["PATTERN_CHANGED"]),
    ("PATTERN_REMOVED", {**S, "pattern": "^a"}, S, "BACKWARD", []),
    # --- arrays
    (
        "SCHEMA_ADDED: items constrained",
        {"type": "array"},
        {"type": "array", "items": S},
        "BACKWARD",
        ["SCHEMA_ADDED"],
    ),
    ("SCHEMA_REMOVED: items freed", {"type": "array", "items": S}, {"type": "array"}, "BACKWARD", []),
    (
        "TYPE_CHANGED: array items",
        {"type": "array", "items": S},
        {"type": "array", "items": N},
        "BACKWARD",
        ["TYPE_CHANGED"],
    ),
    (
        "ITEM_ADDED_TO_CLOSED_CONTENT_MODEL: tuple",
        {"type": "array", "items": [S], "additionalItems": False},
        {"type": "array", "items": [S, N], "additionalItems": False},
        "BACKWARD",
        [],
    ),
    (
        "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL: tuple",
        {"type": "array", "items": [S, N], "additionalItems": False},
        {"type": "array", "items": [S], "additionalItems": False},
        "BACKWARD",
        ["ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL"],
    ),
    (
        "ITEM_ADDED_TO_OPEN_CONTENT_MODEL: tuple",
        {"type": "array", "items": [S]},
        {"type": "array", "items": [S, N]},
        "BACKWARD",
        ["ITEM_ADDED_TO_OPEN_CONTENT_MODEL"],
    ),
    (
        "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL: 2020-12 prefixItems closed by items false",
        {"$schema": D2020, "prefixItems": [S, N], "items": False},
        {"$schema": D2020, "prefixItems": [S], "items": False},
        "BACKWARD",
        ["ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL"],
    ),
    (
        "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL: draft 7 tuple to 2020-12 prefixItems",
        {"items": [S, N], "additionalItems": False},
        {"$schema": D2020, "prefixItems": [S], "items": N},
        "BACKWARD",
        [],
    ),
    (
        "ADDITIONAL_ITEMS_REMOVED",
        {"items": [S], "additionalItems": True},
        {"items": [S], "additionalItems": False},
        "BACKWARD",
        ["ADDITIONAL_ITEMS_REMOVED"],
    ),
    (
        "MIN_ITEMS_INCREASED and MAX_ITEMS_DECREASED",
        {"type": "array", "minItems": 1, "maxItems": 5},
        {"type": "array", "minItems": 2, "maxItems": 4},
        "BACKWARD",
        ["MAX_ITEMS_DECREASED", "MIN_ITEMS_INCREASED"],
    ),
    (
        "MIN_ITEMS_DECREASED and MAX_ITEMS_REMOVED",
        {"type": "array", "minItems": 2, "maxItems": 5},
        {"type": "array", "minItems": 1},
        "BACKWARD",
        [],
    ),
    (
        "UNIQUE_ITEMS_ADDED",
        {"type": "array"},
        {"type": "array", "uniqueItems": True},
        "BACKWARD",
        ["UNIQUE_ITEMS_ADDED"],
    ),
    ("UNIQUE_ITEMS_REMOVED", {"type": "array", "uniqueItems": True}, {"type": "array"}, "BACKWARD", []),
    (
        "MAX_CONTAINS_DECREASED (2019-09)",
        {"$schema": D2019, "contains": S, "maxContains": 3},
        {"$schema": D2019, "contains": S, "maxContains": 2},
        "BACKWARD",
        ["MAX_CONTAINS_DECREASED"],
    ),
    # --- dependencies
    (
        "DEPENDENCY_ARRAY_ADDED",
        obj({"a": S, "b": S}),
        obj({"a": S, "b": S}, dependencies={"a": ["b"]}),
        "BACKWARD",
        ["DEPENDENCY_ARRAY_ADDED"],
    ),
    (
        "DEPENDENCY_ARRAY_NARROWED",
        obj({"a": S}, dependencies={"a": ["b", "c"]}),
        obj({"a": S}, dependencies={"a": ["b"]}),
        "BACKWARD",
        [],
    ),
    (
        "DEPENDENCY_ARRAY_EXTENDED",
        obj({"a": S}, dependencies={"a": ["b"]}),
        obj({"a": S}, dependencies={"a": ["b", "c"]}),
        "BACKWARD",
        ["DEPENDENCY_ARRAY_EXTENDED"],
    ),
    (
        "DEPENDENCY_ARRAY_ADDED (2019-09 dependentRequired)",
        {"$schema": D2019, **obj({"a": S})},
        {"$schema": D2019, **obj({"a": S}, dependentRequired={"a": ["b"]})},
        "BACKWARD",
        ["DEPENDENCY_ARRAY_ADDED"],
    ),
    (
        "DEPENDENCY_SCHEMA_ADDED",
        obj({"a": S}),
        obj({"a": S}, dependencies={"a": {"required": ["b"]}}),
        "BACKWARD",
        ["DEPENDENCY_SCHEMA_ADDED"],
    ),
    (
        "DEPENDENCY_SCHEMA_REMOVED",
        obj({"a": S}, dependencies={"a": {"required": ["b"]}}),
        obj({"a": S}),
        "BACKWARD",
        [],
    ),
    # --- combined schemas
    ("SUM_TYPE_EXTENDED: oneOf gains a choice", {"oneOf": [S]}, {"oneOf": [S, N]}, "BACKWARD", []),
    (
        "SUM_TYPE_NARROWED: oneOf loses a choice",
        {"oneOf": [S, N]},
        {"oneOf": [S]},
        "BACKWARD",
        ["SUM_TYPE_NARROWED"],
    ),
    ("SUM_TYPE_EXTENDED: a lone schema becomes one choice of an anyOf", S, {"anyOf": [N, S]}, "BACKWARD", []),
    (
        "PRODUCT_TYPE_EXTENDED: allOf gains a part",
        {"allOf": [S]},
        {"allOf": [S, {"maxLength": 3}]},
        "BACKWARD",
        ["PRODUCT_TYPE_EXTENDED"],
    ),
    (
        "PRODUCT_TYPE_NARROWED: allOf loses a part",
        {"allOf": [S, {"maxLength": 3}]},
        {"allOf": [S]},
        "BACKWARD",
        [],
    ),
    ("COMBINED_TYPE_EXTENDED: oneOf to anyOf", {"oneOf": [S, N]}, {"anyOf": [S, N]}, "BACKWARD", []),
    (
        "COMBINED_TYPE_CHANGED: anyOf to oneOf",
        {"anyOf": [S, N]},
        {"oneOf": [S, N]},
        "BACKWARD",
        ["COMBINED_TYPE_CHANGED"],
    ),
    (
        "COMBINED_TYPE_SUBSCHEMAS_CHANGED: no choice reads the writer's",
        {"oneOf": [S, N]},
        {"oneOf": [S, {"type": "boolean"}]},
        "BACKWARD",
        ["COMBINED_TYPE_SUBSCHEMAS_CHANGED"],
    ),
    (
        "subschemas matched whatever their order",
        {"anyOf": [{**S, "maxLength": 3}, N]},
        {"anyOf": [N, S]},
        "FULL",
        ["COMBINED_TYPE_SUBSCHEMAS_CHANGED"],
    ),
    # --- not
    ("NOT_TYPE_NARROWED: excluding less", {"not": N}, {"not": I}, "BACKWARD", []),
    ("NOT_TYPE_EXTENDED: excluding more", {"not": I}, {"not": N}, "BACKWARD", ["NOT_TYPE_EXTENDED"]),
    # --- $ref
    (
        "TYPE_CHANGED: through a $ref",
        obj({"a": {"$ref": "#/definitions/A"}}, definitions={"A": S}),
        obj({"a": {"$ref": "#/definitions/A"}}, definitions={"A": N}),
        "BACKWARD",
        ["TYPE_CHANGED"],
    ),
    (
        "moving a schema behind a $ref changes nothing",
        obj({"a": S}),
        obj({"a": {"$ref": "#/$defs/A"}}, **{"$defs": {"A": S}}),
        "FULL",
        [],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "level", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_confluent_rule(old: Any, new: Any, level: str, expected: list[str]) -> None:
    assert kinds(old, new, level) == sorted(expected)


SIBLINGS_OF_COVERED = {
    "MIN_LENGTH_ADDED", "MINIMUM_ADDED", "EXCLUSIVE_MAXIMUM_DECREASED", "EXCLUSIVE_MINIMUM_INCREASED",
    "MAX_PROPERTIES_ADDED", "MAX_PROPERTIES_DECREASED", "MIN_PROPERTIES_ADDED", "MIN_PROPERTIES_INCREASED",
    "MAX_ITEMS_ADDED", "MIN_ITEMS_ADDED", "MAX_CONTAINS_ADDED", "MIN_CONTAINS_ADDED",
    "MIN_CONTAINS_INCREASED",
    "ADDITIONAL_ITEMS_NARROWED", "UNEVALUATED_ITEMS_REMOVED", "UNEVALUATED_ITEMS_NARROWED",
    "UNEVALUATED_PROPERTIES_NARROWED", "DEPENDENCY_ARRAY_CHANGED",
    "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL",
    "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
    "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
}  # fmt: skip


def test_the_table_covers_every_incompatible_kind_but_siblings_of_covered_ones() -> None:
    covered = {kind for case in CASES for kind in case[4]}
    left = {d.value for d in Difference if d not in COMPATIBLE} - covered
    # Each reported by the same code as a covered sibling (the same bound on another keyword or side).
    assert left <= SIBLINGS_OF_COVERED


def test_a_conflict_has_the_dotted_path_both_pointers_a_message_and_a_hint() -> None:
    item = {"type": "object", "properties": {"price": {"type": "number", "minimum": 0}}}
    old = obj({"items": {"type": "array", "items": item}}, title="Order")
    new = json.loads(json.dumps(old))
    new["properties"]["items"]["items"]["properties"]["price"]["minimum"] = 1
    v1, v2 = JSON.parse(json.dumps(old)), JSON.parse(json.dumps(new))
    [conflict] = JSON.conflicts(v2, [(3, v1)], CompatibilityLevel.BACKWARD)
    inc = conflict.incompatibility
    assert (conflict.version, conflict.direction, inc.kind) == (
        3,
        "new_reads_old",
        Difference.MINIMUM_INCREASED,
    )
    assert inc.path == "Order.items[].price"
    assert inc.reader_pointer == inc.writer_pointer == "/properties/items/items/properties/price/minimum"
    assert '"minimum" is 1 in the reader but 0 in the writer' in inc.message
    assert inc.hint == 'keep "minimum": 0 in the reader, or use a smaller value'
    assert "MINIMUM_INCREASED" in conflict.describe()


def test_without_a_plain_title_paths_start_at_dollar_and_pointers_follow_each_document() -> None:
    old = obj({"a": {"$ref": "#/definitions/A"}}, title="an order", definitions={"A": S})
    new = obj({"a": N}, title="an order")
    [conflict] = JSON.conflicts(JSON.parse(json.dumps(new)), [(1, JSON.parse(json.dumps(old)))], "BACKWARD")
    inc = conflict.incompatibility
    assert inc.kind is Difference.TYPE_CHANGED and inc.path == "$.a"
    assert (inc.writer_pointer, inc.reader_pointer) == ("/definitions/A", "/properties/a")
    assert inc.message.startswith('"$.a" is a number in the reader but a string in the writer')


def test_a_pointer_into_a_reference_names_the_reference() -> None:
    from registry.schema_types import Reference

    old_customer = JSON.parse(json.dumps(obj({"name": S}, **CLOSED)))
    new_customer = JSON.parse(json.dumps(obj({"name": {**S, "maxLength": 9}}, **CLOSED)))
    text = json.dumps(obj({"buyer": {"$ref": "customer.json"}}))
    v1 = JSON.parse(text, [Reference("customer.json", old_customer)])
    v2 = JSON.parse(text, [Reference("customer.json", new_customer)])
    [conflict] = JSON.conflicts(v2, [(1, v1)], "BACKWARD")
    assert conflict.incompatibility.reader_pointer == "customer.json#/properties/name/maxLength"
    assert conflict.incompatibility.path == "$.buyer.name"


def test_levels_none_forward_full_and_transitive_newest_first() -> None:
    v1 = JSON.parse(json.dumps(obj({"a": S}, **CLOSED)))
    v2 = JSON.parse(json.dumps(obj({"a": S, "b": N}, **CLOSED)))
    v3 = JSON.parse(json.dumps(obj({"a": S, "b": N, "c": N}, **CLOSED)))
    history = [(1, v1), (2, v2)]
    assert JSON.conflicts(v3, history, "NONE") == []
    assert JSON.conflicts(v3, history, "BACKWARD") == []
    # forward: v2 (closed) cannot read c; transitive: v1 cannot read b or c either, v2 reported first
    assert [(c.version, c.incompatibility.path) for c in JSON.conflicts(v3, history, "FORWARD")] == [
        (2, "$.c")
    ]
    found = JSON.conflicts(v3, history, "FORWARD_TRANSITIVE")
    assert [(c.version, c.incompatibility.path) for c in found] == [(2, "$.c"), (1, "$.b"), (1, "$.c")]
    assert {c.direction for c in JSON.conflicts(v3, history, "FULL_TRANSITIVE")} == {"old_reads_new"}
    assert not JSON.reads(v1, v3) and JSON.reads(v3, v1)


def test_recursive_schemas_compare_without_recursing_forever_and_report_once() -> None:
    node = {
        "title": "Node",
        **obj({"value": S, "next": {"$ref": "#"}, "kids": {"type": "array", "items": {"$ref": "#"}}}),
    }
    changed = json.loads(json.dumps(node))
    changed["properties"]["value"] = N
    v1, v2 = JSON.parse(json.dumps(node)), JSON.parse(json.dumps(changed))
    assert [
        (c.incompatibility.kind.value, c.incompatibility.path) for c in JSON.conflicts(v2, [(1, v1)], "FULL")
    ] == [
        ("TYPE_CHANGED", "Node.value"),
        ("TYPE_CHANGED", "Node.value"),
    ]
    a, b = obj({"b": {"$ref": "#/definitions/B"}}), obj({"a": {"$ref": "#/definitions/A"}})
    mutual = {"definitions": {"A": a, "B": b}, "$ref": "#/definitions/A"}
    parsed = JSON.parse(json.dumps(mutual))
    assert JSON.reads(parsed, parsed)


def test_comparing_is_bounded_and_refused_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    choices = [{**S, "maxLength": n} for n in range(1, 12)]
    v1, v2 = JSON.parse(json.dumps({"anyOf": choices})), JSON.parse(json.dumps({"anyOf": choices[::-1]}))
    assert JSON.reads(v2, v1)
    monkeypatch.setattr(json_rules, "MAX_PAIRS", 20)
    with pytest.raises(InvalidSchemaError, match="too complex to compare"):
        JSON.reads(v2, v1)


def test_the_type_refuses_schemas_of_another_type() -> None:
    avro = parse_schema('{"type": "string"}')
    with pytest.raises(TypeError, match="given a AVRO schema"):
        JSON.reads(avro, JSON.parse('{"type": "string"}'))  # type: ignore[arg-type]


def test_every_incompatible_kind_is_worded_with_a_hint() -> None:
    from registry.schema_types.json_schema.wording import _WORDING

    assert {d for d in Difference if d not in COMPATIBLE} <= _WORDING.keys()


def test_equal_subschemas_are_not_compared_again_but_an_equal_ref_is_followed() -> None:
    """Unchanged subschemas are found the same without comparing them keyword by keyword; one that names
    another schema is the same text pointing elsewhere, and is followed."""
    unchanged = {"type": ["null", "string"], "maxLength": 5}
    old = obj({"a": {"$ref": "#/definitions/A"}, "b": unchanged}, definitions={"A": S})
    new = obj({"a": {"$ref": "#/definitions/A"}, "b": dict(unchanged)}, definitions={"A": N})
    assert kinds(old, new, "BACKWARD") == ["TYPE_CHANGED"]
    assert kinds(old, old, "FULL") == []
