"""What a search for people looks in, in a schema of each type: ``(kind, where, text)`` entries, one for
each name, namespace, symbol and doc a person may search for (never a type name: ``string`` is in every
schema, but is not what a person searching for it means).

Avro's come from its JSON (records, enums and fixed by full name, their namespaces, fields, enum symbols
and docs); the other types' from their field trees (the top-level message or object, every field by its
path, docs), each type's ``search_entries`` choosing (:class:`~registry.schema_types.base.SchemaType`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from registry.schema_types.base import FieldTree

#: One thing a search looks in: what it is (``record``, ``namespace``, ``field``, ``doc``, ``symbol``,
#: an Avro ``enum`` or ``fixed``, or a field tree's top-level kind: ``message``, ``object``), where, and
#: its text.
Entry = tuple[str, str, str]

NAMED = ("record", "error", "enum", "fixed")


def avro_entries(schema: Any) -> tuple[Entry, ...]:
    """An Avro schema's (its JSON, as parsed) names, namespaces, symbols and docs."""
    return tuple(_walk(schema, None, ""))


def tree_entries(tree: FieldTree) -> tuple[Entry, ...]:
    """A field tree's top-level types, fields (by path) and docs."""
    entries: list[Entry] = []
    if tree.namespace:
        entries.append(("namespace", tree.namespace, tree.namespace))
    for row in tree.rows:
        if row.is_field:
            entries.append(("field", row.path, row.name))
        else:
            entries.append((row.type.split()[0] if row.type else "type", row.path, row.name))
        if row.doc:
            entries.append(("doc", row.path, row.doc))
    return tuple(entries)


def _full(name: str, namespace: str | None) -> str:
    return name if "." in name or not namespace else f"{namespace}.{name}"


def _walk(schema: Any, namespace: str | None, path: str) -> Iterator[Entry]:
    """Every searchable string of a schema: (kind, where, text) triples."""
    if isinstance(schema, list):
        for branch in schema:
            yield from _walk(branch, namespace, path)
        return
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if kind in NAMED and isinstance(schema.get("name"), str):
        space = schema.get("namespace") if isinstance(schema.get("namespace"), str) else namespace
        full = _full(schema["name"], space)
        space = full.rpartition(".")[0] or None
        yield ("record" if kind in ("record", "error") else kind, full, schema["name"])
        if space:
            yield ("namespace", space, space)
        if isinstance(schema.get("doc"), str):
            yield ("doc", full, schema["doc"])
        for symbol in schema.get("symbols", ()) if kind == "enum" else ():
            if isinstance(symbol, str):
                yield ("symbol", f"{full}.{symbol}", symbol)
        short = full.rpartition(".")[2]
        for field in schema.get("fields", ()) if kind in ("record", "error") else ():
            if not isinstance(field, dict) or not isinstance(field.get("name"), str):
                continue
            where = f"{short}.{field['name']}"
            yield ("field", where, field["name"])
            if isinstance(field.get("doc"), str):
                yield ("doc", where, field["doc"])
            yield from _walk(field.get("type"), space, where)
    elif kind in ("array", "map"):
        yield from _walk(schema.get("items" if kind == "array" else "values"), namespace, path)
    elif isinstance(kind, dict | list):
        yield from _walk(kind, namespace, path)
