"""The bridge between requests and the compatibility package: parse, dedupe key, check, explain.

Kept free of I/O so that the repository decides *when* to check and this module decides *what* a check
means: which stored versions take part and how a refusal reads to the person who sent the schema.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence

from registry.compatibility import Conflict, InvalidSchemaError
from registry.schema_types import (
    DEFAULT_SCHEMA_TYPE,
    Parsed,
    Reference,
    UnknownSchemaType,
    schema_type,
    type_change,
)
from registry.service import errors
from registry.service.bodies import SchemaReferenceInput
from registry.service.contracts import Metadata, RuleSet


def parse(text: str, references: Sequence[Reference] = (), type_name: str = DEFAULT_SCHEMA_TYPE) -> Parsed:
    """Parses and validates a schema of the type named, given the schemas its references name; every
    problem becomes one 42201 with all the details (a type this registry does not store too)."""
    try:
        return schema_type(type_name).parse(text, references)
    except UnknownSchemaType as exc:
        raise errors.InvalidSchema(str(exc)) from None
    except InvalidSchemaError as exc:
        problems = getattr(exc, "problems", None) or []
        details = "; ".join(_problem_line(p) for p in problems) or str(exc)
        raise errors.InvalidSchema(f"Invalid schema: {details}") from None
    except (ValueError, TypeError, RecursionError) as exc:
        raise errors.InvalidSchema(f"Invalid schema: {exc}") from None


def _problem_line(problem: object) -> str:
    """``line 3, column 9 (/fields/0/default): message`` when positions are known, else the pointer."""
    pointer = getattr(problem, "pointer", "") or "/"
    line, column = getattr(problem, "line", None), getattr(problem, "column", None)
    where = f"line {line}, column {column} ({pointer})" if line is not None else pointer
    return f"{where}: {getattr(problem, 'message', problem)}"


def identity_hash(
    parsed: Parsed,
    schema_type: str,
    references: Sequence[SchemaReferenceInput],
    metadata: Metadata | None = None,
    rule_set: RuleSet | None = None,
) -> str:
    """The dedupe key: same identity, type, references, metadata and rule set means the same global id.

    Without metadata and rules the key is what it was before data contracts, so stored keys stay valid.
    """
    refs = [[r.name, r.subject, r.version] for r in references]
    parts: list[object] = [schema_type, parsed.identity, refs]
    if metadata or rule_set:
        parts.append({"metadata": metadata or {}, "ruleSet": rule_set or {}})
    key = json.dumps(parts, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def guid_for(identity_hash: str) -> str:
    """The schema's GUID: the first 128 bits of its identity hash as an RFC 9562 version-8 UUID.

    Derived from the content, as Confluent's are (theirs is an MD5 of the text), so it is stable across
    exports and imports; clients put it in record headers and ask ``/schemas/guids/{guid}`` for it.
    """
    raw = bytearray(bytes.fromhex(identity_hash)[:16])
    raw[6] = (raw[6] & 0x0F) | 0x80  # version 8: custom
    raw[8] = (raw[8] & 0x3F) | 0x80  # the RFC variant
    return str(uuid.UUID(bytes=bytes(raw)))


def conflicts(new: Parsed, existing: Sequence[tuple[int, Parsed]], level: str) -> list[Conflict]:
    """Conflicts of ``new`` with the stored versions (oldest first) under ``level``, by its type's rules;
    a version of another type is a conflict."""
    if not existing or level == "NONE":
        return []
    return type_change.conflicts(schema_type(new.schema_type), new, list(existing), level)


def describe(found: Sequence[Conflict]) -> list[str]:
    """One line per conflict naming the field path, the rule and the fix."""
    return [c.describe() for c in found]


def incompatible_error(subject: str, level: str, found: Sequence[Conflict]) -> errors.Incompatible:
    """The 409 a refused registration answers with."""
    lines = describe(found)
    return errors.Incompatible(
        f'Schema being registered is incompatible with an earlier schema for subject "{subject}" '
        f"(compatibility {level}): " + " | ".join(lines)
    )
