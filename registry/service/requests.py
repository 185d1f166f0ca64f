"""Parsing and validation of everything a client sends, before any of it reaches the database.

Hostile input must end as a 4xx with an error body, never a 500: bodies are size-checked before they are
read, depth-checked before ``json.loads`` (which recurses), and every number is range-checked, because
SQL integers are 32 or 64 bits while Python's are not.
"""

from __future__ import annotations

import json
import re
import unicodedata
import uuid
from dataclasses import dataclass, field
from typing import Any

from registry.service import errors
from registry.service.contracts import parse_metadata, parse_rule_set

MAX_INT32 = 2**31 - 1
LATEST = -1
COMPATIBILITY_LEVELS = (
    "NONE",
    "BACKWARD",
    "BACKWARD_TRANSITIVE",
    "FORWARD",
    "FORWARD_TRANSITIVE",
    "FULL",
    "FULL_TRANSITIVE",
)
MODES = ("READWRITE", "READONLY", "IMPORT")
DEFAULT_COMPATIBILITY = "BACKWARD"
DEFAULT_MODE = "READWRITE"
SUPPORTED_SCHEMA_TYPES = ("AVRO",)
DEFAULT_CONTEXT = "."
CONTEXT_PREFIX = ":."

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


def parse_bool(raw: str | None, default: bool = False, name: str = "flag") -> bool:
    """Clients send true/True/TRUE and false/False; anything else (even empty) is a client error."""
    if raw is None:
        return default
    lowered = raw.strip().lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    raise errors.BadRequest(f"Query parameter {name}={raw!r} is not a boolean; use true or false.")


def parse_int(raw: str | None, default: int, name: str) -> int:
    """A range-checked integer query parameter (offset, limit); empty is a client error."""
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise errors.BadRequest(f"Query parameter {name}={raw!r} is not an integer.") from None
    if abs(value) > MAX_INT32:
        raise errors.BadRequest(f"Query parameter {name}={raw!r} is out of range.")
    return value


def parse_version(raw: str) -> int:
    """A version path segment: 1..2^31-1, or ``latest`` / ``-1`` (returned as :data:`LATEST`)."""
    if raw == "latest" or raw == "-1":
        return LATEST
    if not raw.isascii() or not raw.isdigit() or len(raw) > 10 or not 1 <= int(raw) <= MAX_INT32:
        raise errors.InvalidVersion(
            f"The specified version '{raw}' is not a valid version id. "
            f'Allowed values are between [1, {MAX_INT32}] and the string "latest"'
        )
    return int(raw)


def parse_schema_id(raw: str) -> int:
    """A schema id path segment; anything that cannot be an id is simply not found."""
    if not raw.isascii() or not raw.isdigit() or len(raw) > 10 or not 1 <= int(raw) <= MAX_INT32:
        raise errors.SchemaNotFound(f"Schema {raw} not found")
    return int(raw)


def validate_subject(name: str, max_length: int) -> str:
    """Subjects may contain / . : and any printable text, but no control characters and no emptiness.

    A name qualified with Confluent's context syntax (``:.context:subject``) is accepted for the default
    context (``:.:subject`` is ``subject``) and refused for any other, which this registry does not have.
    """
    if name.startswith(CONTEXT_PREFIX):
        context, colon, rest = name[len(CONTEXT_PREFIX) :].partition(":")
        if not colon or context:
            raise errors.ContextNotSupported(
                f"The subject {name!r} names the context '.{context}'; this registry has only the default "
                f"context '{DEFAULT_CONTEXT}' (unqualified names, or ':.:name')."
            )
        name = rest
    if not name or not name.strip():
        raise errors.InvalidSubject("The subject name must not be empty.")
    if len(name) > max_length:
        raise errors.InvalidSubject(f"The subject name is longer than {max_length} characters.")
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in name):
        raise errors.InvalidSubject(f"The subject name {name!r} contains control characters.")
    return name


def parse_guid(raw: str) -> str:
    """A GUID path segment in canonical form; anything that cannot be a GUID is simply not found."""
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        raise errors.SchemaNotFound(f"Schema with GUID {raw!r} not found") from None


def metadata_query(keys: list[str], values: list[str]) -> dict[str, str]:
    """The ``key``/``value`` pairs of ``GET /subjects/{s}/metadata`` (repeated, in the same order)."""
    if len(keys) != len(values):
        raise errors.BadRequest(
            f"Give as many 'value' as 'key' parameters (got {len(keys)} keys and {len(values)} values)."
        )
    return dict(zip(keys, values, strict=True))


def parse_compatibility(raw: Any) -> str:
    """A compatibility level name (case-insensitive, as clients differ)."""
    if isinstance(raw, str) and raw.upper() in COMPATIBILITY_LEVELS:
        return raw.upper()
    raise errors.InvalidCompatibilityLevel(
        f"Invalid compatibility level {raw!r}. Valid values are {', '.join(COMPATIBILITY_LEVELS)}."
    )


