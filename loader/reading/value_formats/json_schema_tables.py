"""A JSON Schema's table: the columns a topic of JSON Schema values gets, decided on the schema alone.

The table's shape is given in Avro's JSON form (a record of fields), the form the loader's table rules
read (`loader.schema`: column defaults, comments, renames); its Spark type, which Spark's JSON reader
decodes each value into, follows (`loader.reading.value_formats.spark_types`). The mapping, and why every
column is nullable and a value with no single Spark type is its JSON text, is in docs/loader.md ("JSON
Schema topics").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

JSON_TEXT = "string"  # what a value with no single Spark type is loaded as: its JSON text

_SCALARS = {"integer": "long", "number": "double", "boolean": "boolean", "string": "string"}
_STRING_FORMATS = {
    "date-time": {"type": "long", "logicalType": "timestamp-micros"},
    "date": {"type": "int", "logicalType": "date"},
}


class UnloadableJsonSchema(ValueError):
    """A JSON Schema whose values cannot become a table's rows: its top is not an object, or a `$ref`
    names a document the subject does not reference."""


def table_schema(schema: Any, references: Mapping[str, Any] | None = None, name: str = "value") -> dict:
    """The table's record (Avro's JSON form) for values of `schema`; `references`: the documents the
    schema's `$ref`s name, by reference name, already parsed."""
    mapped = _Mapping(schema, dict(references or {})).type_of(schema, schema, name, ())
    if not (isinstance(mapped, dict) and mapped.get("type") == "record"):
        raise UnloadableJsonSchema(
            "the schema's values are not objects (a table's row is an object of properties)"
        )
    return mapped


class _Mapping:
    def __init__(self, root: Any, references: dict[str, Any]) -> None:
        self.root = root
        self.references = references

    def type_of(self, schema: Any, document: Any, name: str, walking: tuple[str, ...]) -> Any:
        """The Avro-form type of `schema` (found in `document`, against which its local `$ref`s resolve),
        named `name` where it becomes a record; `walking`: the `$ref`s being followed (a recursion)."""
        if not isinstance(schema, dict):  # `true`, `false`: anything (or nothing)
            return JSON_TEXT
        if "$ref" in schema:
            ref = str(schema["$ref"])
            if ref in walking:
                return JSON_TEXT  # a recursive structure has no fixed depth: its JSON text
            target, target_document = self._resolve(ref, document)
            return self.type_of(target, target_document, name, (*walking, ref))
        for combiner in ("oneOf", "anyOf"):
            if combiner in schema:
                branches = [b for b in schema[combiner] if not _is_null(b)]
                if len(branches) == 1:
                    return self.type_of(branches[0], document, name, walking)
                return JSON_TEXT
        if "allOf" in schema:
            return self._all_of(schema, document, name, walking)
        kinds = schema.get("type")
        if isinstance(kinds, list):
            kinds = [k for k in kinds if k != "null"]
            if len(kinds) != 1:
                return JSON_TEXT
            kinds = kinds[0]
        if kinds is None and "properties" in schema:
            kinds = "object"
        if kinds == "object":
            return self._object(schema, document, name, walking)
        if kinds == "array":
            items = schema.get("items")
            if not isinstance(items, dict):  # no items, or a tuple of items: each element as JSON text
                return {"type": "array", "items": JSON_TEXT}
            return {"type": "array", "items": self.type_of(items, document, f"{name}_item", walking)}
        if kinds == "string" and schema.get("format") in _STRING_FORMATS:
            return dict(_STRING_FORMATS[schema["format"]])
        if kinds in _SCALARS:
            return _SCALARS[kinds]
        return JSON_TEXT

    def _object(self, schema: dict, document: Any, name: str, walking: tuple[str, ...]) -> Any:
        properties = schema.get("properties")
        extra = schema.get("additionalProperties")
        if not properties:
            if isinstance(extra, dict):
                return {"type": "map", "values": self.type_of(extra, document, f"{name}_value", walking)}
            return JSON_TEXT  # an object that declares nothing: its JSON text
        fields = []
        for prop, prop_schema in properties.items():
            field: dict[str, Any] = {
                "name": prop,
                "type": ["null", self.type_of(prop_schema, document, f"{name}_{prop}", walking)],
                "default": None,
            }
            if isinstance(prop_schema, dict) and isinstance(prop_schema.get("description"), str):
                field["doc"] = prop_schema["description"]
            fields.append(field)
        return {"type": "record", "name": _record_name(schema, name), "fields": fields}

    def _all_of(self, schema: dict, document: Any, name: str, walking: tuple[str, ...]) -> Any:
        merged: dict[str, Any] = {}
        for branch in [schema, *schema["allOf"]]:
            while isinstance(branch, dict) and "$ref" in branch:
                branch, document = self._resolve(str(branch["$ref"]), document)
            if not isinstance(branch, dict) or branch.get("type", "object") != "object":
                return JSON_TEXT
            merged.update(branch.get("properties") or {})
        return self._object({**schema, "properties": merged}, document, name, walking)

    def _resolve(self, ref: str, document: Any) -> tuple[Any, Any]:
        """The schema a `$ref` points at, and the document it is in."""
        location, _, pointer = ref.partition("#")
        if location:
            if location not in self.references:
                raise UnloadableJsonSchema(
                    f"$ref {ref!r} names {location!r}, which is none of the subject's references"
                )
            document = self.references[location]
        target = document
        for part in [p for p in pointer.split("/") if p]:
            key = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(target, list) and key.isdigit() and int(key) < len(target):
                target = target[int(key)]
            elif isinstance(target, dict) and key in target:
                target = target[key]
            else:
                raise UnloadableJsonSchema(f"$ref {ref!r} points at nothing in its document")
        return target, document


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null"


def _record_name(schema: dict, name: str) -> str:
    """An object's `title` when it is a name (dotted, as Kafka Connect's JSON Schema converter titles a
    record by its full name: `dbserver.inventory.customers.Value`), else its place in the schema: records
    of one title are one record type, as Debezium's `before` and `after` are."""
    title = schema.get("title")
    if isinstance(title, str) and title and all(part.isidentifier() for part in title.split(".")):
        return title
    return name


def table_schema_text(text: str, references: Mapping[str, str] | None = None) -> str:
    """`table_schema` of a schema's text and its references' texts, as JSON text."""
    parsed = {name: json.loads(body) for name, body in (references or {}).items()}
    return json.dumps(table_schema(json.loads(text), parsed), separators=(",", ":"))
