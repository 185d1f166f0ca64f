"""An Avro schema's field tree, as its schema type gives it to the page: pure rows from a parsed schema."""

from __future__ import annotations

import json
from typing import Any

from registry.compatibility import parse_schema
from registry.schema_types import FieldRow, Parsed, schema_type


def field_tree(schema: Parsed) -> list[FieldRow]:
    return list(schema_type("AVRO").field_tree(schema).rows)


def tree(schema: Any) -> list[tuple[int, str, str, str]]:
    return [(row.depth, row.name, row.path, row.type) for row in field_tree(parse_schema(json.dumps(schema)))]


def test_records_inside_arrays_maps_and_unions_are_expanded_under_their_field() -> None:
    item = {"type": "record", "name": "Item", "fields": [{"name": "sku", "type": "string"}]}
    schema = {
        "type": "record",
        "name": "Order",
        "fields": [
            {"name": "items", "type": {"type": "array", "items": item}},
            {"name": "by_sku", "type": {"type": "map", "values": "Item"}},
            {"name": "gift", "type": ["null", "Item"], "default": None},
        ],
    }
    assert tree(schema) == [
        (0, "Order", "Order", "record Order"),
        (1, "items", "Order.items", "array<record Item>"),
        (2, "sku", "Order.items[].sku", "string"),
        (1, "by_sku", "Order.by_sku", "map<record Item>"),
        (1, "gift", "Order.gift", "null | record Item"),
    ]
    rows = field_tree(parse_schema(json.dumps(schema)))
    assert rows[3].detail == rows[4].detail == "fields: see Order.items[]"


def test_a_union_of_several_records_names_the_branch_each_field_belongs_to() -> None:
    card = {"type": "record", "name": "Card", "fields": [{"name": "last4", "type": "string"}]}
    bank = {"type": "record", "name": "Bank", "fields": [{"name": "iban", "type": "string"}]}
    schema = {"type": "record", "name": "Payment", "fields": [{"name": "method", "type": [card, bank]}]}
    assert tree(schema)[1:] == [
        (1, "method", "Payment.method", "record Card | record Bank"),
        (2, "(record Card)", "Payment.method", "record Card"),
        (3, "last4", "Payment.method.last4", "string"),
        (2, "(record Bank)", "Payment.method", "record Bank"),
        (3, "iban", "Payment.method.iban", "string"),
    ]


def test_recursive_schemas_end_and_every_row_carries_default_doc_and_detail() -> None:
    schema = {
        "type": "record",
        "name": "Node",
        "doc": "A linked list.",
        "fields": [
            {"name": "value", "type": {"type": "int", "logicalType": "date"}, "doc": "The day."},
            {
                "name": "color",
                "type": {"type": "enum", "name": "Color", "symbols": ["RED", "BLUE"], "default": "RED"},
            },
            {"name": "hash", "type": {"type": "fixed", "name": "H", "size": 4}},
            {"name": "next", "type": ["null", "Node"], "default": None},
        ],
    }
    assert field_tree(parse_schema(json.dumps(schema))) == [
        FieldRow(0, "Node", "Node", "record Node", None, "A linked list."),
        FieldRow(1, "value", "Node.value", "int (date)", None, "The day."),
        FieldRow(1, "color", "Node.color", "enum Color", None, None, "symbols: RED, BLUE; default RED"),
        FieldRow(1, "hash", "Node.hash", "fixed H (size 4)"),
        FieldRow(1, "next", "Node.next", "null | record Node", "null", None, "fields: see Node"),
    ]


def test_a_schema_that_is_not_a_record_is_one_row() -> None:
    assert tree({"type": "array", "items": "string"}) == [(0, "array", "array", "array<string>")]
