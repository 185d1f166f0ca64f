"""What a client sends outside the declared JSON bodies: path segments, query parameters, and a body's
text before it is parsed (the bodies themselves are declared in ``registry.service.bodies``).

Hostile input must end as a 4xx with an error body, never a 500: bodies are size-checked before they are
read, depth-checked before ``json.loads`` (which recurses), and every number is range-checked, because
SQL integers are 32 or 64 bits while Python's are not.
"""

from __future__ import annotations

import json
import re
import unicodedata
import uuid
from typing import Any

from registry.service import errors

MAX_INT32 = 2**31 - 1
LATEST = -1
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
