"""Objects and arrays: the properties and tuple items a reader adds or removes, judged by the content
model of the schema that lacks them (Confluent's open, closed and partially open models).

An object's model is *open* when it lets through any property it does not name (``additionalProperties``
absent or true, no ``patternProperties``, and from 2019-09 ``unevaluatedProperties`` absent or true),
*closed* when it lets through none, and *partially open* when the unnamed properties must match a schema
(``patternProperties`` whose pattern matches the name, else ``additionalProperties``, else
``unevaluatedProperties``). A property the reader removes is fine when the reader's model still lets the
writer's values through under that name; a property the reader adds is fine when the writer could never
have written something else under that name. A tuple's items (``items`` as an array, 2020-12's
``prefixItems``) follow the same rules with ``additionalItems`` (2020-12: ``items``) and
``unevaluatedItems``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from registry.schema_types.json_schema.findings import Finding, bound, compatible, found, json_text, prefixed
from registry.schema_types.json_schema.kinds import EXTENT, family
from registry.schema_types.json_schema.kinds import Difference as D
from registry.schema_types.json_schema.model import Node

if TYPE_CHECKING:
    from registry.schema_types.json_schema.rules import Comparison

__all__ = ["arrays", "objects"]

_OBJECT_BOUNDS = {"maxProperties": family("MAX_PROPERTIES"), "minProperties": family("MIN_PROPERTIES")}
_ARRAY_BOUNDS = {
    "maxItems": family("MAX_ITEMS"),
    "minItems": family("MIN_ITEMS"),
    "maxContains": family("MAX_CONTAINS"),
    "minContains": family("MIN_CONTAINS"),
}
_PROPERTY_KINDS = {
    "added_covered": D.PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    "added_uncovered": D.PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    "removed_covered": D.PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    "removed_uncovered": D.PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    "removed_open": D.PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL,
    "removed_false": D.PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL,
    "removed_closed": D.PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL,
}
_ITEM_KINDS = {
    "added_covered": D.ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    "added_uncovered": D.ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    "removed_covered": D.ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    "removed_uncovered": D.ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    "removed_open": D.ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL,
    "removed_false": D.ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL,
    "removed_closed": D.ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL,
}
_ADDITIONAL_PROPERTIES = family("ADDITIONAL_PROPERTIES", EXTENT)
_ADDITIONAL_ITEMS = family("ADDITIONAL_ITEMS", EXTENT)
_UNEVALUATED_PROPERTIES = family("UNEVALUATED_PROPERTIES", EXTENT)
_UNEVALUATED_ITEMS = family("UNEVALUATED_ITEMS", EXTENT)


class _Model:
    """An object's or an array's content model: what it lets through beyond what it names."""

    def __init__(self, node: Node, additional: str, unevaluated: str, patterns: bool) -> None:
        self.node = node
        self.additional_keyword = additional
        value = node.raw.get(additional, True)
        self.permits = value is not False
        self.additional = node.child(additional) if isinstance(value, dict) else None
        self.unevaluated_keyword = unevaluated
        found = node.child(unevaluated) if node.place.draft.modern and unevaluated in node.raw else None
        self.unevaluated = None if found is None or found.kind == "empty" else found  # true is as absent
        self.patterns = node.raw.get("patternProperties") if patterns else None

    @property
    def open(self) -> bool:
        return self.permits and self.additional is None and not self.patterns and self.unevaluated is None

    def covering(self, name: str | None) -> tuple[Node, str] | None:
        """The schema a property ``name`` (or a further item) it does not name must match, and where."""
        for pattern in self.patterns or {}:
            if name is not None and _matches(pattern, name):
                node = self.node.child("patternProperties", pattern)
                if node is not None:
                    return node, f"patternProperties {json_text(pattern)}"
        if self.additional is not None:
            return self.additional, self.additional_keyword
        if self.permits and self.unevaluated is not None and self.unevaluated.kind != "false":
            return self.unevaluated, self.unevaluated_keyword
        return None


def objects(comparison: Comparison, writer: Node, reader: Node) -> list[Finding]:
    old = _Model(writer, "additionalProperties", "unevaluatedProperties", patterns=True)
    new = _Model(reader, "additionalProperties", "unevaluatedProperties", patterns=True)
    findings = _required(writer, reader)
    for name in {**writer.properties, **reader.properties}:
        findings.extend(prefixed("." + name, _property(comparison, old, new, name)))
    findings.extend(_dependencies(comparison, writer, reader))
    findings.extend(_extra(comparison, old, new, _ADDITIONAL_PROPERTIES))
    findings.extend(_unevaluated(comparison, old, new, _UNEVALUATED_PROPERTIES))
    for keyword, kinds in _OBJECT_BOUNDS.items():
        findings.extend(
            bound(writer, reader, keyword, writer.raw.get(keyword), reader.raw.get(keyword), kinds)
        )
    return findings


def arrays(comparison: Comparison, writer: Node, reader: Node) -> list[Finding]:
    old, new = _Array(writer), _Array(reader)
    findings: list[Finding] = []
    if old.items is None and new.items is not None:
        findings.append(_at(D.SCHEMA_ADDED, writer.pointer, new.items.pointer))
    elif old.items is not None and new.items is None:
        findings.append(_at(D.SCHEMA_REMOVED, old.items.pointer, reader.pointer))
    elif old.items is not None and new.items is not None:
        findings.extend(comparison.compare(old.items, new.items))
    findings = prefixed("[]", findings)
    for index in range(max(len(old.tuple), len(new.tuple))):
        findings.extend(prefixed(f"[{index}]", _item(comparison, old, new, index)))
    findings.extend(_extra(comparison, old.model, new.model, _ADDITIONAL_ITEMS))
    findings.extend(_unevaluated(comparison, old.model, new.model, _UNEVALUATED_ITEMS))
    for keyword, kinds in _ARRAY_BOUNDS.items():
        findings.extend(
            bound(writer, reader, keyword, writer.raw.get(keyword), reader.raw.get(keyword), kinds)
        )
    unique_before, unique_now = writer.raw.get("uniqueItems") is True, reader.raw.get("uniqueItems") is True
    if unique_before != unique_now:
        kind = D.UNIQUE_ITEMS_REMOVED if unique_before else D.UNIQUE_ITEMS_ADDED
        findings.append(found(kind, writer, reader, "uniqueItems", "uniqueItems"))
    return findings


class _Array:
    """An array's items: one schema for all (``items``), or a tuple and what may follow it."""

    def __init__(self, node: Node) -> None:
        tuple_keyword = "prefixItems" if node.place.draft.prefix_items else "items"
        tuple_items = node.raw.get(tuple_keyword)
        self.tuple_keyword = tuple_keyword
        self.tuple: list[Node] = []
        if isinstance(tuple_items, list):
            found = [node.child(tuple_keyword, i) for i in range(len(tuple_items))]
            self.tuple = [item for item in found if item is not None]
        after = (
            "items" if tuple_keyword == "prefixItems" and isinstance(tuple_items, list) else "additionalItems"
        )
        every = (
            node.child("items") if after != "items" and not isinstance(node.raw.get("items"), list) else None
        )
        self.items = None if every is None or every.kind == "empty" else every  # items: true says nothing
        self.model = _Model(node, after, "unevaluatedItems", patterns=False)


