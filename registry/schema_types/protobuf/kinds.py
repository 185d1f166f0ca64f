"""Why two Protobuf schemas differ, in Confluent's ``Difference.Type`` names, and which differences are
compatible (Confluent's ``SchemaDiff.COMPATIBLE_CHANGES``): the others refuse a new version."""

from __future__ import annotations

from enum import StrEnum


class ProtobufKind(StrEnum):
    """One kind of difference from an original schema to an update."""

    PACKAGE_CHANGED = "PACKAGE_CHANGED"
    SYNTAX_VERSION_CHANGED = "SYNTAX_VERSION_CHANGED"
    MESSAGE_ADDED = "MESSAGE_ADDED"
    MESSAGE_REMOVED = "MESSAGE_REMOVED"
    MESSAGE_MOVED = "MESSAGE_MOVED"
    ENUM_ADDED = "ENUM_ADDED"
    ENUM_REMOVED = "ENUM_REMOVED"
    ENUM_CONST_ADDED = "ENUM_CONST_ADDED"
    ENUM_CONST_CHANGED = "ENUM_CONST_CHANGED"
    ENUM_CONST_REMOVED = "ENUM_CONST_REMOVED"
    FIELD_ADDED = "FIELD_ADDED"
    FIELD_REMOVED = "FIELD_REMOVED"
    FIELD_NAME_CHANGED = "FIELD_NAME_CHANGED"
    FIELD_KIND_CHANGED = "FIELD_KIND_CHANGED"
    FIELD_SCALAR_KIND_CHANGED = "FIELD_SCALAR_KIND_CHANGED"
    FIELD_NAMED_TYPE_CHANGED = "FIELD_NAMED_TYPE_CHANGED"
    FIELD_NUMERIC_LABEL_CHANGED = "FIELD_NUMERIC_LABEL_CHANGED"
    FIELD_STRING_OR_BYTES_LABEL_CHANGED = "FIELD_STRING_OR_BYTES_LABEL_CHANGED"
    REQUIRED_FIELD_ADDED = "REQUIRED_FIELD_ADDED"
    REQUIRED_FIELD_REMOVED = "REQUIRED_FIELD_REMOVED"
    ONEOF_ADDED = "ONEOF_ADDED"
    ONEOF_REMOVED = "ONEOF_REMOVED"
    ONEOF_FIELD_ADDED = "ONEOF_FIELD_ADDED"
    ONEOF_FIELD_REMOVED = "ONEOF_FIELD_REMOVED"
    ONEOF_FIELD_MOVED_TO_TOP_LEVEL = "ONEOF_FIELD_MOVED_TO_TOP_LEVEL"
    MULTIPLE_FIELDS_MOVED_TO_ONEOF = "MULTIPLE_FIELDS_MOVED_TO_ONEOF"
    FIELD_MOVED_TO_EXISTING_ONEOF = "FIELD_MOVED_TO_EXISTING_ONEOF"

    @property
    def compatible(self) -> bool:
        """Whether a reader still reads a writer's data across this difference."""
        return self in _COMPATIBLE


# SYNTAX_VERSION_CHANGED is ours (Confluent reports no difference for it): proto2 and proto3 share the
# wire format, and the label, presence and default changes that matter are reported field by field.
_COMPATIBLE = frozenset(
    {
        ProtobufKind.SYNTAX_VERSION_CHANGED,
        ProtobufKind.MESSAGE_ADDED,
        ProtobufKind.MESSAGE_MOVED,
        ProtobufKind.ENUM_ADDED,
        ProtobufKind.ENUM_REMOVED,
        ProtobufKind.ENUM_CONST_ADDED,
        ProtobufKind.ENUM_CONST_CHANGED,
        ProtobufKind.ENUM_CONST_REMOVED,
        ProtobufKind.FIELD_ADDED,
        ProtobufKind.FIELD_REMOVED,
        ProtobufKind.FIELD_NAME_CHANGED,
        ProtobufKind.FIELD_STRING_OR_BYTES_LABEL_CHANGED,
        ProtobufKind.ONEOF_ADDED,
        ProtobufKind.ONEOF_REMOVED,
        ProtobufKind.ONEOF_FIELD_ADDED,
        ProtobufKind.ONEOF_FIELD_MOVED_TO_TOP_LEVEL,
    }
)
