"""A subject's schema as its table sees it, whatever the schema's type: the one place that knows which
value formats the loader reads and which module makes each one's table (a fourth format is added here
and in a module of its own).

A table's schema is given in Avro's JSON form (`SubjectSchemas.latest_schema`): an Avro schema as it is;
a JSON Schema's or a Protobuf schema's table as `json_schema_tables` and `protobuf_tables` map them. A
Protobuf topic's records also need the schema's compiled files to be decoded (`TableOf.descriptors`).
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from google.protobuf.descriptor_pb2 import FileDescriptorSet

from loader.reading.value_formats.json_schema_tables import table_schema_text
from loader.reading.value_formats.protobuf_files import ProtobufCompileError, compiled
from loader.reading.value_formats.protobuf_tables import (
    former_names,
    message_paths,
    table_message,
)
from loader.reading.value_formats.protobuf_tables import (
    table_schema as protobuf_table,
)

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
class Version:
    """One registered version of a subject: its schema id, its schema, and every document it references,
    theirs too, by name."""

    schema_id: int
    schema: Document
    referenced: Mapping[str, Document] = field(default_factory=dict)


@dataclass(frozen=True)
class TableOf:
    """A schema's table (Avro's JSON form). For a Protobuf schema also: its files as a base64
    `FileDescriptorSet`, imports first (what its records are decoded with); the table of each of its
    messages by full name (the first's is `schema`); and where each message is in each writer's file,
    message full name -> message indexes as text (`protobuf_tables.message_paths`) -> writer ids."""

    schema: str
    descriptors: str = ""
    message_tables: Mapping[str, str] = field(default_factory=dict)
    messages: Mapping[str, Mapping[str, tuple[int, ...]]] = field(default_factory=dict)


def table_of(schema_type: str, latest: Version, earlier: Sequence[Version] = ()) -> TableOf:
    """The table of a subject's `latest` version of the type; `earlier`: the subject's other versions of
    the type, which a Protobuf table needs (its fields' former names, and where each writer's file has
    each message). Raises `UnloadableSchema`."""
    try:
        if schema_type == AVRO:
            return TableOf(compact_json(latest.schema.text))
        if schema_type == JSON:
            referenced = {n: d.text for n, d in latest.referenced.items()}
            return TableOf(table_schema_text(latest.schema.text, referenced))
        if schema_type == PROTOBUF:
            return _protobuf_table(latest, earlier)
    except ValueError as exc:  # the formats' refusals, and a schema that does not parse
        raise UnloadableSchema(str(exc)) from exc
    raise UnloadableSchema(f"the loader does not read {schema_type} schemas")


def compact_json(text: str) -> str:
    """A schema's JSON text without layout: an Avro schema as its table (and the registry client) keeps it."""
    return json.dumps(json.loads(text), separators=(",", ":"))


def _protobuf_table(latest: Version, earlier: Sequence[Version]) -> TableOf:
    """An earlier version that no longer compiles (a reference hard-deleted since) is read as the latest
    is: its records' message indexes name the latest file's messages, and its names are not former."""
    *imports, own = compiled(latest.schema, latest.referenced)
    files = {latest.schema_id: [*imports, own]}
    for version in earlier:
        with contextlib.suppress(ProtobufCompileError):
            files[version.schema_id] = compiled(version.schema, version.referenced)
    former = former_names(files[latest.schema_id], [f for i, f in files.items() if i != latest.schema_id])
    tables = {
        name: json.dumps(protobuf_table(own, imports, name, former), separators=(",", ":"))
        for name in message_paths(own).values()
    }
    messages: dict[str, dict[str, list[int]]] = {}
    for version in (latest, *earlier):
        paths = message_paths(files.get(version.schema_id, files[latest.schema_id])[-1])
        for path, name in paths.items():
            messages.setdefault(name, {}).setdefault(path, []).append(version.schema_id)
    return TableOf(
        tables[table_message(own)],
        base64.b64encode(FileDescriptorSet(file=[*imports, own]).SerializeToString()).decode("ascii"),
        tables,
        {name: {path: tuple(sorted(ids)) for path, ids in at.items()} for name, at in messages.items()},
    )