def parse_mode(raw: Any) -> str:
    """A mode name: READWRITE, READONLY or IMPORT."""
    if isinstance(raw, str) and raw.upper() in MODES:
        return raw.upper()
    raise errors.InvalidMode(f"Invalid mode {raw!r}. Valid values are {', '.join(MODES)}.")


def json_depth(text: str) -> int:
    """Deepest bracket nesting of a JSON text, without recursion (strings are skipped)."""
    depth = deepest = 0
    for match in _BRACKETS.finditer(_STRINGS.sub("", text)):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def parse_json_body(raw: bytes, max_depth: int) -> dict[str, Any]:
    """The request body as a JSON object, or a 400 that says what is wrong with it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise errors.BadRequest(f"Request body is not valid UTF-8 (byte {exc.start}).") from None
    if not text.strip():
        raise errors.BadRequest("Request body is empty; a JSON object is expected.")
    if json_depth(text) > max_depth:
        raise errors.BadRequest(f"Request body is nested deeper than {max_depth} levels.")
    try:
        body = json.loads(text)
    except ValueError as exc:
        raise errors.BadRequest(f"Request body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise errors.BadRequest("Request body must be a JSON object.")
    return body


@dataclass(frozen=True)
class SchemaReferenceInput:
    """One entry of a request's ``references``."""

    name: str
    subject: str
    version: int


@dataclass(frozen=True)
class SchemaRequest:
    """The validated body of a register, lookup or compatibility request.

    ``metadata`` and ``rule_set`` are canonical (``registry.service.contracts``); ``None`` when the body
    has none, which makes a registration carry the previous version's forward.
    """

    schema: str
    schema_type: str = "AVRO"
    references: tuple[SchemaReferenceInput, ...] = field(default_factory=tuple)
    id: int | None = None
    version: int | None = None
    metadata: dict[str, Any] | None = field(default=None, hash=False)
    rule_set: dict[str, Any] | None = field(default=None, hash=False)


def _optional_positive(body: dict[str, Any], key: str) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_INT32:
        raise errors.BadRequest(f"'{key}' must be an integer between 1 and {MAX_INT32}.")
    return value


#: Confluent request fields for features this registry does not have: refused rather than dropped.
UNSUPPORTED_SCHEMA_FIELDS = {
    "schemaTagsToAdd": "schema tags",
    "schemaTagsToRemove": "schema tags",
    "propagateSchemaTags": "schema tags",
    "rulesToMerge": "rule merging",
    "rulesToRemove": "rule removal",
}


def parse_schema_request(body: dict[str, Any], max_schema_chars: int, max_depth: int) -> SchemaRequest:
    """Checks the shape of ``{"schema", "schemaType", "references", "id", "version", "metadata",
    "ruleSet"}``."""
    for key, feature in UNSUPPORTED_SCHEMA_FIELDS.items():
        if body.get(key) not in (None, False, [], {}):
            raise errors.BadRequest(f"'{key}' is not supported: this registry has no {feature}.")
    schema_type = body.get("schemaType")
    schema_type = "AVRO" if schema_type is None else schema_type
    if not isinstance(schema_type, str):
        raise errors.InvalidSchema("'schemaType' must be a string.")
    if schema_type.upper() not in SUPPORTED_SCHEMA_TYPES:
        raise errors.InvalidSchema(
            f"Schema type {schema_type} is not supported: this registry stores AVRO schemas only."
        )
    schema = body.get("schema")
    if not isinstance(schema, str) or not schema.strip():
        raise errors.InvalidSchema("'schema' must be a non-empty string holding the schema's JSON.")
    if len(schema) > max_schema_chars:
        raise errors.SchemaTooLarge(f"Schema has {len(schema)} characters; the limit is {max_schema_chars}.")
    if json_depth(schema) > max_depth:
        raise errors.InvalidSchema(f"Schema is nested deeper than {max_depth} levels.")
    refs_raw = body.get("references")
    refs_raw = [] if refs_raw is None else refs_raw
    if not isinstance(refs_raw, list):
        raise errors.InvalidSchema("'references' must be a list.")
    references = []
    for ref in refs_raw:
        ok = (
            isinstance(ref, dict)
            and isinstance(ref.get("name"), str)
            and isinstance(ref.get("subject"), str)
            and isinstance(ref.get("version"), int)
            and not isinstance(ref.get("version"), bool)
            and 1 <= ref["version"] <= MAX_INT32
        )
        if not ok:
            raise errors.InvalidSchema("Each reference needs a string name, a string subject and a version.")
        references.append(SchemaReferenceInput(ref["name"], ref["subject"], ref["version"]))
    return SchemaRequest(
        schema=schema,
        schema_type=schema_type.upper(),
        references=tuple(references),
        id=_optional_positive(body, "id"),
        version=_optional_positive(body, "version"),
        metadata=parse_metadata(body.get("metadata")),
        rule_set=parse_rule_set(body.get("ruleSet")),
    )