def _required(writer: Node, reader: Node) -> list[Finding]:
    findings = []
    old, new = set(writer.required), set(reader.required)
    for name, schema in reader.properties.items():
        if name not in writer.properties or (name in old) == (name in new):
            continue
        if name in old:
            kind = D.REQUIRED_ATTRIBUTE_REMOVED
        else:
            kind = (
                D.REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED if schema.has_default else D.REQUIRED_ATTRIBUTE_ADDED
            )
        findings.extend(prefixed("." + name, [found(kind, writer, reader, "required", name)]))
    return findings


def _property(comparison: Comparison, old: _Model, new: _Model, name: str) -> list[Finding]:
    writer, reader = old.node, new.node
    was, now = writer.properties.get(name), reader.properties.get(name)
    if was is not None and now is not None:
        return comparison.compare(was, now)
    if was is not None:
        return _removed(comparison, was, new, _PROPERTY_KINDS, name, reader.at("properties"))
    assert now is not None
    required = name in reader.required
    if old.open:
        if now.kind == "empty":
            kind = D.PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL
        elif required and now.has_default:
            kind = D.REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL
        elif required:
            kind = D.REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL
        else:
            kind = D.OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL
        return [_at(kind, writer.at("properties"), now.pointer)]
    findings = _added_covered(comparison, old, now, name, _PROPERTY_KINDS)
    if required and not now.has_default:
        kind = D.REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL
    elif required:
        kind = D.REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL
    else:
        kind = D.OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL
    return [*findings, _at(kind, writer.at("properties"), now.pointer)]


