"""Debezium's change envelope, recognised from a topic's Avro value schema alone (no configuration): a
record with `before` and `after` (each a nullable record, both of one record type), `op` (a string) and
`source` (a record), these two nullable or not. Such a topic's current-state table holds the `after` rows (see
`loader.schema.current_state`)."""

from __future__ import annotations

import json
from typing import Any

ENVELOPE_FIELDS = ("before", "after", "op", "source")


def is_change_envelope(schema: str | dict[str, Any]) -> bool:
    """Whether the Avro schema (JSON text or parsed) is a Debezium change envelope."""
    parsed = json.loads(schema) if isinstance(schema, str) else schema
    if not isinstance(parsed, dict) or parsed.get("type") != "record":
        return False
    namespace = _namespace(parsed, "")
    fields = {f.get("name"): f.get("type") for f in parsed.get("fields", []) if isinstance(f, dict)}
    if any(name not in fields for name in ENVELOPE_FIELDS):
        return False
    before = _nullable_record(fields["before"], namespace)
    after = _nullable_record(fields["after"], namespace)
    # `op` and `source` may be nullable: a JSON Schema's table makes every column so (see
    # `loader.reading.value_formats.json_schema_tables`).
    op, source = _non_null(fields["op"]), _non_null(fields["source"])
    return (
        before is not None
        and before == after
        and (op == "string" or (isinstance(op, dict) and op.get("type") == "string"))
        and isinstance(source, dict)
        and source.get("type") == "record"
    )


def _nullable_record(kind: Any, namespace: str) -> str | None:
    """The full name of the record of a `["null", record]` union (a record or a reference to one)."""
    if not isinstance(kind, list) or len(kind) != 2 or "null" not in kind:
        return None
    [other] = [k for k in kind if k != "null"]
    if isinstance(other, dict) and other.get("type") == "record" and other.get("name"):
        return _full_name(str(other["name"]), _namespace(other, namespace))
    if isinstance(other, str) and other not in PRIMITIVES:
        return _full_name(other, namespace)
    return None


def _non_null(kind: Any) -> Any:
    """The type of a `["null", T]` union, else the type itself."""
    if isinstance(kind, list) and len(kind) == 2 and "null" in kind:
        return next(k for k in kind if k != "null")
    return kind


PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


def _namespace(record: dict[str, Any], enclosing: str) -> str:
    name = str(record.get("name", ""))
    if "." in name:
        return name.rsplit(".", 1)[0]
    return str(record["namespace"]) if record.get("namespace") is not None else enclosing


def _full_name(name: str, namespace: str) -> str:
    return name if "." in name or not namespace else f"{namespace}.{name}"
