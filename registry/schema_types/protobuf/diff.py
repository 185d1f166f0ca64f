"""What changed between two Protobuf schemas, for people: messages, fields and enum values.

The rules ask whether one version reads the other and stay silent about changes that cannot break a
reader (``int32`` to ``int64``); this says what the author changed. Messages and enums are paired by
name at each level of nesting, fields by number (a field's identity), enum values by number. Paths are
the rules' (``Order.price (field 3)``).
"""

from __future__ import annotations

from typing import Any

from registry.compatibility import Change, ChangeKind
from registry.schema_types.protobuf.model import Declared, Types, label_of, oneof_members, paired, type_label
from registry.schema_types.protobuf.parsed import ParsedProtobuf


def diff_protobuf(old: ParsedProtobuf, new: ParsedProtobuf) -> list[Change]:
    """Every change from ``old`` to ``new``, in the order of the new schema (removed things after)."""
    changes: list[Change] = []
    pending = [(old.types.own(), new.types.own())]
    while pending:
        before_level, after_level = pending.pop(0)
        for before, after in paired(before_level[0], after_level[0]):
            if before is None or after is None:
                _appeared(changes, before, after, "message")
                continue
            _fields(changes, (old.types, before[1]), (new.types, after[1]))
            pending.append((old.types.inside(before[1]), new.types.inside(after[1])))
        for before, after in paired(before_level[1], after_level[1]):
            if before is None or after is None:
                _appeared(changes, before, after, "enum")
            else:
                _values(changes, before[1], after[1])
    return changes


def _appeared(changes: list[Change], before: Any, after: Any, what: str) -> None:
    if after is not None:
        changes.append(Change(ChangeKind.FIELD_ADDED, after[1].local_name, None, what))
    else:
        changes.append(Change(ChangeKind.FIELD_REMOVED, before[1].local_name, what, None))


def _field_text(types: Types, message: Declared, field: Any) -> str:
    """A field's type as people say it, with the oneof it belongs to."""
    oneof = oneof_members(message.descriptor)[0].get(field.number)
    label = label_of(field, message.syntax, oneof is not None)
    text = type_label(types.field_type(field), label, types.schema.package)
    return f"{text} (oneof {oneof})" if oneof else text


def _fields(changes: list[Change], old: tuple[Types, Declared], new: tuple[Types, Declared]) -> None:
    (old_types, before), (new_types, after) = old, new
    old_fields = {f.number: f for f in before.descriptor.field}
    new_fields = {f.number: f for f in after.descriptor.field}
    for number, field in new_fields.items():
        path = f"{after.local_name}.{field.name} (field {number})"
        now = _field_text(new_types, after, field)
        was_field = old_fields.get(number)
        if was_field is None:
            changes.append(Change(ChangeKind.FIELD_ADDED, path, None, now))
            continue
        if was_field.name != field.name:
            changes.append(Change(ChangeKind.FIELD_RENAMED, path, was_field.name, field.name))
        was = _field_text(old_types, before, was_field)
        if was != now:
            changes.append(Change(ChangeKind.TYPE_CHANGED, path, was, now))
        if was_field.default_value != field.default_value:
            changes.append(
                Change(
                    ChangeKind.DEFAULT_CHANGED,
                    path,
                    was_field.default_value or None,
                    field.default_value or None,
                )
            )
    for number, field in old_fields.items():
        if number not in new_fields:
            path = f"{before.local_name}.{field.name} (field {number})"
            changes.append(
                Change(ChangeKind.FIELD_REMOVED, path, _field_text(old_types, before, field), None)
            )


def _values(changes: list[Change], before: Declared, after: Declared) -> None:
    old_values = [f"{v.name} = {v.number}" for v in before.descriptor.value]
    new_values = [f"{v.name} = {v.number}" for v in after.descriptor.value]
    removed = [v for v in old_values if v not in new_values]
    added = [v for v in new_values if v not in old_values]
    if removed or added:
        changes.append(
            Change(
                ChangeKind.SYMBOLS_CHANGED,
                after.local_name,
                ", ".join(removed) + " removed" if removed else None,
                ", ".join(added) + " added" if added else None,
            )
        )