def _item(comparison: Comparison, old: _Array, new: _Array, index: int) -> list[Finding]:
    was = old.tuple[index] if index < len(old.tuple) else None
    now = new.tuple[index] if index < len(new.tuple) else None
    if was is not None and now is not None:
        return comparison.compare(was, now)
    if was is not None:
        return _removed(comparison, was, new.model, _ITEM_KINDS, None, new.model.node.at(new.tuple_keyword))
    assert now is not None
    writer_at = old.model.node.at(old.tuple_keyword)
    if old.model.open:
        kind = (
            D.ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL
            if now.kind == "empty"
            else D.ITEM_ADDED_TO_OPEN_CONTENT_MODEL
        )
        return [_at(kind, writer_at, now.pointer)]
    if old.model.covering(None) is not None:
        return _added_covered(comparison, old.model, now, None, _ITEM_KINDS)
    return [_at(D.ITEM_ADDED_TO_CLOSED_CONTENT_MODEL, writer_at, now.pointer)]


def _removed(
    comparison: Comparison, was: Node, new: _Model, kinds: dict[str, D], name: str | None, reader_at: str
) -> list[Finding]:
    """What the writer names (a property, a tuple item) and the reader does not: fine where the reader's
    content model lets the writer's values through."""
    if new.open:
        return [_at(kinds["removed_open"], was.pointer, reader_at)]
    covering = new.covering(name)
    if covering is not None:
        schema, where = covering
        pair = comparison.compare(was, schema)
        kind = kinds["removed_covered"] if compatible(pair) else kinds["removed_uncovered"]
        return [*pair, _at(kind, was.pointer, schema.pointer, where)]
    kind = kinds["removed_false"] if was.kind == "false" else kinds["removed_closed"]
    return [_at(kind, was.pointer, reader_at)]


def _added_covered(
    comparison: Comparison, old: _Model, now: Node, name: str | None, kinds: dict[str, D]
) -> list[Finding]:
    """What the reader names and the writer does not, where the writer's partially open model let values
    through under that name or position: they must be values the reader's schema accepts."""
    covering = old.covering(name)
    if covering is None:
        return []
    schema, where = covering
    pair = comparison.compare(schema, now)
    kind = kinds["added_covered"] if compatible(pair) else kinds["added_uncovered"]
    return [*pair, _at(kind, schema.pointer, now.pointer, where)]


def _extra(comparison: Comparison, old: _Model, new: _Model, kinds: tuple[D, ...]) -> list[Finding]:
    """``additionalProperties``/``additionalItems``: allowed or not, any value or a schema's."""
    added, removed, extended, narrowed = kinds
    writer_at = _keyword_at(old.node, old.additional_keyword)
    reader_at = _keyword_at(new.node, new.additional_keyword)
    if old.permits != new.permits:
        return [_at(added if new.permits else removed, writer_at, reader_at)]
    if old.additional is None and new.additional is not None:
        return [_at(narrowed, writer_at, reader_at)]
    if old.additional is not None and new.additional is None:
        return [_at(extended, writer_at, reader_at)]
    if old.additional is not None and new.additional is not None:
        return prefixed(
            "{}" if kinds is _ADDITIONAL_PROPERTIES else "[]",
            comparison.compare(old.additional, new.additional),
        )
    return []


