"""The structural diff between two schemas: what a person sees as "what changed" between versions."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from registry.compatibility import Change, ChangeKind, InvalidSchemaError, diff_schemas, parse_schema
from tests.registry.compatibility.generator import SchemaGenerator

ADDED, REMOVED, RENAMED = ChangeKind.FIELD_ADDED, ChangeKind.FIELD_REMOVED, ChangeKind.FIELD_RENAMED
TYPE, DEFAULT, DOC, SYMBOLS = (
    ChangeKind.TYPE_CHANGED,
    ChangeKind.DEFAULT_CHANGED,
    ChangeKind.DOC_CHANGED,
    ChangeKind.SYMBOLS_CHANGED,
)


def record(*fields: dict[str, Any], name: str = "PageView", **extra: Any) -> dict[str, Any]:
    return {"type": "record", "name": name, "namespace": "com.example", "fields": list(fields), **extra}


def field(name: str, type_: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, **extra}


def diff(old: Any, new: Any) -> list[Change]:
    return diff_schemas(parse_schema(json.dumps(old)), parse_schema(json.dumps(new)))


def test_the_same_schema_written_differently_has_no_changes() -> None:
    old = record(field("id", "long"), field("url", {"type": "string"}))
    new = {
        "fields": [{"type": "long", "name": "id"}, {"name": "url", "type": "string"}],
        "name": "com.example.PageView",
        "type": "record",
    }
    assert diff(old, new) == []


def test_added_and_removed_fields_show_their_types_and_defaults() -> None:
    old = record(field("id", "long"), field("referrer", "string"))
    new = record(field("id", "long"), field("country", "string", default="unknown"))
    assert diff(old, new) == [
        Change(ADDED, "PageView.country", None, 'string, default "unknown"'),
        Change(REMOVED, "PageView.referrer", "string", None),
    ]


def test_a_field_renamed_through_an_alias_is_one_rename_not_a_removal_and_an_addition() -> None:
    old = record(field("name", "string"))
    new = record(field("full_name", "string", aliases=["name"]))
    assert diff(old, new) == [Change(RENAMED, "PageView.full_name", "name", "full_name")]


def test_an_alias_of_a_field_the_new_record_still_has_is_not_a_rename() -> None:
    old = record(field("name", "string"))
    new = record(field("name", "string"), field("nick", "string", aliases=["name"], default=""))
    assert diff(old, new) == [Change(ADDED, "PageView.nick", None, 'string, default ""')]


def test_type_changes_name_both_types() -> None:
    old = record(field("count", "int"), field("when", "long"), field("price", "bytes"))
    new = record(
        field("count", "long"),
        field("when", {"type": "long", "logicalType": "timestamp-millis"}),
        field("price", {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}),
    )
    assert diff(old, new) == [
        Change(TYPE, "PageView.count", "int", "long"),
        Change(TYPE, "PageView.when", "long", "long (timestamp-millis)"),
        Change(TYPE, "PageView.price", "bytes", "bytes (decimal(10, 2))"),
    ]


def test_a_decimal_whose_precision_changes_is_a_type_change() -> None:
    def price(precision: int) -> dict[str, Any]:
        decimal = {"type": "bytes", "logicalType": "decimal", "precision": precision, "scale": 2}
        return record(field("price", decimal))

    assert diff(price(10), price(12)) == [
        Change(TYPE, "PageView.price", "bytes (decimal(10, 2))", "bytes (decimal(12, 2))")
    ]


def test_a_field_made_optional_is_one_type_change_and_its_default() -> None:
    old = record(field("url", "string"))
    new = record(field("url", ["null", "string"], default=None))
    assert diff(old, new) == [
        Change(TYPE, "PageView.url", "string", "null | string"),
        Change(DEFAULT, "PageView.url", None, "null"),
    ]


def test_a_logical_type_added_inside_a_union_is_found_in_its_branch() -> None:
    old = record(field("when", ["null", "long"], default=None))
    new = record(field("when", ["null", {"type": "long", "logicalType": "timestamp-micros"}], default=None))
    assert diff(old, new) == [Change(TYPE, "PageView.when", "long", "long (timestamp-micros)")]


def test_changes_deep_inside_nested_records_arrays_maps_and_optional_records() -> None:
    def address(city_type: str, doc: str) -> dict[str, Any]:
        return {"type": "record", "name": "Address", "fields": [field("city", city_type, doc=doc)]}

    def user(city_type: str, doc: str) -> dict[str, Any]:
        return {
            "type": "record",
            "name": "User",
            "fields": [
                field("addresses", {"type": "array", "items": address(city_type, doc)}),
                field("scores", {"type": "map", "values": "int" if city_type == "string" else "long"}),
            ],
        }

    old = record(field("user", user("string", "the city")))
    new = record(field("user", ["null", user("bytes", "the town")], default=None))
    assert diff(old, new) == [
        Change(TYPE, "PageView.user", "record com.example.User", "null | record com.example.User"),
        Change(DEFAULT, "PageView.user", None, "null"),
        Change(TYPE, "PageView.user.addresses[].city", "string", "bytes"),
        Change(DOC, "PageView.user.addresses[].city", "the city", "the town"),
        Change(TYPE, "PageView.user.scores{}", "int", "long"),
    ]


def test_an_array_whose_items_change_is_reported_at_the_items_only() -> None:
    old = record(field("tags", {"type": "array", "items": "int"}))
    new = record(field("tags", {"type": "array", "items": "long"}))
    assert diff(old, new) == [Change(TYPE, "PageView.tags[]", "int", "long")]


def test_docs_of_records_and_fields_added_changed_and_removed() -> None:
    old = record(field("id", "long", doc="The id."), field("url", "string"), doc="A view.")
    new = record(field("id", "long"), field("url", "string", doc="Where."), doc="A page view.")
    assert diff(old, new) == [
        Change(DOC, "PageView", "A view.", "A page view."),
        Change(DOC, "PageView.id", "The id.", None),
        Change(DOC, "PageView.url", None, "Where."),
    ]


def test_defaults_added_changed_and_removed_compare_as_json() -> None:
    old = record(
        field("a", "int"),
        field("b", "int", default=1),
        field("c", "double", default=1),
        field("d", "int", default=0),
    )
    new = record(
        field("a", "int", default=0),
        field("b", "int", default=2),
        field("c", "double", default=1.0),
        field("d", "int"),
    )
    assert diff(old, new) == [
        Change(DEFAULT, "PageView.a", None, "0"),
        Change(DEFAULT, "PageView.b", "1", "2"),
        Change(DEFAULT, "PageView.c", "1", "1.0"),
        Change(DEFAULT, "PageView.d", "0", None),
    ]


def test_enum_symbols_and_enum_default() -> None:
    def color(symbols: list[str], **extra: Any) -> dict[str, Any]:
        return record(field("color", {"type": "enum", "name": "Color", "symbols": symbols, **extra}))

    assert diff(color(["RED", "GREEN"]), color(["RED", "BLUE", "CYAN"], default="RED")) == [
        Change(SYMBOLS, "PageView.color", "GREEN removed", "BLUE, CYAN added"),
        Change(DEFAULT, "PageView.color", None, "RED"),
    ]
    assert diff(color(["RED"]), color(["RED", "BLUE"])) == [
        Change(SYMBOLS, "PageView.color", None, "BLUE added")
    ]


def test_fixed_size_and_renamed_types_are_type_changes() -> None:
    old = record(field("hash", {"type": "fixed", "name": "MD5", "size": 16}))
    new = record(field("hash", {"type": "fixed", "name": "MD5", "size": 20}))
    assert diff(old, new) == [
        Change(TYPE, "PageView.hash", "fixed com.example.MD5 (size 16)", "fixed com.example.MD5 (size 20)")
    ]
    renamed = record(field("id", "long"), name="PageViewed")
    assert diff(record(field("id", "long")), renamed) == [
        Change(TYPE, "PageViewed", "record com.example.PageView", "record com.example.PageViewed")
    ]


def test_union_branches_added_and_removed() -> None:
    old = record(field("v", ["null", "string", "int"], default=None))
    new = record(field("v", ["null", "string", "double"], default=None))
    assert diff(old, new) == [Change(TYPE, "PageView.v", "null | string | int", "null | string | double")]


def test_schemas_that_are_not_records() -> None:
    assert diff("string", "string") == []
    assert diff("int", "long") == [Change(TYPE, "long", "int", "long")]  # paths start at the new root
    old = {"type": "array", "items": record(field("id", "int"))}
    new = {"type": "array", "items": record(field("id", "long"))}
    assert diff(old, new) == [Change(TYPE, "array[].id", "int", "long")]


def test_recursive_schemas_terminate_and_show_changes_inside_the_recursion() -> None:
    def linked(value_type: str) -> dict[str, Any]:
        return {
            "type": "record",
            "name": "Node",
            "fields": [field("value", value_type), field("next", ["null", "Node"], default=None)],
        }

    assert diff(linked("int"), linked("int")) == []
    assert diff(linked("int"), linked("long")) == [Change(TYPE, "Node.value", "int", "long")]


def test_a_named_type_used_twice_is_reported_where_it_is_first_used() -> None:
    def pair(city_type: str) -> dict[str, Any]:
        address = {"type": "record", "name": "Address", "fields": [field("city", city_type)]}
        return record(field("home", address), field("work", "Address"))

    assert diff(pair("string"), pair("bytes")) == [Change(TYPE, "PageView.home.city", "string", "bytes")]


@pytest.mark.parametrize("chunk", range(4))
def test_generated_schemas_equal_themselves_and_every_evolution_shows(chunk: int) -> None:
    """Every evolution the generator makes changes the identity form, and the diff must say something
    about each one; a schema compared with a copy of itself must say nothing."""
    generator = SchemaGenerator(seed=5000 + chunk)
    silent = []
    changed = 0
    for _ in range(150):
        old = generator.schema()
        mutation, new = generator.evolve(copy.deepcopy(old))
        try:
            parsed_old, parsed_new = parse_schema(json.dumps(old)), parse_schema(json.dumps(new))
        except InvalidSchemaError:
            continue  # the generator made an invalid schema (a dangling name, say): nothing to compare
        assert diff_schemas(parsed_old, parse_schema(json.dumps(copy.deepcopy(old)))) == []
        if parsed_new.identity != parsed_old.identity:
            changed += 1
            if not diff_schemas(parsed_old, parsed_new):
                silent.append(f"{mutation}: {json.dumps(old)} -> {json.dumps(new)}")
    assert silent == []
    assert changed > 100
