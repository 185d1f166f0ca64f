"""A Protobuf schema as the rows of a field tree: what a person reads instead of the ``.proto`` text.

A row per top-level message of the schema's file, then its fields depth first: a oneof is a row of its
own (``oneof kind``) with its members below it, a field of a message type is followed by that message's
fields (``Order.items[].price`` below a repeated field, ``Order.by_sku{}.price`` below a map's values).
A message is expanded where it first appears; later rows, and recursive ones, say where (``fields: see
Order.items[]``). ``detail`` holds the field number, its options and an enum's values; ``tags`` are the
field's own ``(confluent.field_meta).tags``. A work stack, not recursion, walks the types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from registry.schema_types.base import FieldRow, FieldTree
from registry.schema_types.protobuf.model import Declared, label_of, oneof_members, type_label
from registry.schema_types.protobuf.options import option_items
from registry.schema_types.protobuf.parsed import ParsedProtobuf

_FIELD_META = "confluent.field_meta"


@dataclass(frozen=True)
class _Item:
    """A row still to emit: a field of ``owner``, or one of its oneofs (``members`` below it)."""

    depth: int
    path: str
    owner: Declared
    field: Any = None
    oneof: str | None = None
    members: tuple[Any, ...] = ()


def field_tree(schema: ParsedProtobuf) -> FieldTree:
    return _Tree(schema).build()


class _Tree:
    def __init__(self, schema: ParsedProtobuf) -> None:
        self.schema = schema
        self.types = schema.types
        self.rows: list[FieldRow] = []
        self.expanded: dict[str, str] = {}
        self.own_options = _field_options(schema)

    def build(self) -> FieldTree:
        for message in self.types.own()[0]:
            self.rows.append(FieldRow(0, message.local_name, message.local_name, "message", is_field=False))
            self.expanded.setdefault(message.full_name, message.local_name)
            self.walk(self.children(message, 1, message.local_name))
        return FieldTree(tuple(self.rows), self.schema.package or None)

    def children(self, message: Declared, depth: int, path: str) -> list[_Item]:
        of_number, _ = oneof_members(message.descriptor)
        items, seen = [], set()
        for field in message.descriptor.field:
            oneof = of_number.get(field.number)
            if oneof is None:
                items.append(_Item(depth, path, message, field))
            elif oneof not in seen:
                seen.add(oneof)
                members = tuple(f for f in message.descriptor.field if of_number.get(f.number) == oneof)
                items.append(_Item(depth, path, message, oneof=oneof, members=members))
        return items

    def walk(self, items: list[_Item]) -> None:
        stack = list(reversed(items))
        while stack:
            item = stack.pop()
            if item.oneof is None:
                stack.extend(reversed(self.field_row(item)))
                continue
            row = FieldRow(
                item.depth, item.oneof, f"{item.path}.{item.oneof}", f"oneof {item.oneof}", is_field=False
            )
            self.rows.append(row)
            members = [_Item(item.depth + 1, item.path, item.owner, field, None) for field in item.members]
            stack.extend(reversed(members))

    def field_row(self, item: _Item) -> list[_Item]:
        """Emits the row of ``item``'s field; the items of the message it holds, if expanded here."""
        field, owner = item.field, item.owner
        held = self.types.field_type(field)
        in_oneof = oneof_members(owner.descriptor)[0].get(field.number) is not None
        label = label_of(field, owner.syntax, in_oneof) if held.kind != "map" else None
        here = f"{item.path}.{field.name}"
        options, tags = self.own_options.get((owner.full_name, field.number), ((), ()))
        details = [f"field {field.number}", *(f"{name} = {value}" for name, value in options)]
        target = held.declared
        if held.kind == "map":
            target = self.types.field_type(held.value).declared
        below: list[_Item] = []
        if target is not None and target.is_enum:
            details.append("values: " + ", ".join(f"{v.name} = {v.number}" for v in target.descriptor.value))
        elif target is not None:
            inner = here + ("{}" if held.kind == "map" else "[]" if label == "repeated" else "")
            if target.full_name in self.expanded:
                details.append(f"fields: see {self.expanded[target.full_name]}")
            else:
                self.expanded[target.full_name] = inner
                below = self.children(target, item.depth + 1, inner)
        default = field.default_value if field.HasField("default_value") else None
        type_text = type_label(held, label, self.schema.package)
        self.rows.append(
            FieldRow(item.depth, field.name, here, type_text, default, None, "; ".join(details), tags)
        )
        return below


def _field_options(
    schema: ParsedProtobuf,
) -> dict[tuple[str, int], tuple[tuple[tuple[str, str], ...], tuple[str, ...]]]:
    """The options (custom ones readable) and ``(confluent.field_meta).tags`` of the schema's own fields,
    by message full name and field number."""
    found = {}
    file = schema.readable_file
    prefix = f"{schema.package}." if schema.package else ""
    pending = [(message, prefix + message.name) for message in file.message_type]  # type: ignore[attr-defined]
    while pending:
        message, full = pending.pop()
        pending.extend((nested, f"{full}.{nested.name}") for nested in message.nested_type)
        for field in message.field:
            options = tuple(option_items(field.options))
            tags: tuple[str, ...] = ()
            for descriptor, value in field.options.ListFields():
                if descriptor.full_name == _FIELD_META:
                    tags = tuple(sorted(set(value.tags)))
            if options:
                found[(full, field.number)] = (options, tags)
    return found
