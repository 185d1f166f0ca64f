"""The entry points that turn schema text into a checked :class:`ParsedSchema` and compare two of them.

A :class:`ParsedSchema` is immutable and carries everything the registry stores or compares: the text as
given, its JSON value, the Parsing Canonical Form with both fingerprints, the identity form (see
:mod:`registry.compatibility.canonical`) and, hidden from equality and repr, the internal model the
rules walk, so that a schema parsed once can be checked against many others without parsing again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from registry.compatibility.canonical import (
    identity_form,
    parsing_canonical_form,
    rabin_fingerprint,
    sha256_hex,
)
from registry.compatibility.hints import Incompatibility, anchor, root_label
from registry.compatibility.parsing import Parser, load_json
from registry.compatibility.problems import InvalidSchemaError, SchemaProblem
from registry.compatibility.rules import Checker
from registry.compatibility.schema_model import Node


@dataclass(frozen=True)
class ParsedSchema:
    """A valid schema and its canonical forms; build it with :func:`parse_schema`."""

    schema_type: ClassVar[str] = "AVRO"
    text: str
    json: Any = field(hash=False)  # dicts are unhashable; ``text`` already determines it
    canonical: str
    identity: str
    fingerprint: str
    model: Node | None = field(default=None, repr=False, compare=False)
    document: object = field(default=None, repr=False, compare=False)

    @property
    def normalized(self) -> str:
        """What ``normalize=true`` registers: the identity form (whitespace and key order gone)."""
        return self.identity

    @cached_property
    def rabin_fingerprint(self) -> int:
        """CRC-64-AVRO of the canonical form; computed on first use, as it is pure Python and rarely read."""
        return rabin_fingerprint(self.canonical.encode("utf-8"))

    @property
    def name(self) -> str | None:
        """The full name of the top-level type when it is a record, enum or fixed."""
        return self.root.name

    @property
    def root(self) -> Node:
        """The internal model (re-built from ``json`` if this instance was made by hand)."""
        if self.model is None:
            again = parse_schema(self.json)
            object.__setattr__(self, "model", again.model)
            object.__setattr__(self, "document", again.document)
        return self.model  # type: ignore[return-value]


def parse_schema(
    source: str | dict[str, Any] | list[Any],
    *,
    named_types: Mapping[str, ParsedSchema] | Iterable[ParsedSchema] | None = None,
) -> ParsedSchema:
    """Parses and validates ``source``; raises :class:`InvalidSchemaError` listing every problem.

    ``named_types`` are already-parsed schemas this one may refer to by name (schema references): every
    named type they define becomes usable here. A mapping's keys (reference names) are not needed, since
    Avro names the types itself; a plain iterable of schemas is accepted too.
    """
    if isinstance(source, str):
        text = source
        try:
            value = load_json(text)
        except ValueError as exc:
            raise InvalidSchemaError([getattr(exc, "problem", SchemaProblem("", str(exc)))]) from None
    elif isinstance(source, (dict, list)):
        value = source
        try:
            text = json.dumps(source)
        except (TypeError, ValueError) as exc:
            raise InvalidSchemaError([SchemaProblem("", f"the schema is not JSON data: {exc}")]) from None
    else:
        message = f"a schema must be JSON text, an object or an array, not {type(source).__name__}"
        raise InvalidSchemaError([SchemaProblem("", message)])
    parser = Parser(_known_names(named_types))
    try:
        root = parser.parse_root(value)
        if parser.problems:
            raise InvalidSchemaError(parser.problems)
        canonical = parsing_canonical_form(root)
        identity = identity_form(root)
    except RecursionError:
        raise InvalidSchemaError([SchemaProblem("", "the schema is nested too deeply")]) from None
    return ParsedSchema(
        text=text,
        json=value,
        canonical=canonical,
        identity=identity,
        fingerprint=sha256_hex(canonical),
        model=root,
        document=parser.document,
    )


def _known_names(named_types: Mapping[str, ParsedSchema] | Iterable[ParsedSchema] | None) -> dict[str, Node]:
    if not named_types:
        return {}
    schemas = named_types.values() if isinstance(named_types, Mapping) else named_types
    known: dict[str, Node] = {}
    for schema in schemas:
        _collect_named(schema.root, known, set())
    return known


def _collect_named(node: Node, into: dict[str, Node], seen: set[int]) -> None:
    if id(node) in seen:
        return
    seen.add(id(node))
    if node.name is not None:
        into[node.name] = node
    for f in node.fields:
        _collect_named(f.type, into, seen)
    for child in (node.items, node.values, *node.branches):
        if child is not None:
            _collect_named(child, into, seen)


def check_reader_writer(reader: ParsedSchema, writer: ParsedSchema) -> list[Incompatibility]:
    """Every reason ``reader`` cannot read data written with ``writer``; empty when it always can.

    The rules recurse once per nesting level, fewer frames than parsing needs, so schemas that parsed
    compare; should the stack still run out, the caller gets an :class:`InvalidSchemaError`, not a crash.
    """
    try:
        found = Checker().check(reader.root, writer.root)
    except RecursionError:
        problem = SchemaProblem("", "the schemas are nested too deeply to compare")
        raise InvalidSchemaError([problem]) from None
    label = root_label(reader.root)
    out: list[Incompatibility] = []
    seen: set[Incompatibility] = set()
    for item in found:
        incompatibility = anchor(item, label, reader.document, writer.document)
        if incompatibility not in seen:
            seen.add(incompatibility)
            out.append(incompatibility)
    return out


__all__ = ["ParsedSchema", "check_reader_writer", "parse_schema"]
