"""Which keywords of a schema object hold schemas: what a walk over a schema's subschemas visits.

A ``$ref`` counts only where a schema may stand; ``{"$ref": ...}`` inside ``enum``, ``const``,
``default`` or an unknown keyword is data. The same table serves the parser (every ``$ref`` must
resolve) and the index of where each subschema sits.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from registry.compatibility.problems import pointer_join

__all__ = ["ANNOTATIONS", "subschemas"]

#: A schema.
_ONE = (
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
)
#: An array of schemas.
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
#: An object whose values are schemas.
_MAP = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas")

#: Keywords that describe a schema without constraining data.
ANNOTATIONS = frozenset(
    {"$schema", "$id", "id", "$comment", "$anchor", "title", "description", "default", "examples",
     "deprecated", "readOnly", "writeOnly", "$defs", "definitions", "$vocabulary", "$dynamicAnchor",
     "$recursiveAnchor", "format", "contentEncoding", "contentMediaType"}
)  # fmt: skip


def subschemas(schema: Any, pointer: str) -> Iterator[tuple[str, Any]]:
    """The pointer and value of each schema directly inside ``schema`` (at ``pointer``)."""
    if not isinstance(schema, dict):
        return
    for keyword in _ONE:
        if _is_schema(schema.get(keyword)):
            yield pointer_join(pointer, keyword), schema[keyword]
    for keyword in (*_LIST, "items"):
        value = schema.get(keyword)
        if isinstance(value, list):
            for index, item in enumerate(value):
                if _is_schema(item):
                    yield pointer_join(pointer, keyword, index), item
        elif keyword == "items" and _is_schema(value):
            yield pointer_join(pointer, keyword), value
    for keyword in (*_MAP, "dependencies"):
        value = schema.get(keyword)
        if isinstance(value, dict):
            for name, item in value.items():
                if _is_schema(item):  # a dependency may also be an array of property names
                    yield pointer_join(pointer, keyword, name), item


def _is_schema(value: Any) -> bool:
    return isinstance(value, (dict, bool))
