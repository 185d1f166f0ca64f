"""JSON Schema as a schema type of the registry (``schemaType: JSON``, as Confluent's).

Modules, one job each: ``drafts`` (which draft a document is), ``text`` (text to JSON, with the limits),
``keywords`` (where subschemas are), ``refs`` (where ``$ref``s lead), ``parsing`` and ``parsed`` (the
parsed schema and its canonical forms), ``model`` (schemas as the rules see them).
"""

from registry.schema_types.json_schema.parsed import ParsedJsonSchema
from registry.schema_types.json_schema.parsing import MAX_PROBLEMS, parse_json_schema
from registry.schema_types.json_schema.text import MAX_NESTING, MAX_SCHEMA_CHARS

__all__ = ["MAX_NESTING", "MAX_PROBLEMS", "MAX_SCHEMA_CHARS", "ParsedJsonSchema", "parse_json_schema"]
