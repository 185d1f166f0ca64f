"""Whether a reader's JSON schema accepts every document a writer's schema accepts: Confluent's
``SchemaDiff`` rules, written again over :mod:`model` nodes (the same cases, kinds and verdicts).

The walk compares the writer's schema (Confluent's "original") with the reader's ("update") and lists
every :class:`~findings.Finding`; the reader reads the writer's data when every kind found is compatible.
Comparison goes by node kind, as Confluent's goes by everit class: a lone schema against a ``oneOf`` or
``anyOf`` matches when one of its choices reads it, an ``allOf`` against a lone schema when one of its
parts does; otherwise different kinds are a changed type, except that anything may become ``true``/``{}``
and ``false`` may become anything. Choices of two combined schemas are paired by a maximum matching of
the pairs that are compatible.

``$ref``s are followed (the model makes them their targets). A pair of schemas is compared once: its
findings are kept (relative to the pair) and reused wherever the pair comes again; a pair met again while
it is being compared is a recursion and taken as compatible there (its real differences are reported
where it is compared), and results that relied on such an assumption are not kept. At most
:data:`MAX_PAIRS` pairs are compared, so adversarial schemas end with :class:`TooComplex`, not a hang;
and pairs nest at most :data:`MAX_DEPTH` deep (a long chain of ``$ref``s to ever new objects), so such
schemas end with :class:`TooDeep` whatever Python's recursion limit is.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from registry.schema_types.json_schema import content
from registry.schema_types.json_schema.findings import (
    Finding,
    bound,
    compatible,
    found,
    json_text,
)
from registry.schema_types.json_schema.kinds import Difference as D
from registry.schema_types.json_schema.kinds import family
from registry.schema_types.json_schema.labels import type_label
from registry.schema_types.json_schema.model import Node

__all__ = ["MAX_DEPTH", "MAX_PAIRS", "Comparison", "TooComplex", "TooDeep"]

#: Pairs of subschemas compared at most for one writer/reader pair (oneOf against oneOf compares every
#: choice with every choice, so the work is bounded here rather than by the size of the texts).
MAX_PAIRS = 100_000
#: Pairs being compared inside one another at most. A pair costs about six Python frames, so this stays
#: well within the default recursion limit of 1000 under a request's own frames; the verdict on a deep
#: schema must not depend on the limit, which libraries change (a CEL environment sets it to 2500).
MAX_DEPTH = 100

_ANNOTATIONS = (("$id", D.ID_CHANGED), ("title", D.TITLE_CHANGED), ("description", D.DESCRIPTION_CHANGED))
_STRING_BOUNDS = {"maxLength": family("MAX_LENGTH"), "minLength": family("MIN_LENGTH")}
_NUMBER_BOUNDS = {
    "maximum": family("MAXIMUM"),
    "minimum": family("MINIMUM"),
    "exclusiveMaximum": family("EXCLUSIVE_MAXIMUM"),
    "exclusiveMinimum": family("EXCLUSIVE_MINIMUM"),
}


class TooComplex(ValueError):
    """Comparing two schemas would take more than :data:`MAX_PAIRS` comparisons of subschemas."""


class TooDeep(TooComplex):
    """Comparing two schemas would nest more than :data:`MAX_DEPTH` comparisons of subschemas."""

    def __init__(self) -> None:
        super().__init__("the schemas are nested too deeply to compare")


class Comparison:
    """One comparison of a writer's schema with a reader's: the pairs compared and their findings."""

    def __init__(self) -> None:
        self._done: dict[tuple[int, int], list[Finding]] = {}
        self._active: set[tuple[int, int]] = set()
        self._assumed: set[tuple[int, int]] = set()
        self._pairs = 0

    def compare(self, writer: Node, reader: Node) -> list[Finding]:
        """Every difference between ``writer`` and ``reader``, with paths relative to them."""
        key = (id(writer), id(reader))
        done = self._done.get(key)
        if done is not None:
            return done
        if key in self._active:  # a recursion: compatible here, compared where it started
            self._assumed.add(key)
            return []
        if _same(writer, reader):  # most of an evolved schema is what it was
            return []
        if len(self._active) >= MAX_DEPTH:  # the pairs being compared are the ones on the stack
            raise TooDeep()
        self._pairs += 1
        if self._pairs > MAX_PAIRS:
            raise TooComplex(
                f"the schemas are too complex to compare (more than {MAX_PAIRS} pairs of subschemas)"
            )
        outer, self._assumed = self._assumed, set()
        self._active.add(key)
        try:
            findings = self._kinds(writer, reader)
        finally:
            self._active.discard(key)
        self._assumed.discard(key)
        if not self._assumed:
            self._done[key] = findings
        self._assumed |= outer
        return findings

    def _kinds(self, writer: Node, reader: Node) -> list[Finding]:
        if writer.kind != "combined" and reader.kind == "combined":
            matched = self._lone_against_combined(writer, reader)
            if matched is not None:
                return matched
        elif writer.kind == "combined" and reader.kind != "combined":
            matched = self._combined_against_lone(writer, reader)
            if matched is not None:
                return matched
        if writer.kind != reader.kind:
            if writer.kind == "false" or reader.kind == "empty":
                return []
            if writer.raw.get("connect.type") == "bytes" == reader.raw.get("connect.type"):
                return []  # Kafka Connect's bytes, as Confluent allows
            return [found(D.TYPE_CHANGED, writer, reader, None, type_label(writer), type_label(reader))]
        findings = [
            found(kind, writer, reader, keyword)
            for keyword, kind in _ANNOTATIONS
            if writer.annotation(keyword) != reader.annotation(keyword)
        ]
        if writer.has_default != reader.has_default or writer.annotation("default") != reader.annotation(
            "default"
        ):
            findings.append(found(D.DEFAULT_CHANGED, writer, reader, "default"))
        findings.extend(self._same_kind(writer, reader))
        return findings

    def _same_kind(self, writer: Node, reader: Node) -> list[Finding]:
        kind = writer.kind
        if kind == "string":
            return _string(writer, reader)
        if kind == "number":
            return _number(writer, reader)
        if kind in ("enum", "const"):
            return _values(writer, reader, kind)
        if kind == "combined":
            return self._combined(writer, reader)
        if kind == "not":
            return self._not(writer, reader)
        if kind == "object":
            return content.objects(self, writer, reader)
        if kind == "array":
            return content.arrays(self, writer, reader)
        return []  # empty, false, boolean, null; if/then/else are not compared (nor by Confluent)

    def _lone_against_combined(self, writer: Node, reader: Node) -> list[Finding] | None:
        """A reader's ``oneOf``/``anyOf`` reads a writer's lone schema when one of its choices does."""
        if len(reader.parts) == 1:
            findings = self.compare(writer, reader.parts[0])
            return findings if compatible(findings) else None
        if reader.criterion in ("anyOf", "oneOf"):
            for choice in reader.parts:
                findings = self.compare(writer, choice)
                if compatible(findings):
                    return [*findings, found(D.SUM_TYPE_EXTENDED, writer, reader, reader.criterion)]
        return None

    def _combined_against_lone(self, writer: Node, reader: Node) -> list[Finding] | None:
        """A reader's lone schema reads a writer's ``allOf`` when it reads one of its parts."""
        if len(writer.parts) == 1:
            findings = self.compare(writer.parts[0], reader)
            return findings if compatible(findings) else None
        if writer.criterion == "allOf":
            for part in writer.parts:
                findings = self.compare(part, reader)
                if compatible(findings):
                    return [*findings, found(D.PRODUCT_TYPE_NARROWED, writer, reader, writer.criterion)]
        return None

    def _combined(self, writer: Node, reader: Node) -> list[Finding]:
        old, new = writer.criterion, reader.criterion
        findings: list[Finding] = []
        if old != new:
            one_old, one_new = len(writer.parts) == 1, len(reader.parts) == 1
            if (
                new == "anyOf"
                or (one_old and one_new)
                or (one_old and new == "oneOf")
                or (one_new and old == "allOf")
            ):
                findings.append(found(D.COMBINED_TYPE_EXTENDED, writer, reader, None, str(old), str(new)))
            else:
                return [found(D.COMBINED_TYPE_CHANGED, writer, reader, None, str(old), str(new))]
        olds, news = _distinct(writer.parts), _distinct(reader.parts)
        if len(olds) < len(news):
            findings.append(
                found(D.PRODUCT_TYPE_EXTENDED if new == "allOf" else D.SUM_TYPE_EXTENDED, writer, reader, new)
            )
        elif len(olds) > len(news):
            findings.append(
                found(D.PRODUCT_TYPE_NARROWED if old == "allOf" else D.SUM_TYPE_NARROWED, writer, reader, old)
            )
        edges: dict[tuple[int, int], list[Finding]] = {}
        for i, part in enumerate(olds):
            for j, choice in enumerate(news):
                pair = self.compare(part, choice)
                if compatible(pair):
                    edges[i, j] = pair
        matching = _maximum_matching(len(olds), len(news), edges)
        for pair in sorted(matching):
            findings.extend(edges[pair])
        if len(matching) < min(len(olds), len(news)):
            matched = {i for i, _ in matching}
            unmatched = [f"{i} ({type_label(part)})" for i, part in enumerate(olds) if i not in matched]
            criterion = "keywords" if writer.synthetic else str(old)
            findings.append(
                found(D.COMBINED_TYPE_SUBSCHEMAS_CHANGED, writer, reader, old, criterion, *unmatched)
            )
        return findings

    def _not(self, writer: Node, reader: Node) -> list[Finding]:
        old, new = writer.child("not"), reader.child("not")
        if old is None or new is None:
            return []
        narrowed = compatible(self.compare(new, old))  # the reader may exclude less than the writer
        return [found(D.NOT_TYPE_NARROWED if narrowed else D.NOT_TYPE_EXTENDED, writer, reader, "not")]


def _string(writer: Node, reader: Node) -> list[Finding]:
    findings = [
        finding
        for keyword, kinds in _STRING_BOUNDS.items()
        for finding in bound(writer, reader, keyword, writer.raw.get(keyword), reader.raw.get(keyword), kinds)
    ]
    old, new = writer.raw.get("pattern"), reader.raw.get("pattern")
    if old != new:
        kind = D.PATTERN_ADDED if old is None else D.PATTERN_REMOVED if new is None else D.PATTERN_CHANGED
        findings.append(found(kind, writer, reader, "pattern", "pattern", json_text(old), json_text(new)))
    return findings


def _number(writer: Node, reader: Node) -> list[Finding]:
    old_limits, new_limits = _limits(writer), _limits(reader)
    findings = [
        finding
        for keyword, kinds in _NUMBER_BOUNDS.items()
        for finding in bound(writer, reader, keyword, old_limits.get(keyword), new_limits.get(keyword), kinds)
    ]
    findings.extend(_multiple_of(writer, reader))
    if writer.integer and not reader.integer:
        findings.append(found(D.TYPE_EXTENDED, writer, reader, "type", "integer", "number"))
    elif reader.integer and not writer.integer:
        findings.append(found(D.TYPE_NARROWED, writer, reader, "type", "number", "integer"))
    return findings


def _limits(node: Node) -> dict[str, Any]:
    """A number's bounds in draft 6 terms: draft 4's ``"exclusiveMaximum": true`` makes ``maximum`` one."""
    limits = {k: node.raw.get(k) for k in _NUMBER_BOUNDS}
    for side in ("Maximum", "Minimum"):
        flag = limits[f"exclusive{side}"]
        if isinstance(flag, bool):
            limits[f"exclusive{side}"] = limits[side.lower()] if flag else None
            if flag:
                limits[side.lower()] = None
    return limits


def _multiple_of(writer: Node, reader: Node) -> list[Finding]:
    old, new = _decimal(writer.raw.get("multipleOf")), _decimal(reader.raw.get("multipleOf"))
    if old == new:
        return []
    if old is None:
        kind = D.MULTIPLE_OF_ADDED
    elif new is None:
        kind = D.MULTIPLE_OF_REMOVED
    elif new % old == 0:
        kind = D.MULTIPLE_OF_EXPANDED  # fewer numbers are multiples of the reader's
    elif old % new == 0:
        kind = D.MULTIPLE_OF_REDUCED
    else:
        kind = D.MULTIPLE_OF_CHANGED
    texts = (json_text(writer.raw.get("multipleOf")), json_text(reader.raw.get("multipleOf")))
    return [found(kind, writer, reader, "multipleOf", "multipleOf", *texts)]


def _decimal(value: Any) -> Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def _values(writer: Node, reader: Node, keyword: str) -> list[Finding]:
    """``enum`` values (or a ``const``) compared as sets of JSON values (``1`` and ``1.0`` alike)."""
    if keyword == "const":
        old, new = _value_key(writer.raw.get("const")), _value_key(reader.raw.get("const"))
        if old == new:
            return []
        return [found(D.ENUM_ARRAY_CHANGED, writer, reader, "const", old, new)]
    olds = {_value_key(v): None for v in _list(writer.raw.get("enum"))}
    news = {_value_key(v): None for v in _list(reader.raw.get("enum"))}
    if olds.keys() == news.keys():
        return []
    missing = [v for v in olds if v not in news]
    if not missing:
        kind = D.ENUM_ARRAY_EXTENDED
    elif news.keys() <= olds.keys():
        kind = D.ENUM_ARRAY_NARROWED
    else:
        kind = D.ENUM_ARRAY_CHANGED
    return [
        found(kind, writer, reader, "enum", ", ".join(missing[:10]) + (", ..." if len(missing) > 10 else ""))
    ]


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _value_key(value: Any) -> str:
    return json_text(_plain(value))


def _plain(value: Any) -> Any:
    """``value`` with integral floats as integers, as JSON Schema compares numbers by value."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _distinct(parts: list[Node]) -> list[Node]:
    """A combined schema's choices without repeats (the same schema written twice counts once)."""
    seen: set[str] = set()
    out = []
    for part in parts:
        key = f"{part.kind} {part.criterion} {part.integer} {json_text(part.place.value)}"
        if key not in seen:
            seen.add(key)
            out.append(part)
    return out


def _maximum_matching(
    left: int, right: int, edges: dict[tuple[int, int], Any]
) -> dict[tuple[int, int], None]:
    """A maximum matching of the bipartite graph ``edges`` (augmenting paths; choices are few)."""
    neighbours: dict[int, list[int]] = {i: [j for (a, j) in edges if a == i] for i in range(left)}
    owner: dict[int, int] = {}

    def augment(i: int, visited: set[int]) -> bool:
        for j in neighbours[i]:
            if j in visited:
                continue
            visited.add(j)
            if j not in owner or augment(owner[j], visited):
                owner[j] = i
                return True
        return False

    for i in range(left):
        augment(i, set())
    return {(i, j): None for j, i in owner.items()}


def _same(writer: Node, reader: Node) -> bool:
    """Whether the two are the same schema object, which no rule can find a difference in: equal, of one
    kind and one draft, and naming no other schema (a ``$ref`` may point elsewhere in each document)."""
    return (
        writer.kind == reader.kind
        and writer.criterion == reader.criterion
        and writer.place.draft == reader.place.draft
        and writer.self_contained
        and reader.self_contained
        and writer.place.value == reader.place.value
    )
