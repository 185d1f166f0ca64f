"""Schema builders and small HTTP helpers shared by the registry API tests."""

from __future__ import annotations

import json
import uuid
from typing import Any

CT = "application/vnd.schemaregistry.v1+json"


def record(name: str = "PageView", **fields: Any) -> str:
    """An Avro record schema; each keyword is a field: a type, or (type, default) for a defaulted one."""
    out = []
    for field_name, spec in fields.items():
        if isinstance(spec, tuple):
            out.append({"name": field_name, "type": spec[0], "default": spec[1]})
        else:
            out.append({"name": field_name, "type": spec})
    return json.dumps({"type": "record", "name": name, "namespace": "com.example", "fields": out})


def body(schema: str, **extra: Any) -> dict[str, Any]:
    return {"schema": schema, **extra}


def without_guid(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer minus its ``guid``, which must be a canonical UUID (its value is tested elsewhere)."""
    rest = dict(answer)
    guid = rest.pop("guid")
    assert str(uuid.UUID(guid)) == guid
    return rest
