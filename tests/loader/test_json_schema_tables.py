"""A JSON Schema's table (`loader.reading.value_formats.json_schema_tables`): each row of the mapping that
docs/loader.md documents, as the column type Spark's JSON reader decodes into."""

from __future__ import annotations

from typing import Any

import pytest

from loader.reading.value_formats.json_schema_tables import (
    UnloadableJsonSchema,
    table_schema,
    table_schema_text,
)
from loader.reading.value_formats.spark_types import spark_type, struct_fields
from loader.schema.change_envelope import is_change_envelope
from tests.loader.change_envelopes import debezium_json_envelope


def column(property_schema: Any, **document: Any) -> str:
    """The Spark type of a property `v` of the given schema."""
    record = table_schema({"type": "object", "properties": {"v": property_schema}, **document})
    [field] = record["fields"]
    return spark_type(field["type"])


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "integer"}, "BIGINT"),
        ({"type": "number"}, "DOUBLE"),
        ({"type": "boolean"}, "BOOLEAN"),
        ({"type": "string"}, "STRING"),
        ({"type": "string", "format": "date-time"}, "TIMESTAMP"),
        ({"type": "string", "format": "date"}, "DATE"),
        ({"type": "string", "format": "email"}, "STRING"),
        ({"type": "string", "enum": ["a", "b"]}, "STRING"),
        ({"type": ["integer", "null"]}, "BIGINT"),
        ({"oneOf": [{"type": "null"}, {"type": "number"}]}, "DOUBLE"),
        ({"anyOf": [{"type": "boolean"}, {"type": "null"}]}, "BOOLEAN"),
        ({"type": "array", "items": {"type": "integer"}}, "ARRAY<BIGINT>"),
        ({"type": "array"}, "ARRAY<STRING>"),
        ({"type": "object", "additionalProperties": {"type": "number"}}, "MAP<STRING, DOUBLE>"),
        ({"type": "object", "properties": {"a": {"type": "string"}}}, "STRUCT<`a`: STRING>"),
        ({"properties": {"a b": {"type": "integer"}}}, "STRUCT<`a b`: BIGINT>"),
        # no single Spark type: the value's JSON text
        ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, "STRING"),
        ({"type": ["string", "integer"]}, "STRING"),
        ({}, "STRING"),
        (True, "STRING"),
        ({"type": "object"}, "STRING"),
    ],
)
def test_each_json_type_has_its_column(schema: Any, expected: str) -> None:
    assert column(schema) == expected


def test_refs_resolve_in_the_document_and_in_references() -> None:
    defs = {"$defs": {"Money": {"type": "object", "properties": {"cents": {"type": "integer"}}}}}
    assert column({"$ref": "#/$defs/Money"}, **defs) == "STRUCT<`cents`: BIGINT>"
    customer = {"type": "object", "properties": {"name": {"type": "string"}}}
    record = table_schema(
        {"type": "object", "properties": {"c": {"$ref": "customer.json"}}}, {"customer.json": customer}
    )
    assert spark_type(record) == "STRUCT<`c`: STRUCT<`name`: STRING>>"


def test_a_recursive_ref_is_json_text_where_it_recurs() -> None:
    node = {"type": "object", "properties": {"name": {"type": "string"}, "child": {"$ref": "#/$defs/Node"}}}
    record = table_schema(
        {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": node}}
    )
    assert spark_type(record) == "STRUCT<`root`: STRUCT<`name`: STRING, `child`: STRING>>"


def test_all_of_objects_merges_their_properties() -> None:
    base = {"type": "object", "properties": {"id": {"type": "integer"}}}
    merged = {"allOf": [{"$ref": "#/$defs/Base"}, {"properties": {"note": {"type": "string"}}}]}
    assert column(merged, **{"$defs": {"Base": base}}) == "STRUCT<`id`: BIGINT, `note`: STRING>"


def test_every_column_is_nullable_with_its_description_as_comment() -> None:
    record = table_schema(
        {
            "type": "object",
            "required": ["id"],
            "properties": {"id": {"type": "integer", "description": "the order's number"}},
        }
    )
    assert record["fields"] == [
        {"name": "id", "type": ["null", "long"], "default": None, "doc": "the order's number"}
    ]
    assert struct_fields(record) == "`id`: BIGINT"


@pytest.mark.parametrize(
    ("schema", "references", "message"),
    [
        ({"type": "array", "items": {"type": "integer"}}, {}, "the schema's values are not objects"),
        ({"type": "string"}, {}, "the schema's values are not objects"),
        (
            {"type": "object", "properties": {"c": {"$ref": "customer.json"}}},
            {},
            "$ref 'customer.json' names 'customer.json', which is none of the subject's references",
        ),
        (
            {"type": "object", "properties": {"c": {"$ref": "#/$defs/Nope"}}},
            {},
            "$ref '#/$defs/Nope' points at nothing in its document",
        ),
    ],
)
def test_a_schema_without_a_table_is_refused_by_name(schema: Any, references: dict, message: str) -> None:
    with pytest.raises(UnloadableJsonSchema) as refused:
        table_schema(schema, references)
    assert str(refused.value).startswith(message)


def test_the_text_form_reads_references_texts() -> None:
    text = table_schema_text(
        '{"type": "object", "properties": {"c": {"$ref": "c.json"}}}',
        {"c.json": '{"type": "object", "properties": {"n": {"type": "number"}}}'},
    )
    assert text == (
        '{"type":"record","name":"value","fields":[{"name":"c","type":["null",{"type":"record",'
        '"name":"value_c","fields":[{"name":"n","type":["null","double"],"default":null}]}],"default":null}]}'
    )


def test_debeziums_envelope_through_the_json_schema_converter_is_a_change_envelope() -> None:
    """Its current-state table then holds the `after` rows, as for Debezium's Avro envelope."""
    assert is_change_envelope(table_schema(debezium_json_envelope(None)))
    other_row = {"type": "object", "title": "dbserver1.inventory.orders.Value", "properties": {}}
    assert not is_change_envelope(table_schema(debezium_json_envelope(other_row)))
