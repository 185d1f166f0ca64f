"""The messages and enums a Protobuf schema can name, and what a field is, for the rules, diff and tree.

Every type is found by its full name (``shop.Order.Item``) among the schema's file and its dependencies,
with its *local* name (the full name without its file's package: ``Order.Item``), which is what
Confluent compares when it asks whether a field still names the same type, and a pointer into its file's
descriptor (``/message_type/0/nested_type/1``; a dependency's is prefixed with its import path and ``:``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from google.protobuf.descriptor_pb2 import FieldDescriptorProto

from registry.schema_types.protobuf.printer import field_label, hidden_types, scalar_name, syntax_of

if TYPE_CHECKING:
    from registry.schema_types.protobuf.parsed import ParsedProtobuf

#: Scalars Confluent lets a field change between, as their wire encodings are the same (Protobuf's
#: "Updating A Message Type"); an enum counts as a general number.
SCALAR_GROUPS: dict[str, str] = {
    **dict.fromkeys(("int32", "int64", "uint32", "uint64", "bool", "enum"), "GENERAL_NUMBER"),
    **dict.fromkeys(("sint32", "sint64"), "SIGNED_NUMBER"),
    **dict.fromkeys(("string", "bytes"), "STRING_OR_BYTES"),
    **dict.fromkeys(("fixed32", "sfixed32"), "FIXED32"),
    **dict.fromkeys(("fixed64", "sfixed64"), "FIXED64"),
    "float": "FLOAT",
    "double": "DOUBLE",
}


@dataclass(frozen=True)
class Declared:
    """A message or enum: where it is declared and what it is."""

    full_name: str
    local_name: str
    file: str
    syntax: str
    pointer: str
    descriptor: Any  # DescriptorProto or EnumDescriptorProto
    is_enum: bool = False
    hidden: str | None = None  # "map" for a map's entry, "group" for a group's body


@dataclass(frozen=True)
class FieldType:
    """What a field holds, as the rules compare it: ``scalar`` (enums too), ``map`` or ``message``."""

    kind: str
    name: str  # int64, .shop.Order.Item, map<string, .shop.Item>
    declared: Declared | None = None  # the message (or enum) named
    key: Any = None  # a map's key and value fields
    value: Any = None

    @property
    def scalar_group(self) -> str:
        return SCALAR_GROUPS["enum" if self.declared is not None else self.name]


class Types:
    """The types of one schema, by full name."""

    def __init__(self, schema: ParsedProtobuf) -> None:
        self.schema = schema
        self.by_name: dict[str, Declared] = {}
        self.levels: dict[str, tuple[list[Declared], list[Declared]]] = {}  # by a message's full name
        self.files: dict[str, tuple[list[Declared], list[Declared]]] = {}  # by a file's name
        for file in (*schema.dependencies, schema.file):
            prefix = "" if file is schema.file else f"{file.name}:"
            self.files[file.name] = self._level(file, None, prefix, syntax_of(file), file)

    def _level(
        self, holder: Any, outer: Declared | None, pointer: str, syntax: str, file: Any
    ) -> tuple[list[Declared], list[Declared]]:
        """The messages and enums declared in ``holder`` (a file, or the message ``outer``), indexed with
        everything declared inside them."""
        package = file.package
        hidden = hidden_types(holder, f".{outer.full_name}") if outer is not None else {}
        key = "message_type" if outer is None else "nested_type"
        messages, enums = [], []
        for index, message in enumerate(getattr(holder, key)):
            local = f"{outer.local_name}.{message.name}" if outer is not None else message.name
            full = f"{package}.{local}" if package else local
            shape = hidden.get(f".{full}", (None,))[0]
            here = f"{pointer}/{key}/{index}"
            declared = Declared(full, local, file.name, syntax, here, message, hidden=shape)
            self.by_name[full] = declared
            if shape is None:
                messages.append(declared)
            self.levels[full] = self._level(message, declared, here, syntax, file)
        for index, enum in enumerate(holder.enum_type):
            local = f"{outer.local_name}.{enum.name}" if outer is not None else enum.name
            full = f"{package}.{local}" if package else local
            declared = Declared(full, local, file.name, syntax, f"{pointer}/enum_type/{index}", enum, True)
            self.by_name[full] = declared
            enums.append(declared)
        return messages, enums

    def own(self) -> tuple[list[Declared], list[Declared]]:
        """The schema's top-level messages (map entries and groups aside) and enums."""
        return self.files[self.schema.file.name]

    def inside(self, message: Declared) -> tuple[list[Declared], list[Declared]]:
        """The messages and enums declared inside ``message``."""
        return self.levels[message.full_name]

    def get(self, type_name: str) -> Declared | None:
        return self.by_name.get(type_name.removeprefix("."))

    def field_type(self, field: Any) -> FieldType:
        if not field.type_name:
            return FieldType("scalar", scalar_name(field))
        declared = self.get(field.type_name)
        if declared is not None and declared.hidden == "map":
            key, value = declared.descriptor.field[0], declared.descriptor.field[1]
            name = f"map<{self.field_type(key).name}, {self.field_type(value).name}>"
            return FieldType("map", name, declared, key, value)
        if field.type == FieldDescriptorProto.TYPE_ENUM:
            return FieldType("scalar", field.type_name, declared)
        return FieldType("message", field.type_name, declared)


def label_of(field: Any, syntax: str, in_oneof: bool) -> str | None:
    """A field's label as Confluent's parser reads the text: none inside a oneof or for a map."""
    return None if in_oneof else field_label(field, syntax)


def oneof_members(message: Any) -> tuple[dict[int, str], dict[str, tuple[int, list[int]]]]:
    """``{field number: oneof name}`` and ``{oneof name: (index, member numbers)}`` of the declared oneofs
    (proto3 ``optional``'s synthetic ones are not oneofs to Confluent)."""
    real = {f.oneof_index for f in message.field if f.HasField("oneof_index") and not f.proto3_optional}
    of_number: dict[int, str] = {}
    oneofs: dict[str, tuple[int, list[int]]] = {}
    for index, oneof in enumerate(message.oneof_decl):
        if index in real:
            oneofs[oneof.name] = (index, [])
    for field in message.field:
        if field.HasField("oneof_index") and field.oneof_index in real:
            name = message.oneof_decl[field.oneof_index].name
            of_number[field.number] = name
            oneofs[name][1].append(field.number)
    return of_number, oneofs


Indexed = tuple[int, Declared]


def paired(old: list[Declared], new: list[Declared]) -> list[tuple[Indexed | None, Indexed | None]]:
    """Declarations paired by name, with their index: the update's order, then the ones it lost."""
    before = {d.descriptor.name: (i, d) for i, d in enumerate(old)}
    after = {d.descriptor.name: (i, d) for i, d in enumerate(new)}
    names = [*after, *(name for name in before if name not in after)]
    return [(before.get(name), after.get(name)) for name in names]


def type_label(held: FieldType, label: str | None, package: str) -> str:
    """A field's type as people say it, names relative to ``package``: ``repeated string``,
    ``map<string, Order>``, ``optional int32``."""
    prefix = f".{package}." if package else "."
    name = held.name.replace(prefix, "").replace("<.", "<").replace(" .", " ").removeprefix(".")
    return f"{label} {name}" if label else name
