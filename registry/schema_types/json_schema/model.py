"""A JSON schema as the rules see it: each schema object one :class:`Node` of a kind, as Confluent's
loader (everit) classifies them, so that the rules can follow Confluent's comparison case by case.

* ``true`` and ``{}`` are ``empty`` (anything is valid), ``false`` is ``false``;
* an object with one constraining part is that part: ``"type": "string"`` a ``string``, ``"integer"`` a
  ``number`` that requires integers, ``enum``, ``const``, ``not``, ``allOf``/``anyOf``/``oneOf`` a
  ``combined``; without ``type`` the keywords say which types it constrains (``properties`` an
  ``object``, ``maxLength`` a ``string``...); ``if``/``then``/``else`` a ``conditional``;
* an object with several parts is a synthetic ``allOf`` of them (``{"type": "string", "enum": [...]}``
  is string *and* enum), and ``"type": [...]`` a synthetic ``anyOf`` of one node per type;
* a ``$ref`` is its target (before 2019-09 its siblings are ignored, as the drafts say; from 2019-09 on
  it is one part among the object's others).

Nodes are built when first asked for and kept by where they are (document and pointer), so a recursive
schema is a finite graph and every walk over it can stop at a pair or node it has seen.
"""

from __future__ import annotations

from collections import deque
from contextlib import suppress
from functools import cached_property
from typing import Any

from registry.compatibility.problems import pointer_join
from registry.schema_types.json_schema.keywords import subschemas
from registry.schema_types.json_schema.refs import REF_KEYWORDS, Place, Refs, Unresolved

__all__ = ["Model", "Node"]

_TYPES = {"string", "number", "integer", "object", "array", "boolean", "null"}
_ARRAY_WORDS = {"items", "additionalItems", "maxItems", "minItems", "uniqueItems", "contains"}
_ARRAY_WORDS_MODERN = {"prefixItems", "unevaluatedItems", "maxContains", "minContains"}
_OBJECT_WORDS = {
    "properties", "required", "minProperties", "maxProperties", "dependencies", "patternProperties",
    "additionalProperties", "propertyNames",
}  # fmt: skip
_OBJECT_WORDS_MODERN = {"dependentRequired", "dependentSchemas", "unevaluatedProperties"}
_NUMBER_WORDS = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
_STRING_WORDS = {"minLength", "maxLength", "pattern", "format"}
_CONDITIONAL_WORDS = {"if", "then", "else"}
CRITERIA = ("allOf", "anyOf", "oneOf")


class Node:
    """One schema as the rules see it. ``top`` nodes stand for a whole schema object and carry its
    annotations; the parts of a synthetic ``allOf``/``anyOf`` share their object but not its annotations."""

    def __init__(
        self,
        model: Model,
        kind: str,
        place: Place,
        *,
        top: bool = True,
        criterion: str | None = None,
        integer: bool = False,
        parts: list[Node] | None = None,
    ) -> None:
        self.model = model
        self.kind = kind
        self.place = place
        self.top = top
        self.criterion = criterion
        self.integer = integer
        self.synthetic = parts is not None
        self._parts = parts

    def __repr__(self) -> str:
        return f"Node({self.kind}{'/' + self.criterion if self.criterion else ''} at {self.pointer or '/'})"

    @property
    def raw(self) -> dict[str, Any]:
        """The schema object's keywords (empty for ``true``/``false``)."""
        return self.place.value if isinstance(self.place.value, dict) else {}

    @property
    def pointer(self) -> str:
        return self.place.shown()

    def at(self, *tokens: str | int) -> str:
        """The pointer of a keyword of this node."""
        return self.place.shown(*tokens)

    def annotation(self, keyword: str) -> Any:
        """A keyword describing the schema (title, description, default, $id); only top nodes have them."""
        if keyword == "$id":
            keyword = self.place.draft.id_keyword
        return self.raw.get(keyword) if self.top else None

    @property
    def has_default(self) -> bool:
        return self.top and "default" in self.raw

    def child(self, *tokens: str | int) -> Node | None:
        """The node of the subschema at ``tokens`` below this schema object, if there is one."""
        value: Any = self.place.value
        for token in tokens:
            if (isinstance(value, dict) and isinstance(token, str) and token in value) or (
                isinstance(value, list) and isinstance(token, int) and token < len(value)
            ):
                value = value[token]
            else:
                return None
        if not isinstance(value, (dict, bool)):
            return None
        pointer = pointer_join(self.place.pointer, *tokens)
        built = self.model.built(self.place.document.label, pointer)
        if built is not None:
            return built
        return self.model.node(self.model.refs.child(self.place, pointer, value))

    @cached_property
    def self_contained(self) -> bool:
        """Whether this schema object names no other schema (no ``$ref`` anywhere in it): two such
        objects of one draft that are equal mean the same, wherever they are."""
        return self.top and not _refers(self.place.value)

    @cached_property
    def parts(self) -> list[Node]:
        """A combined node's subschemas."""
        if self._parts is not None:
            return self._parts
        subschemas = self.raw.get(self.criterion or "", [])
        found = [self.child(self.criterion or "", i) for i in range(len(subschemas))]
        return [node for node in found if node is not None]

    @cached_property
    def properties(self) -> dict[str, Node]:
        """An object's properties, in the order written."""
        names = self.raw.get("properties")
        if not isinstance(names, dict):
            return {}
        found = {name: self.child("properties", name) for name in names}
        return {name: node for name, node in found.items() if node is not None}

    @property
    def required(self) -> list[str]:
        names = self.raw.get("required")
        return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


