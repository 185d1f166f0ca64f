"""What a search for some text finds in a schema: its type's names, namespaces, fields, symbols and docs
(``registry.schema_types.search_entries``). Pure (entries in, hits out), case-insensitive.

The subject list asks the database for the subjects whose name holds the text, or whose latest live
schema's text holds it; this module then keeps the schema matches that are in a name, a namespace or a
doc (the text ``string`` is in every schema's JSON, but is not what a person searching for it means) and
says where, so the list can show why a subject matched.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

MAX_HITS = 3


@dataclass(frozen=True)
class Hit:
    """Where the text was found: ``what`` is ``record``, ``namespace``, ``field``, ``doc``, ``symbol``, or
    another kind a schema type's search entries name (``enum``; Protobuf's ``message``, JSON Schema's
    ``object``)."""

    what: str
    where: str

    def __str__(self) -> str:
        return f"{self.what} {self.where}"


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


def searchable(entries: Iterable[tuple[str, str, str]]) -> Digest:
    """A schema's search entries (its type's ``search_entries``) as a digest: what a search looks in,
    small enough to keep per schema id so that a repeated search parses nothing."""
    lowered = tuple((kind, where, text.lower()) for kind, where, text in entries)
    places = "\n".join(where.lower() for kind, where, _ in lowered if kind == "field")
    return Digest("\n".join(text for _, _, text in lowered), lowered, places)


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
