"""JSON Schema as a schema type of the registry (``schemaType: JSON``, as Confluent's).

Modules, one job each: ``drafts`` (which draft a document is), ``text`` (text to JSON, with the limits),
``keywords`` (where subschemas are), ``refs`` (where ``$ref``s lead), ``parsing`` and ``parsed`` (the
parsed schema and its canonical forms), ``model`` (schemas as the rules see them), ``kinds`` (Confluent's
difference types and the compatible ones), ``findings``, ``rules`` and ``content`` (the comparison),
``wording`` (messages and hints), ``check`` (the rules' entry point), ``labels``, ``tree`` and ``diff``
(for people), ``schema_type`` (the :class:`JsonSchema` plug-in).
"""

from registry.schema_types.json_schema.kinds import COMPATIBLE, Difference
from registry.schema_types.json_schema.parsed import ParsedJsonSchema
from registry.schema_types.json_schema.parsing import MAX_PROBLEMS, parse_json_schema
from registry.schema_types.json_schema.rules import MAX_PAIRS
from registry.schema_types.json_schema.schema_type import JsonSchema
from registry.schema_types.json_schema.text import MAX_NESTING, MAX_SCHEMA_CHARS

__all__ = [
    "COMPATIBLE",
    "MAX_NESTING",
    "MAX_PAIRS",
    "MAX_PROBLEMS",
    "MAX_SCHEMA_CHARS",
    "Difference",
    "JsonSchema",
    "ParsedJsonSchema",
    "parse_json_schema",
]
