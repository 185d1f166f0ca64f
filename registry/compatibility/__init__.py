"""Avro schema validation, canonical forms and reader/writer compatibility, as pure functions.

No I/O: the registry's service layer decides which schemas to compare; this package decides what valid,
identical and compatible mean. Verdicts follow the Avro specification's "Schema Resolution" as Apache
Avro Java's ``SchemaCompatibility`` applies it (logical types are ignored by the rules, as in Java; the
underlying type decides). Modules, one job each: ``kinds`` (levels, incompatibility kinds), ``problems``
(validation errors), ``parsing`` and ``validation`` (text to model, with every check), ``schema_model``,
``canonical`` (PCF, fingerprints, identity form), ``rules`` (the resolution rules), ``hints`` (wording),
``parsed`` (the entry points), ``levels`` (BACKWARD/FORWARD/FULL, transitive or not), ``diff`` (what
changed between two schemas, field by field, for people).
"""

from registry.compatibility.diff import Change, ChangeKind, diff_schemas
from registry.compatibility.hints import Incompatibility
from registry.compatibility.kinds import CompatibilityLevel, IncompatibilityKind
from registry.compatibility.levels import Conflict, check_compatibility
from registry.compatibility.parsed import ParsedSchema, check_reader_writer, parse_schema
from registry.compatibility.problems import InvalidSchemaError, SchemaProblem

__all__ = [
    "Change",
    "ChangeKind",
    "CompatibilityLevel",
    "Conflict",
    "Incompatibility",
    "IncompatibilityKind",
    "InvalidSchemaError",
    "ParsedSchema",
    "SchemaProblem",
    "check_compatibility",
    "check_reader_writer",
    "diff_schemas",
    "parse_schema",
]
