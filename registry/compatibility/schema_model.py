"""The small internal schema model the rules, the canonical forms and the default checks walk.

Parsed once per schema and shared: a named type is one :class:`Node` object however many times it is
referenced, which is what lets the compatibility rules memoise on ``(reader, writer)`` object pairs (as
Avro Java does) and terminate on recursive schemas. Nodes remember which document and JSON pointer defined
them so diagnostics can point at real text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PRIMITIVES: frozenset[str] = frozenset(
    {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
)
NAMED: frozenset[str] = frozenset({"record", "enum", "fixed"})


@dataclass(eq=False, slots=True)
class Field:
    """A record field; ``has_default`` distinguishes ``"default": null`` from no default at all."""

    name: str
    type: Node
    position: int
    has_default: bool = False
    default: Any = None
    aliases: tuple[str, ...] = ()
    props: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False, slots=True)
class Node:
    """One Avro schema: a primitive, a named type (record, enum, fixed), an array, a map or a union.

    ``props`` keeps every attribute that is not structural (``doc``, ``logicalType``, ``precision``,
    custom properties...): the rules ignore them, the identity form keeps them.
    """

    type: str
    props: dict[str, Any] = field(default_factory=dict)
    name: str | None = None  # full name of a named type
    aliases: tuple[str, ...] = ()  # fully qualified
    fields: list[Field] = field(default_factory=list)
    field_index: dict[str, Field] = field(default_factory=dict)  # by name, for fast matching
    symbols: tuple[str, ...] = ()
    enum_default: str | None = None
    size: int = 0
    items: Node | None = None  # arrays
    values: Node | None = None  # maps
    branches: list[Node] = field(default_factory=list)  # unions
    document: object = None  # token of the parse that defined this node
    pointer: str = ""  # where in that document it is defined

    @property
    def simple_name(self) -> str:
        """The unqualified name, which Avro Java compares when matching named types."""
        return (self.name or "").rpartition(".")[2]

    @property
    def logical_type(self) -> str | None:
        value = self.props.get("logicalType")
        return value if isinstance(value, str) else None

    def field_named(self, name: str) -> Field | None:
        return self.field_index.get(name)

    def describe(self) -> str:
        """A short human name for the type: ``int``, ``record "a.B"``, ``array``..."""
        if self.name is not None:
            return f'{self.type} "{self.name}"'
        return self.type
