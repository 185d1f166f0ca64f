"""The fields of an Avro record schema, nested ones included, each by the path its column has in the table.

Paths use the notation of `loader.schema.table_evolution`: `info.b` for a field of a record,
`items[].price` for a field of an array's records, `attrs{}.w` for a field of a map's records. spark-avro
makes a nullable type (`["null", T]`) a plain column of T, so a nullable record's fields are walked as the
record's; a union of several types becomes a struct of members named by type, whose fields no Avro field
name reaches, so the walk stops there. Decided on the schema's JSON alone (no Spark session).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def record_fields(schema: str | dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path, field) of every field of the record, depth first, a record's fields before its nested ones."""
    root = json.loads(schema) if isinstance(schema, str) else schema
    if not isinstance(root, dict) or root.get("type") != "record":
        return
    yield from _fields(root, "", {}, root.get("namespace"), ())


def _fields(
    record: dict[str, Any],
    prefix: str,
    named: dict[str, Any],
    namespace: str | None,
    walking: tuple[str, ...],
) -> Iterator[tuple[str, dict[str, Any]]]:
    full_name = _remember(record, named, namespace)
    if full_name in walking:  # a recursive type: spark-avro refuses it, and there is nothing more to name
        return
    namespace = record.get("namespace") or namespace
    for field in record.get("fields", []):
        path = prefix + field["name"]
        yield path, field
        yield from _nested(field["type"], path, named, namespace, (*walking, full_name))


def _nested(
    avro_type: Any, path: str, named: dict[str, Any], namespace: str | None, walking: tuple[str, ...]
) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(avro_type, str):
        avro_type = named.get(avro_type) or named.get(f"{namespace}.{avro_type}") or avro_type
    if isinstance(avro_type, list):
        branches = [b for b in avro_type if b != "null"]
        if len(branches) == 1:
            yield from _nested(branches[0], path, named, namespace, walking)
        return
    if not isinstance(avro_type, dict):
        return
    kind = avro_type.get("type")
    if kind == "record":
        yield from _fields(avro_type, f"{path}.", named, namespace, walking)
    elif kind == "array":
        yield from _nested(avro_type.get("items"), f"{path}[]", named, namespace, walking)
    elif kind == "map":
        yield from _nested(avro_type.get("values"), f"{path}{{}}", named, namespace, walking)
    elif isinstance(kind, dict | list):  # {"type": {...}} nests a type
        yield from _nested(kind, path, named, namespace, walking)
    elif kind in ("enum", "fixed"):
        _remember(avro_type, named, namespace)


def _remember(named_type: dict[str, Any], named: dict[str, Any], namespace: str | None) -> str:
    """Registers a named type under its short and full names (later references use either)."""
    name = str(named_type.get("name", ""))
    space = named_type.get("namespace") or namespace
    full_name = name if "." in name or not space else f"{space}.{name}"
    named.setdefault(full_name, named_type)
    named.setdefault(name.rpartition(".")[2], named_type)
    return full_name
