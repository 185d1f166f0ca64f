"""JSON Schema as a schema type of the registry: the interface (``registry.schema_types.base``) over the
parser, the rules, the diff and the field tree of this package."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from registry.compatibility import Change, CompatibilityLevel, Conflict
from registry.compatibility.levels import compare_versions
from registry.schema_types.base import FieldTree, Parsed, Reference
from registry.schema_types.json_schema.check import incompatibilities
from registry.schema_types.json_schema.diff import diff_json_schemas
from registry.schema_types.json_schema.parsed import ParsedJsonSchema
from registry.schema_types.json_schema.parsing import parse_json_schema
from registry.schema_types.json_schema.refs import referenced_documents
from registry.schema_types.json_schema.tree import field_tree
from registry.schema_types.search_entries import tree_entries

__all__ = ["JsonSchema"]


class JsonSchema:
    """JSON schemas (drafts 4 to 2020-12), compared by Confluent's rules; references by ``$ref`` URI."""

    name = "JSON"
    file_suffix = ".json"
    media_type = "application/schema+json"
    text_is_json = True
    field_policies = False

    def file_references(self, text: str) -> tuple[str, ...]:
        return referenced_documents(text)

    def parse(self, text: str, references: Sequence[Reference] = ()) -> ParsedJsonSchema:
        return parse_json_schema(text, references)

    def conflicts(
        self, new: Parsed, existing: Sequence[tuple[int, Parsed]], level: CompatibilityLevel | str
    ) -> list[Conflict]:
        return compare_versions(_json(new), [(v, _json(s)) for v, s in existing], level, incompatibilities)

    def reads(self, reader: Parsed, writer: Parsed) -> bool:
        return not incompatibilities(_json(reader), _json(writer))

    def diff(self, old: Parsed, new: Parsed) -> list[Change]:
        return diff_json_schemas(_json(old), _json(new))

    def field_tree(self, schema: Parsed) -> FieldTree:
        return field_tree(_json(schema))

    def formatted(self, schema: Parsed, format: str) -> str | None:
        return None  # Confluent's JSON Schema has no format of its own either

    def readable(self, schema: Parsed) -> str:
        return json.dumps(json.loads(_json(schema).identity), indent=2, sort_keys=True, ensure_ascii=False)

    def search_entries(self, schema: Parsed) -> tuple[tuple[str, str, str], ...]:
        return tree_entries(self.field_tree(schema))

    def positions(self, schema: Parsed) -> Mapping[str, tuple[int, int]]:
        return {}  # JSON: the schema check reads the pointers in the text


def _json(schema: Parsed) -> ParsedJsonSchema:
    if not isinstance(schema, ParsedJsonSchema):
        raise TypeError(f"a JSON Schema rule was given a {schema.schema_type} schema")
    return schema
