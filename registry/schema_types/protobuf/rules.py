"""Confluent's Protobuf compatibility rules as values: every difference from an original schema to an update.

Confluent decides Protobuf compatibility by diffing (its ``SchemaDiff``, ``MessageSchemaDiff``,
``FieldSchemaDiff`` and ``EnumSchemaDiff``) and refusing the differences outside its list of compatible
ones (:mod:`~.kinds`). BACKWARD diffs from the old schema to the new one, FORWARD the other way round,
so a reader reads a writer's data when the diff from the writer to the reader holds no incompatible
difference. What is compared, as Confluent does:

* the package; messages and enums by name at each level of nesting, top-level and nested alike (a message
  added, removed, or moved to another index among its siblings; map entries and group bodies are not
  messages of their own);
* fields by number, wherever they sit in their message: added, removed, renamed (compatible: the number
  is the field's identity), required ones added or removed, moved into or out of oneofs;
* what a field holds: a scalar (an enum counts as one), a map or a message, scalars by the groups with
  one wire encoding (``model.SCALAR_GROUPS``), labels (``optional``, ``repeated``, ``required``; a field
  with none, as proto3's implicit ones and a oneof's members, changes no label), messages by local name
  (the full name without its package) and then by their contents, a map by its key and its value;
* enum values by number: added, removed or renamed, all compatible.

A message field whose type keeps its name but whose contents changed incompatibly is itself a
FIELD_NAMED_TYPE_CHANGED. Confluent finds that by recursing; here a work list visits each pair of
messages once and a second pass marks the pairs from which an incompatible difference can be reached,
so recursive messages and long chains of types cost no stack.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from registry.schema_types.protobuf.kinds import ProtobufKind as Kind
from registry.schema_types.protobuf.model import Declared, FieldType, Types, label_of, oneof_members, paired
from registry.schema_types.protobuf.parsed import ParsedProtobuf

_Pair = tuple[str, str]
_Level = tuple[list[Declared], list[Declared]]  # the messages and the enums declared side by side


@dataclass(frozen=True)
class Found:
    """One difference, at ``path`` (``Order.price (field 3)``), pointing into both descriptors;
    ``original``/``update`` say what was there on each side, where that is one thing."""

    kind: Kind
    path: str
    original_pointer: str = ""
    update_pointer: str = ""
    original: str | None = None
    update: str | None = None
    note: str | None = None


def differences(original: ParsedProtobuf, update: ParsedProtobuf) -> list[Found]:
    """Every difference from ``original`` to ``update``, compatible or not."""
    walk = _Walk(original.types, update.types)
    for kind, attribute in ((Kind.PACKAGE_CHANGED, "package"), (Kind.SYNTAX_VERSION_CHANGED, "syntax")):
        before, after = getattr(original, attribute), getattr(update, attribute)
        if before != after:
            walk.add(kind, attribute, (f"/{attribute}", f"/{attribute}"), before, after)
    walk.level(original.types.own(), update.types.own())
    return walk.finish()


def type_text(held: FieldType, label: str | None) -> str:
    return f"{label} {held.name}" if label else held.name


class _Pending:
    """A FIELD_NAMED_TYPE_CHANGED that holds if the pair of messages it names turns out incompatible."""

    def __init__(self, found: Found, pair: _Pair) -> None:
        self.found = found
        self.pair = pair


class _Walk:
    def __init__(self, old: Types, new: Types) -> None:
        self.old = old
        self.new = new
        self.items: list[Found | _Pending] = []
        self.queue: deque[tuple[Declared, Declared]] = deque()
        self.seen: set[_Pair] = set()
        self.needs: dict[_Pair, set[_Pair]] = {}  # a pair -> the pairs whose verdict is part of its own
        self.broken: set[_Pair] = set()  # pairs with an incompatible difference of their own
        self.current: _Pair | None = None

    def add(
        self,
        kind: Kind,
        path: str,
        pointers: tuple[str, str],
        original: str | None = None,
        update: str | None = None,
        note: str | None = None,
    ) -> None:
        self.items.append(Found(kind, path, pointers[0], pointers[1], original, update, note))
        if not kind.compatible and self.current is not None:
            self.broken.add(self.current)

    def follow(self, old: Declared, new: Declared) -> _Pair:
        """Queues the pair of messages for comparison; the current pair's verdict includes its verdict."""
        pair = (old.full_name, new.full_name)
        if pair not in self.seen:
            self.queue.append((old, new))
        if self.current is not None:
            self.needs.setdefault(self.current, set()).add(pair)
        return pair

    def level(self, old: _Level, new: _Level) -> None:
        """The messages and enums declared side by side (in a file, or inside a message)."""
        for before, after in paired(old[0], new[0]):
            if after is None and before is not None:
                self.add(Kind.MESSAGE_REMOVED, before[1].local_name, (before[1].pointer, ""))
            elif before is None and after is not None:
                self.add(Kind.MESSAGE_ADDED, after[1].local_name, ("", after[1].pointer))
            elif before is not None and after is not None:
                self.follow(before[1], after[1])
                if before[0] != after[0]:  # its message index changed: compatible, as indexes go by id
                    pointers = (before[1].pointer, after[1].pointer)
                    self.add(Kind.MESSAGE_MOVED, after[1].local_name, pointers, str(before[0]), str(after[0]))
        for before, after in paired(old[1], new[1]):
            if after is None and before is not None:
                self.add(Kind.ENUM_REMOVED, before[1].local_name, (before[1].pointer, ""))
            elif before is None and after is not None:
                self.add(Kind.ENUM_ADDED, after[1].local_name, ("", after[1].pointer))
            elif before is not None and after is not None:
                self.enum(before[1], after[1])

    def finish(self) -> list[Found]:
        while self.queue:
            old, new = self.queue.popleft()
            pair = (old.full_name, new.full_name)
            if pair in self.seen:
                continue
            self.seen.add(pair)
            self.current = pair
            self.message(old, new)
            self.level(self.old.inside(old), self.new.inside(new))
        self.current = None
        bad = self._incompatible_pairs()
        out = []
        for item in self.items:
            if isinstance(item, Found):
                out.append(item)
            elif item.pair in bad:
                out.append(item.found)
        return out

    def _incompatible_pairs(self) -> set[_Pair]:
        """The pairs from which a pair with an incompatible difference of its own can be reached."""
        needed_by: dict[_Pair, set[_Pair]] = {}
        for pair, needed in self.needs.items():
            for each in needed:
                needed_by.setdefault(each, set()).add(pair)
        bad = set(self.broken)
        pending = list(bad)
        while pending:
            for parent in needed_by.get(pending.pop(), ()):
                if parent not in bad:
                    bad.add(parent)
                    pending.append(parent)
        return bad

    def message(self, old: Declared, new: Declared) -> None:
        before, after = old.descriptor, new.descriptor
        old_fields = {f.number: (i, f) for i, f in enumerate(before.field)}
        new_fields = {f.number: (i, f) for i, f in enumerate(after.field)}
        old_oneof_of, old_oneofs = oneof_members(before)
        new_oneof_of, new_oneofs = oneof_members(after)
        self.oneofs(old, new, (old_fields, old_oneof_of, old_oneofs), (new_fields, new_oneof_of, new_oneofs))
        vanished = {
            name for name, (_, members) in old_oneofs.items()
            if name not in new_oneofs and not any(number in new_fields for number in members)
        }  # fmt: skip
        for number in sorted(old_fields.keys() | new_fields.keys()):
            was, now = old_fields.get(number), new_fields.get(number)
            in_old, in_new = old_oneof_of.get(number), new_oneof_of.get(number)
            if now is None:
                index, field = was  # type: ignore[misc]
                path = f"{old.local_name}.{field.name} (field {number})"
                pointers = (f"{old.pointer}/field/{index}", "")
                if in_old is not None:
                    if in_old not in vanished:
                        self.add(Kind.ONEOF_FIELD_REMOVED, path, pointers, note=in_old)
                elif label_of(field, old.syntax, False) == "required":
                    self.add(Kind.REQUIRED_FIELD_REMOVED, path, pointers)
                else:
                    self.add(Kind.FIELD_REMOVED, path, pointers)
                continue
            index, field = now
            path = f"{new.local_name}.{field.name} (field {number})"
            if was is None:
                pointers = ("", f"{new.pointer}/field/{index}")
                if in_new is not None:
                    self.add(Kind.ONEOF_FIELD_ADDED, path, pointers, note=in_new)
                elif label_of(field, new.syntax, False) == "required":
                    self.add(Kind.REQUIRED_FIELD_ADDED, path, pointers)
                else:
                    self.add(Kind.FIELD_ADDED, path, pointers)
                continue
            pointers = (f"{old.pointer}/field/{was[0]}", f"{new.pointer}/field/{index}")
            if in_old is not None and in_new is None:
                self.add(Kind.ONEOF_FIELD_MOVED_TO_TOP_LEVEL, path, pointers, note=in_old)
            if was[1].name != field.name:
                self.add(Kind.FIELD_NAME_CHANGED, path, pointers, was[1].name, field.name)
            old_label = label_of(was[1], old.syntax, in_old is not None)
            new_label = label_of(field, new.syntax, in_new is not None)
            held = (self.old.field_type(was[1]), self.new.field_type(field))
            self.held(held, (old_label, new_label), path, pointers)

    def oneofs(self, old: Declared, new: Declared, before: tuple[Any, ...], after: tuple[Any, ...]) -> None:
        """Oneofs added or removed, and fields that were independent and now exclude each other."""
        old_fields, old_oneof_of, old_oneofs = before
        _, _, new_oneofs = after
        for name, (index, members) in new_oneofs.items():
            origins: set[str] = set()
            moved_in = 0
            for number in members:
                if number in old_oneof_of:
                    origins.add(f"oneof {old_oneof_of[number]}")
                elif number in old_fields:
                    origins.add(f"field {number}")
                    moved_in += 1
            if len(origins) > 1:
                kind = (
                    Kind.MULTIPLE_FIELDS_MOVED_TO_ONEOF
                    if moved_in > 1
                    else Kind.FIELD_MOVED_TO_EXISTING_ONEOF
                )
                old_index = old_oneofs.get(name, (None,))[0]
                pointers = (
                    f"{old.pointer}/oneof_decl/{old_index}" if old_index is not None else "",
                    f"{new.pointer}/oneof_decl/{index}",
                )
                self.add(kind, f"{new.local_name}.{name} (oneof)", pointers, note=", ".join(sorted(origins)))
        for name in sorted(old_oneofs.keys() | new_oneofs.keys()):
            if name not in new_oneofs:
                pointers = (f"{old.pointer}/oneof_decl/{old_oneofs[name][0]}", "")
                self.add(Kind.ONEOF_REMOVED, f"{old.local_name}.{name} (oneof)", pointers)
            elif name not in old_oneofs:
                pointers = ("", f"{new.pointer}/oneof_decl/{new_oneofs[name][0]}")
                self.add(Kind.ONEOF_ADDED, f"{new.local_name}.{name} (oneof)", pointers)

    def held(
        self,
        held: tuple[FieldType, FieldType],
        labels: tuple[str | None, str | None],
        path: str,
        pointers: tuple[str, str],
    ) -> None:
        """What a field holds, on both sides (Confluent's ``compareLabelsAndTypes``)."""
        before, after = held
        texts = (type_text(before, labels[0]), type_text(after, labels[1]))
        if before.kind != after.kind:
            self.add(Kind.FIELD_KIND_CHANGED, path, pointers, *texts, note=f"{before.kind}/{after.kind}")
        elif before.kind == "scalar":
            if before.scalar_group != after.scalar_group:
                self.add(Kind.FIELD_SCALAR_KIND_CHANGED, path, pointers, *texts)
            elif None not in labels and labels[0] != labels[1]:
                kind = Kind.FIELD_NUMERIC_LABEL_CHANGED
                if before.scalar_group == "STRING_OR_BYTES":
                    kind = Kind.FIELD_STRING_OR_BYTES_LABEL_CHANGED
                self.add(kind, path, pointers, *texts)
        elif before.kind == "map":
            for part in ("key", "value"):
                inner = (
                    self.old.field_type(getattr(before, part)),
                    self.new.field_type(getattr(after, part)),
                )
                self.held(inner, (None, None), path, pointers)
        else:
            self.named(before, after, path, pointers)

    def named(self, before: FieldType, after: FieldType, path: str, pointers: tuple[str, str]) -> None:
        old, new = before.declared, after.declared
        if old is None or new is None or old.local_name != new.local_name:
            if before.name != after.name:
                self.add(Kind.FIELD_NAMED_TYPE_CHANGED, path, pointers, before.name, after.name)
            return
        pair = self.follow(old, new)
        found = Found(
            Kind.FIELD_NAMED_TYPE_CHANGED, path, *pointers, before.name, after.name, note=new.local_name
        )
        self.items.append(_Pending(found, pair))

    def enum(self, old: Declared, new: Declared) -> None:
        before = {v.number: (i, v.name) for i, v in enumerate(old.descriptor.value)}
        after = {v.number: (i, v.name) for i, v in enumerate(new.descriptor.value)}
        for number in sorted(before.keys() | after.keys()):
            was, now = before.get(number), after.get(number)
            if now is None:
                index, name = was  # type: ignore[misc]
                path = f"{old.local_name}.{name} (value {number})"
                self.add(Kind.ENUM_CONST_REMOVED, path, (f"{old.pointer}/value/{index}", ""), name)
                continue
            path = f"{new.local_name}.{now[1]} (value {number})"
            if was is None:
                self.add(Kind.ENUM_CONST_ADDED, path, ("", f"{new.pointer}/value/{now[0]}"), None, now[1])
            elif was[1] != now[1]:
                pointers = (f"{old.pointer}/value/{was[0]}", f"{new.pointer}/value/{now[0]}")
                self.add(Kind.ENUM_CONST_CHANGED, path, pointers, was[1], now[1])
