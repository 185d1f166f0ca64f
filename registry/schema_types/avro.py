"""Avro as a schema type of the registry: the interface (``registry.schema_types.base``) over the
Avro rules, canonical forms and field tree of ``registry.compatibility``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from registry.compatibility import (
    Change,
    CompatibilityLevel,
    Conflict,
    ParsedSchema,
    check_compatibility,
    check_reader_writer,
    diff_schemas,
    parse_schema,
)
from registry.schema_types.avro_tree import field_tree
from registry.schema_types.base import FieldTree, Parsed, Reference
from registry.schema_types.search_entries import avro_entries


class Avro:
    """Avro schemas (JSON text; references by the names of the types they define)."""

    name = "AVRO"
    file_suffix = ".avsc"
    media_type = "application/json"
    text_is_json = True
    field_policies = True

    def file_references(self, text: str) -> tuple[str, ...]:
        return ()  # an .avsc file is self-contained: its named types are its own

    def parse(self, text: str, references: Sequence[Reference] = ()) -> ParsedSchema:
        if references:
            return parse_schema(text, named_types=[_avro(r.schema) for r in references])
        return parse_schema(text)

    def conflicts(
        self, new: Parsed, existing: Sequence[tuple[int, Parsed]], level: CompatibilityLevel | str
    ) -> list[Conflict]:
        return check_compatibility(_avro(new), [(v, _avro(s)) for v, s in existing], level)

    def reads(self, reader: Parsed, writer: Parsed) -> bool:
        return not check_reader_writer(_avro(reader), _avro(writer))

    def diff(self, old: Parsed, new: Parsed) -> list[Change]:
        return diff_schemas(_avro(old), _avro(new))

    def field_tree(self, schema: Parsed) -> FieldTree:
        return field_tree(_avro(schema))

    def formatted(self, schema: Parsed, format: str) -> str | None:
        return None  # Confluent's "resolved" (references inlined) is not implemented: the text as stored

    def readable(self, schema: Parsed) -> str:
        return json.dumps(json.loads(schema.identity), indent=2, ensure_ascii=False)

    def search_entries(self, schema: Parsed) -> tuple[tuple[str, str, str], ...]:
        return avro_entries(json.loads(schema.text))

    def positions(self, schema: Parsed) -> Mapping[str, tuple[int, int]]:
        return {}  # JSON: the schema check reads the pointers in the text


def _avro(schema: Parsed) -> ParsedSchema:
    if not isinstance(schema, ParsedSchema):
        raise TypeError(f"an Avro rule was given a {schema.schema_type} schema")
    return schema
