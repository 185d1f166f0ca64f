"""How an incompatible Protobuf difference reads to a person: what is wrong, and how to fix it.

The rules diff the writer's schema (original) against the reader's (update); this module turns each
incompatible :class:`~.rules.Found` into an :class:`~registry.compatibility.Incompatibility` speaking of
"the reader" and "the writer", as the Avro wording does, since the same difference is reported for
BACKWARD (the new schema reads) and FORWARD (the old schema reads).
"""

from __future__ import annotations

from collections.abc import Callable

from registry.compatibility import Incompatibility
from registry.schema_types.protobuf.kinds import ProtobufKind as Kind
from registry.schema_types.protobuf.model import SCALAR_GROUPS
from registry.schema_types.protobuf.rules import Found


def incompatibility(found: Found) -> Incompatibility:
    """``found`` (an incompatible difference from the writer to the reader) worded and located."""
    message, hint = _WORDING[found.kind](found)
    return Incompatibility(
        found.kind,
        reader_pointer=found.update_pointer,
        writer_pointer=found.original_pointer,
        path=found.path,
        message=message,
        hint=hint,
    )


def _subject(path: str) -> str:
    return f'"{path}"'


def _package(found: Found) -> tuple[str, str]:
    reader, writer = found.update or "(none)", found.original or "(none)"
    message = (
        f"the package is {reader} in the reader but {writer} in the writer, so every message has another "
        "full name"
    )
    return message, f"keep package {writer} (a new package is a new subject)"


def _message_removed(found: Found) -> tuple[str, str]:
    message = (
        f"message {_subject(found.path)} is in the writer but not in the reader, which cannot resolve "
        "data written with it"
    )
    return message, f"keep message {found.path} in the reader (messages may be added and reordered)"


def _kind_changed(found: Found) -> tuple[str, str]:
    kinds = (found.note or "/").split("/")
    message = (
        f"{_subject(found.path)} is a {kinds[1]} ({found.update}) in the reader but a {kinds[0]} "
        f"({found.original}) in the writer, which encode differently"
    )
    number = found.path.rsplit("(field ", 1)[-1].rstrip(")")
    hint = (
        f"keep field {number} a {found.original}; for another type add a field with a new number and "
        f"reserve {number}"
    )
    return message, hint


def _scalar_changed(found: Found) -> tuple[str, str]:
    writer = (found.original or "").split()[-1]
    group = SCALAR_GROUPS.get(writer, SCALAR_GROUPS["enum"])
    alike = sorted(name for name, other in SCALAR_GROUPS.items() if other == group and name != writer)
    message = (
        f"{_subject(found.path)} is {found.update} in the reader but {found.original} in the writer, "
        "whose wire encodings differ"
    )
    if not alike:
        return message, f"the reader must keep {writer}"
    return message, f"the reader must use {writer} or a type encoded alike ({', '.join(alike)})"


def _named_type_changed(found: Found) -> tuple[str, str]:
    if found.note is not None:  # same name, contents changed incompatibly
        message = (
            f"{_subject(found.path)} is message {found.note} on both sides, but the reader's {found.note} "
            "cannot read the writer's (see the differences reported inside it)"
        )
        return message, f"make the reader's {found.note} able to read the writer's"
    message = f"{_subject(found.path)} is {found.update} in the reader but {found.original} in the writer"
    hint = (
        f"the reader must use a message named like {found.original} (its package may differ), or a new "
        "field with a new number"
    )
    return message, hint


def _label_changed(found: Found) -> tuple[str, str]:
    message = (
        f"{_subject(found.path)} is {found.update} in the reader but {found.original} in the writer; a "
        "number cannot change between singular, repeated and required"
    )
    return message, f"keep it {found.original} in the reader"


def _required_added(found: Found) -> tuple[str, str]:
    message = f"required field {_subject(found.path)} is in the reader but not in the writer's data"
    return message, "make the field optional (a required field can never be added)"


def _required_removed(found: Found) -> tuple[str, str]:
    message = f"required field {_subject(found.path)} of the writer is not in the reader"
    return message, "keep the required field in the reader (a required field can never be removed)"


def _oneof_field_removed(found: Found) -> tuple[str, str]:
    message = (
        f"{_subject(found.path)}, a member of the writer's oneof {found.note}, is not in the reader, "
        "which would see that oneof unset"
    )
    return message, f"keep the field in oneof {found.note} in the reader"


def _moved_to_oneof(found: Found) -> tuple[str, str]:
    message = (
        f"oneof {_subject(found.path)} of the reader joins fields the writer sets independently "
        f"({found.note}); the reader keeps only one of them"
    )
    return message, "keep those fields out of one oneof; put new fields, not old ones, in a oneof"


_WORDING: dict[Kind, Callable[[Found], tuple[str, str]]] = {
    Kind.PACKAGE_CHANGED: _package,
    Kind.MESSAGE_REMOVED: _message_removed,
    Kind.FIELD_KIND_CHANGED: _kind_changed,
    Kind.FIELD_SCALAR_KIND_CHANGED: _scalar_changed,
    Kind.FIELD_NAMED_TYPE_CHANGED: _named_type_changed,
    Kind.FIELD_NUMERIC_LABEL_CHANGED: _label_changed,
    Kind.REQUIRED_FIELD_ADDED: _required_added,
    Kind.REQUIRED_FIELD_REMOVED: _required_removed,
    Kind.ONEOF_FIELD_REMOVED: _oneof_field_removed,
    Kind.MULTIPLE_FIELDS_MOVED_TO_ONEOF: _moved_to_oneof,
    Kind.FIELD_MOVED_TO_EXISTING_ONEOF: _moved_to_oneof,
}
