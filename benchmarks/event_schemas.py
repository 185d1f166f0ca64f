"""One event schema written in each schema type, for benchmarks that compare the types side by side.

Version ``n`` of the event has 30 fields (strings, longs, ints, doubles, booleans, a nested ``Device``
record of 5 fields, an array of strings, a map of strings to longs) and then ``n - 1`` added optional
fields, so each version is a BACKWARD_TRANSITIVE evolution of the ones before:

* Avro: each added field is ``["null", "long"]`` with a ``null`` default;
* JSON Schema (draft 7): closed content models (``additionalProperties: false``) on the event and the
  nested object, so adding an optional property is backward compatible, as Confluent's rules read it
  (forward, an old reader's closed model would refuse the new property);
* Protobuf (proto3): each added field a new ``int64`` with the next field number.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["TYPES", "event_schema"]

#: The schema types, as ``schemaType`` names them.
TYPES = ("AVRO", "JSON", "PROTOBUF")

#: (name, Avro type, JSON Schema type, Protobuf type) of the top-level fields other than the nested ones.
_KINDS = (
    ("long", {"type": "integer"}, "int64"),
    ("string", {"type": "string"}, "string"),
    ("int", {"type": "integer"}, "int32"),
    ("double", {"type": "number"}, "double"),
    ("boolean", {"type": "boolean"}, "bool"),
)
_PLAIN_FIELDS = 27  # + device, tags and counters: 30 fields
_DEVICE = (("os", "string"), ("model", "string"), ("width", "int"), ("height", "int"), ("mobile", "boolean"))


def _plain(version: int) -> list[tuple[str, int]]:
    """The plain top-level fields as (name, kind index), then the ones added by later versions (-1)."""
    fields = [(f"field_{i}", i % len(_KINDS)) for i in range(_PLAIN_FIELDS)]
    return fields + [(f"added_in_v{v}", -1) for v in range(2, version + 1)]


def event_schema(schema_type: str, version: int = 1) -> str:
    """The text of version ``version`` (1 and up) of the event in ``schema_type``."""
    if version < 1:
        raise ValueError("versions start at 1")
    return {"AVRO": _avro, "JSON": _json, "PROTOBUF": _protobuf}[schema_type](version)


def _avro(version: int) -> str:
    avro_of = {"long": "long", "string": "string", "int": "int", "double": "double", "boolean": "boolean"}
    fields: list[dict[str, Any]] = []
    for name, kind in _plain(version):
        if kind < 0:
            fields.append({"name": name, "type": ["null", "long"], "default": None})
        else:
            fields.append({"name": name, "type": avro_of[_KINDS[kind][0]]})
    device = {
        "type": "record",
        "name": "Device",
        "fields": [{"name": n, "type": avro_of[k]} for n, k in _DEVICE],
    }
    fields[3:3] = [
        {"name": "device", "type": device},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "counters", "type": {"type": "map", "values": "long"}},
    ]
    return json.dumps({"type": "record", "name": "Event", "namespace": "com.example", "fields": fields})


def _json(version: int) -> str:
    json_of = {k[0]: k[1] for k in _KINDS}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, kind in _plain(version):
        properties[name] = {"type": "integer"} if kind < 0 else dict(_KINDS[kind][1])
        if kind >= 0:
            required.append(name)
    properties["device"] = {
        "type": "object",
        "properties": {n: dict(json_of[k]) for n, k in _DEVICE},
        "required": [n for n, _ in _DEVICE],
        "additionalProperties": False,
    }
    properties["tags"] = {"type": "array", "items": {"type": "string"}}
    properties["counters"] = {"type": "object", "additionalProperties": {"type": "integer"}}
    required += ["device", "tags", "counters"]
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Event",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    return json.dumps(schema)


def _protobuf(version: int) -> str:
    proto_of = {k[0]: k[2] for k in _KINDS}
    lines = ['syntax = "proto3";', "package com.example;", "", "message Event {"]
    plain = [(n, k) for n, k in _plain(version) if k >= 0]
    added = [n for n, k in _plain(version) if k < 0]
    lines += [f"  {_KINDS[k][2]} {name} = {i};" for i, (name, k) in enumerate(plain, 1)]
    lines += [
        f"  Device device = {_PLAIN_FIELDS + 1};",
        f"  repeated string tags = {_PLAIN_FIELDS + 2};",
        f"  map<string, int64> counters = {_PLAIN_FIELDS + 3};",
    ]
    lines += [f"  int64 {name} = {i};" for i, name in enumerate(added, _PLAIN_FIELDS + 4)]
    lines += [
        "",
        "  message Device {",
        *(f"    {proto_of[k]} {n} = {i};" for i, (n, k) in enumerate(_DEVICE, 1)),
        "  }",
        "}",
    ]
    return "\n".join(lines) + "\n"
