"""A subject's schema as its table sees it, whatever the schema's type: the one place that knows which
value formats the loader reads and which module makes each one's table (a fourth format is added here
and in a module of its own).

A table's schema is given in Avro's JSON form (`SubjectSchemas.latest_schema`): an Avro schema as it is;
a JSON Schema's or a Protobuf schema's table as `json_schema_tables` and `protobuf_tables` map them. A
Protobuf topic's records also need the schema's compiled files to be decoded (`TableOf.descriptors`).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass

from google.protobuf.descriptor_pb2 import FileDescriptorSet

from loader.reading.value_formats.json_schema_tables import table_schema_text
from loader.reading.value_formats.protobuf_files import compiled
from loader.reading.value_formats.protobuf_tables import table_schema as protobuf_table

AVRO = "AVRO"  # a version's type when the registry names none, as Confluent's
JSON = "JSON"  # JSON Schema
PROTOBUF = "PROTOBUF"
LOADED_TYPES = (AVRO, JSON, PROTOBUF)


class UnloadableSchema(ValueError):
    """A schema whose values cannot become a table's rows, with why."""


@dataclass(frozen=True)
class Document:
    """A schema's text and the names of the documents it references (an import path, a `$ref`)."""

    text: str
    references: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableOf:
    """A schema's table (Avro's JSON form), and for a Protobuf schema its files as a base64
    `FileDescriptorSet`, imports first (what its records are decoded with)."""

    schema: str
    descriptors: str = ""


def table_of(schema_type: str, schema: Document, referenced: Mapping[str, Document]) -> TableOf:
    """The table of a schema of the type, `referenced` holding every document it references, theirs
    too, by name. Raises `UnloadableSchema`."""
    try:
        if schema_type == AVRO:
            return TableOf(compact_json(schema.text))
        if schema_type == JSON:
            return TableOf(table_schema_text(schema.text, {n: d.text for n, d in referenced.items()}))
        if schema_type == PROTOBUF:
            return _protobuf_table(schema, referenced)
    except ValueError as exc:  # the formats' refusals, and a schema that does not parse
        raise UnloadableSchema(str(exc)) from exc
    raise UnloadableSchema(f"the loader does not read {schema_type} schemas")


def compact_json(text: str) -> str:
    """A schema's JSON text without layout: an Avro schema as its table (and the registry client) keeps it."""
    return json.dumps(json.loads(text), separators=(",", ":"))


def _protobuf_table(schema: Document, referenced: Mapping[str, Document]) -> TableOf:
    *imports, own = compiled(schema, referenced)
    table = protobuf_table(own, imports)
    files = FileDescriptorSet(file=[*imports, own]).SerializeToString()
    return TableOf(json.dumps(table, separators=(",", ":")), base64.b64encode(files).decode("ascii"))
