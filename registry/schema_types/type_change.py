"""A new schema against a subject's versions when some are of another schema type.

Each type compares schemas of its own type only; a subject whose versions are Avro and that is sent a
Protobuf schema is refused by the compatibility check, as Confluent's ``SchemaValidatorBuilder`` refuses it
("Incompatible because of different schema type"), unless the level is NONE, which compares nothing.
Versions of the new schema's type are compared by that type's rules; each version the level covers that
is of another type is one conflict, said once whichever way round the level reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from registry.compatibility import CompatibilityLevel, Conflict, Incompatibility
from registry.compatibility.levels import compare_versions
from registry.schema_types.base import Parsed, SchemaType


class TypeChange(str, Enum):
    """The one kind of conflict between schemas of two types."""

    SCHEMA_TYPE_CHANGED = "SCHEMA_TYPE_CHANGED"


def conflicts(
    own: SchemaType, new: Parsed, existing: Sequence[tuple[int, Parsed]], level: CompatibilityLevel | str
) -> list[Conflict]:
    """Conflicts of ``new`` (of type ``own``) with ``existing`` (``(version, schema)``, oldest first)."""
    if all(schema.schema_type == new.schema_type for _, schema in existing):
        return own.conflicts(new, existing, level)

    def reader_writer(reader: Parsed, writer: Parsed) -> list[Incompatibility]:
        if reader.schema_type != writer.schema_type:
            return [type_changed(new, writer if reader is new else reader)]
        pair = own.conflicts(reader, [(0, writer)], CompatibilityLevel.BACKWARD)  # the reader reads
        return [conflict.incompatibility for conflict in pair]

    found = compare_versions(new, existing, level, reader_writer)
    said: set[int] = set()
    out = []
    for conflict in found:
        if conflict.incompatibility.kind is TypeChange.SCHEMA_TYPE_CHANGED:
            if conflict.version in said:
                continue
            said.add(conflict.version)
        out.append(conflict)
    return out


def type_changed(new: Parsed, old: Parsed) -> Incompatibility:
    """The new schema and an earlier version are of two types."""
    return Incompatibility(
        TypeChange.SCHEMA_TYPE_CHANGED,
        reader_pointer="",
        writer_pointer="",
        path="",
        message=(
            f"the schema type changes from {old.schema_type} to {new.schema_type}: a schema of one type "
            "cannot read data written with another, so a subject's versions keep one type"
        ),
        hint=(
            f"register the {new.schema_type} schema under another subject, or set this subject's "
            "compatibility level to NONE to let its type change"
        ),
    )