def _unevaluated(comparison: Comparison, old: _Model, new: _Model, kinds: tuple[D, ...]) -> list[Finding]:
    """``unevaluatedProperties``/``unevaluatedItems`` (2019-09 on), ``true`` being the same as absent."""
    before, after = old.unevaluated, new.unevaluated
    if before is None and after is None:
        return []
    added, removed, extended, narrowed = kinds
    writer_at = _keyword_at(old.node, old.unevaluated_keyword)
    reader_at = _keyword_at(new.node, new.unevaluated_keyword)
    if after is not None and after.kind == "false" and (before is None or before.kind != "false"):
        return [_at(removed, writer_at, reader_at)]
    if before is not None and before.kind == "false" and (after is None or after.kind != "false"):
        return [_at(added, writer_at, reader_at)]
    if before is None:
        return [_at(narrowed, writer_at, reader_at)]
    if after is None:
        return [_at(extended, writer_at, reader_at)]
    return prefixed("{}" if kinds is _UNEVALUATED_PROPERTIES else "[]", comparison.compare(before, after))


def _dependencies(comparison: Comparison, writer: Node, reader: Node) -> list[Finding]:
    """``dependencies`` (and from 2019-09 ``dependentRequired``/``dependentSchemas``): what else a
    property's presence requires."""
    old_names, old_schemas = _depends(writer)
    new_names, new_schemas = _depends(reader)
    findings: list[Finding] = []
    for name in {**old_names, **new_names}:
        before, after = old_names.get(name), new_names.get(name)
        writer_at = writer.at(before[0], name) if before else writer.pointer
        reader_at = reader.at(after[0], name) if after else reader.pointer
        if after is None:
            kind = D.DEPENDENCY_ARRAY_REMOVED
        elif before is None:
            kind = D.DEPENDENCY_ARRAY_ADDED
        elif before[1] == after[1]:
            continue
        elif after[1] >= before[1]:
            kind = D.DEPENDENCY_ARRAY_EXTENDED
        elif after[1] <= before[1]:
            kind = D.DEPENDENCY_ARRAY_NARROWED
        else:
            kind = D.DEPENDENCY_ARRAY_CHANGED
        texts = [", ".join(sorted(side[1])) if side else "nothing" for side in (before, after)]
        findings.append(_at(kind, writer_at, reader_at, name, *texts))
    for name in {**old_schemas, **new_schemas}:
        was, now = old_schemas.get(name), new_schemas.get(name)
        if now is None and was is not None:
            findings.append(_at(D.DEPENDENCY_SCHEMA_REMOVED, was.pointer, reader.pointer, name))
        elif was is None and now is not None:
            findings.append(_at(D.DEPENDENCY_SCHEMA_ADDED, writer.pointer, now.pointer, name))
        elif was is not None and now is not None:
            findings.extend(comparison.compare(was, now))
    return findings


def _depends(node: Node) -> tuple[dict[str, tuple[str, frozenset[str]]], dict[str, Node]]:
    names: dict[str, tuple[str, frozenset[str]]] = {}
    schemas: dict[str, Node] = {}
    keywords = (
        ("dependencies", "dependentRequired", "dependentSchemas")
        if node.place.draft.modern
        else ("dependencies",)
    )
    for keyword in keywords:
        value = node.raw.get(keyword)
        if not isinstance(value, dict):
            continue
        for name, dependency in value.items():
            if isinstance(dependency, list):
                names[name] = (keyword, frozenset(d for d in dependency if isinstance(d, str)))
            else:
                schema = node.child(keyword, name)
                if schema is not None:
                    schemas[name] = schema
    return names, schemas


def _keyword_at(node: Node, keyword: str) -> str:
    return node.at(keyword) if keyword in node.raw else node.pointer


def _at(kind: D, writer_at: str, reader_at: str, *detail: str) -> Finding:
    return Finding(kind, writer_at, reader_at, "", detail)


def _matches(pattern: str, name: str) -> bool:
    """Whether ``pattern`` (an ECMA 262 regex, read as a Python one) finds a match in ``name``."""
    try:
        return re.search(pattern, name) is not None
    except re.error:
        return False
