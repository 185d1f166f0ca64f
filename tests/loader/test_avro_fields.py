"""The fields of an Avro schema by the path their columns have in the table, decided without Spark."""

from __future__ import annotations

import json

from loader.schema.avro_fields import record_fields


def _schema(fields: list[dict]) -> str:
    return json.dumps({"type": "record", "name": "R", "namespace": "com.example", "fields": fields})


def test_field_paths_of_a_schema_name_nested_fields_as_the_table_does() -> None:
    schema = _schema([
        {"name": "a", "type": {"type": "record", "name": "A", "fields": [{"name": "b", "type": "int"}]}},
        {"name": "xs", "type": {"type": "array", "items": "A"}},
        {"name": "m", "type": {"type": "map", "values": {"type": "array", "items": "com.example.A"}}},
        {"name": "u", "type": ["null", "string", "A"]},  # several types: a struct of members, not walked
    ])  # fmt: skip
    assert [path for path, _ in record_fields(schema)] == ["a", "a.b", "xs", "xs[].b", "m", "m{}[].b", "u"]
    assert list(record_fields('"string"')) == []


def test_a_recursive_type_is_walked_once() -> None:
    node = {"type": "record", "name": "Node", "fields": [
        {"name": "v", "type": "int"}, {"name": "next", "type": ["null", "Node"]}]}  # fmt: skip
    assert [path for path, _ in record_fields(json.dumps(node))] == ["v", "next"]
