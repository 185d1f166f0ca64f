"""House rules over schema JSON: docs on every field, defaults on every added field."""

from __future__ import annotations

from typing import Any

import pytest

from registry.schema_check.policies import (
    ADDED_FIELD_DEFAULT,
    FIELD_DOC,
    added_without_default,
    missing_docs,
    records,
    suggested_default,
)


def record(name: str, fields: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"type": "record", "name": name, "fields": fields, **extra}


ADDRESS = record("Address", [{"name": "city", "type": "string", "doc": "City name."}])
OLD = record(
    "PageView",
    [
        {"name": "url", "type": "string", "doc": "Page URL."},
        {"name": "address", "type": ADDRESS, "doc": "Where."},
    ],
    namespace="com.example",
)


def test_records_are_found_inline_with_their_full_names_and_pointers() -> None:
    schema = record(
        "Outer",
        [
            {"name": "a", "type": ["null", record("Inner", [], namespace="other")]},
            {"name": "b", "type": {"type": "array", "items": record("Item", [])}},
            {"name": "c", "type": {"type": "map", "values": record("x.y.Value", [])}},
            {"name": "d", "type": "Item"},
        ],
        namespace="ns",
    )
    found = [(site.full_name, site.pointer) for site in records(schema)]
    assert found == [
        ("ns.Outer", ""),
        ("other.Inner", "/fields/0/type/1"),
        ("ns.Item", "/fields/1/type/items"),
        ("x.y.Value", "/fields/2/type/values"),
    ]


def test_aliases_resolve_in_the_records_namespace() -> None:
    (site,) = records(record("New", [], namespace="ns", aliases=["Old", "other.Older"]))
    assert site.names == {"ns.New", "ns.Old", "other.Older"}


def test_missing_docs_reports_each_undocumented_field_with_its_pointer() -> None:
    schema = record(
        "PageView",
        [
            {"name": "url", "type": "string", "doc": "Page URL."},
            {"name": "blank", "type": "string", "doc": "   "},
            {"name": "nested", "type": record("Inner", [{"name": "x", "type": "int"}]), "doc": "Nested."},
        ],
    )
    found = missing_docs(schema)
    assert [(v.pointer, v.rule) for v in found] == [
        ("/fields/1", FIELD_DOC),
        ("/fields/2/type/fields/0", FIELD_DOC),
    ]
    assert found[0].message == "field 'blank' of PageView has no doc"
    assert '"doc"' in found[0].hint


def test_fully_documented_schema_and_primitives_pass_the_doc_rule() -> None:
    assert missing_docs(OLD) == []
    assert missing_docs("string") == []


def test_added_field_without_default_is_reported_at_the_field() -> None:
    new = {**OLD, "fields": [*OLD["fields"], {"name": "referrer", "type": ["null", "string"]}]}
    (violation,) = added_without_default(new, OLD)
    assert violation.pointer == "/fields/2"
    assert violation.rule == ADDED_FIELD_DEFAULT
    assert violation.message == "field 'referrer' of PageView was added without a default"
    assert violation.hint.startswith('"default": null')


def test_added_field_with_default_and_kept_fields_pass() -> None:
    new = {**OLD, "fields": [*OLD["fields"], {"name": "referrer", "type": "string", "default": ""}]}
    assert added_without_default(new, OLD) == []
    assert added_without_default(OLD, OLD) == []


def test_fields_added_to_nested_records_are_found_and_renames_with_aliases_are_not_additions() -> None:
    new_address = record(
        "Address",
        [{"name": "town", "aliases": ["city"], "type": "string"}, {"name": "zip", "type": "string"}],
    )
    new = {**OLD, "fields": [OLD["fields"][0], {**OLD["fields"][1], "type": new_address}]}
    (violation,) = added_without_default(new, OLD)
    assert violation.pointer == "/fields/1/type/fields/1"
    assert "'zip' of Address" in violation.message


def test_renamed_record_with_alias_is_matched_and_brand_new_records_are_skipped() -> None:
    renamed = {**OLD, "name": "PageViewed", "aliases": ["PageView"]}
    renamed["fields"] = [
        *OLD["fields"],
        {"name": "extra", "type": record("Brand", [{"name": "n", "type": "int"}])},
    ]
    found = added_without_default(renamed, OLD)
    assert [v.pointer for v in found] == ["/fields/2"]


def test_unrelated_old_schema_has_nothing_to_compare() -> None:
    assert added_without_default(OLD, record("Other", [])) == []
    assert added_without_default(OLD, "string") == []


@pytest.mark.parametrize(
    ("field_type", "suggestion"),
    [
        (["null", "string"], '"default": null'),
        (["string", "null"], 'move "null" to the front of the union and add "default": null'),
        (["int", "string"], "add a default of the union's first type"),
        ("string", '"default": ""'),
        ("long", '"default": 0'),
        ({"type": "long", "logicalType": "timestamp-millis"}, '"default": 0'),
        ({"type": "array", "items": "string"}, '"default": []'),
        ("com.example.Address", 'make it optional: "type": ["null", ...] with "default": null'),
    ],
)
def test_suggested_defaults_are_valid_for_the_type(field_type: Any, suggestion: str) -> None:
    assert suggested_default(field_type) == suggestion
