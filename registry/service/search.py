"""What a search for some text finds in a schema: record, enum and fixed names and namespaces, field names
and docs. Pure (JSON in, hits out), case-insensitive, on the schema's JSON as registered.

The subject list asks the database for the subjects whose name holds the text, or whose latest live
schema's text holds it; this module then keeps the schema matches that are in a name, a namespace or a
doc (the text ``string`` is in every schema's JSON, but is not what a person searching for it means) and
says where, so the list can show why a subject matched.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

MAX_HITS = 3
NAMED = ("record", "error", "enum", "fixed")


@dataclass(frozen=True)
class Hit:
    """Where the text was found: ``what`` is ``record``, ``namespace``, ``field``, ``doc`` or ``symbol``."""

    what: str
    where: str

    def __str__(self) -> str:
        return f"{self.what} {self.where}"


def _full(name: str, namespace: str | None) -> str:
    return name if "." in name or not namespace else f"{namespace}.{name}"


def _walk(schema: Any, namespace: str | None, path: str) -> Iterator[tuple[str, str, str]]:
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


@dataclass(frozen=True)
class Digest:
    """A schema's searchable strings: ``text`` (all of them, lower-cased, one per line) for the quick
    test, ``entries`` (kind, where, lower-cased text) to say where a match is."""

    text: str
    entries: tuple[tuple[str, str, str], ...]
    places: str = ""  # every field's place (`Payment.ssn`), lower-cased, one per line


def candidate_text(wanted: str) -> str:
    """What a schema's JSON must hold to match ``wanted``: the text itself, or for a dotted path as the
    hits show places (``Payment.ssn``), its last name (the field's, which the JSON holds)."""
    needle = wanted.strip()
    return needle.rpartition(".")[2] or needle if "." in needle else needle


def searchable(schema_text: str) -> Digest:
    """The schema's names, namespaces, symbols and docs: what a search looks in, small enough to keep per
    schema id so that a repeated search reads no JSON."""
    try:
        schema = json.loads(schema_text)
    except ValueError:
        return Digest("", ())
    entries = tuple((kind, where, text.lower()) for kind, where, text in _walk(schema, None, ""))
    places = "\n".join(where.lower() for kind, where, _ in entries if kind == "field")
    return Digest("\n".join(text for _, _, text in entries), entries, places)


def _needle(wanted: str) -> str:
    needle = wanted.strip().lower()
    return "" if "\n" in needle else needle


def mentions(digest: Digest, wanted: str) -> bool:
    """Whether one name, namespace, symbol or doc of the digest's schema holds ``wanted``, or a field's
    place as the hits name it (``Payment.ssn``)."""
    needle = _needle(wanted)
    return bool(needle) and (needle in digest.text or ("." in needle and needle in digest.places))


def digest_hits(digest: Digest, wanted: str, limit: int = MAX_HITS) -> list[Hit]:
    """Up to ``limit`` places whose name, namespace, symbol or doc holds ``wanted``, in schema order."""
    needle = _needle(wanted)
    hits: list[Hit] = []
    if not needle:
        return hits
    for kind, where, text in digest.entries:
        hit = Hit(kind, where)
        in_place = kind == "field" and "." in needle and needle in where.lower()
        if (needle in text or in_place) and hit not in hits:
            hits.append(hit)
            if len(hits) >= limit:
                break
    return hits


def schema_hits(schema_text: str, wanted: str, limit: int = MAX_HITS) -> list[Hit]:
    """Up to ``limit`` places in the schema whose name, namespace, symbol or doc holds ``wanted``."""
    return digest_hits(searchable(schema_text), wanted, limit)