class Model:
    """The nodes of one schema (and the documents it refers to).

    :meth:`build_all` builds every node reachable from the root, breadth first, so that ``$ref``s are
    looked up near the top of the stack: the walks that follow (rules, tree, diff) recurse, and a lookup
    deep in a recursion could exhaust the stack inside ``referencing``'s native code, where the error
    is not a catchable ``RecursionError``.
    """

    def __init__(self, refs: Refs) -> None:
        self.refs = refs
        self._nodes: dict[tuple[str, str], Node] = {}

    def root(self) -> Node:
        return self.node(self.refs.root())

    def built(self, document: str, pointer: str) -> Node | None:
        """The node already built for the schema at ``pointer`` of ``document``."""
        return self._nodes.get((document, pointer))

    def node(self, place: Place) -> Node:
        """The node of the schema at ``place`` (its target, when it is only a ``$ref``)."""
        found = self._nodes.get(place.key)
        if found is None:
            target = self.refs.target(place)
            found = self._nodes.get(target.key)
            if found is None:
                found = self._build(target)
                self._nodes[target.key] = found
            self._nodes[place.key] = found
        return found

    def build_all(self) -> Model:
        """Builds the node of every schema reachable from the root; returns the model."""
        todo = deque([self.refs.root()])
        seen: set[tuple[str, str]] = set()
        while todo:
            place = todo.popleft()
            if place.key in seen:
                continue
            seen.add(place.key)
            self.node(place)
            if place.ref() is not None:
                with suppress(Unresolved):  # every ref resolved when its schema was parsed
                    todo.append(self.refs.follow(place))
            todo.extend(
                self.refs.child(place, pointer, value)
                for pointer, value in subschemas(place.value, place.pointer)
            )
        return self

    def _build(self, place: Place) -> Node:
        if place.value is False:
            return Node(self, "false", place)
        parts = self._parts(place)
        if not parts:
            return Node(self, "empty", place)
        if len(parts) == 1:
            only = parts[0]
            if only.place is place:  # one kind of constraint: the node is the whole object
                only.top = True
            return only
        return Node(self, "combined", place, criterion="allOf", parts=parts)

    def _parts(self, place: Place) -> list[Node]:
        """The constraining parts of the schema object at ``place``, each its own node (not top)."""
        value = place.value
        if not isinstance(value, dict):
            return []
        parts: list[Node] = []
        if any(isinstance(value.get(k), str) for k in REF_KEYWORDS):  # siblings of a ref (2019-09 on)
            parts.append(self.node(self.refs.follow(place)))
        for kind in ("enum", "const", "not"):
            if kind in value:
                parts.append(Node(self, kind, place, top=False))
        parts.extend(
            Node(self, "combined", place, top=False, criterion=c)
            for c in CRITERIA
            if isinstance(value.get(c), list)
        )
        declared = value.get("type")
        if isinstance(declared, str) and declared in _TYPES:
            parts.append(self._typed(place, declared))
        elif isinstance(declared, list):
            typed = [self._typed(place, t) for t in declared if t in _TYPES]
            parts.append(Node(self, "combined", place, top=False, criterion="anyOf", parts=typed))
        else:
            parts.extend(
                Node(self, kind, place, top=False) for kind in _implied_types(value, place.draft.modern)
            )
        if (
            place.draft.name != "draft-04"
            and place.draft.name != "draft-06"
            and _CONDITIONAL_WORDS & value.keys()
        ):
            parts.append(Node(self, "conditional", place, top=False))
        return parts

    def _typed(self, place: Place, declared: str) -> Node:
        if declared == "integer":
            return Node(self, "number", place, top=False, integer=True)
        return Node(self, declared, place, top=False)


def _implied_types(value: dict[str, Any], modern: bool) -> list[str]:
    """The types whose keywords a schema without ``type`` uses."""
    words = value.keys()
    found = []
    if _ARRAY_WORDS & words or (modern and _ARRAY_WORDS_MODERN & words):
        found.append("array")
    if _OBJECT_WORDS & words or (modern and _OBJECT_WORDS_MODERN & words):
        found.append("object")
    if _NUMBER_WORDS & words:
        found.append("number")
    if _STRING_WORDS & words:
        found.append("string")
    return found


def _refers(value: Any) -> bool:
    """Whether a JSON value holds a reference keyword at any depth (in data keywords too: a false yes only
    costs the comparison a shortcut)."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            if any(keyword in item for keyword in REF_KEYWORDS):
                return True
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return False
