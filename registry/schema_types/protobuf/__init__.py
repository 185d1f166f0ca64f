"""Protobuf as a schema type of the registry (``PROTOBUF``), as Confluent's registry has it.

Modules, one job each: ``worker`` (protoc in a process of its own) and ``compiler`` (the client that
starts, feeds and restarts it), ``builtins`` (imports that need no reference), ``parsing`` (text or
base64 descriptor to :class:`ParsedProtobuf`, in ``parsed``), ``options`` and ``printer`` (the canonical
and normalized ``.proto`` texts), ``model`` (the types a schema names, what a field holds), ``kinds`` and
``rules`` (Confluent's differences and which are compatible), ``wording`` (messages and hints), ``diff``
(changes for people), ``tree`` (the field tree) and ``imports`` (the files a ``.proto`` file imports).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from registry.compatibility import Change, CompatibilityLevel, Conflict, Incompatibility
from registry.compatibility.levels import compare_versions
from registry.schema_types.base import FieldTree, Parsed, Reference
from registry.schema_types.protobuf.diff import diff_protobuf
from registry.schema_types.protobuf.imports import imported_files
from registry.schema_types.protobuf.kinds import ProtobufKind
from registry.schema_types.protobuf.parsed import ParsedProtobuf
from registry.schema_types.protobuf.parsing import parse_protobuf
from registry.schema_types.protobuf.rules import differences
from registry.schema_types.protobuf.tree import field_tree
from registry.schema_types.protobuf.wording import incompatibility
from registry.schema_types.search_entries import tree_entries

#: The format (``?format=serialized``) Confluent's clients read a Protobuf schema in.
SERIALIZED = "serialized"


class Protobuf:
    """Protobuf schemas (``.proto`` text or a base64 ``FileDescriptorProto``; references by import path)."""

    name = "PROTOBUF"
    file_suffix = ".proto"
    media_type = "text/x-protobuf"
    text_is_json = False
    field_policies = False

    def file_references(self, text: str) -> tuple[str, ...]:
        return imported_files(text)

    def parse(self, text: str, references: Sequence[Reference] = ()) -> ParsedProtobuf:
        return parse_protobuf(text, references)

    def conflicts(
        self, new: Parsed, existing: Sequence[tuple[int, Parsed]], level: CompatibilityLevel | str
    ) -> list[Conflict]:
        versions = [(version, _protobuf(schema)) for version, schema in existing]
        return compare_versions(_protobuf(new), versions, level, check_reader_writer)

    def reads(self, reader: Parsed, writer: Parsed) -> bool:
        return not check_reader_writer(_protobuf(reader), _protobuf(writer))

    def diff(self, old: Parsed, new: Parsed) -> list[Change]:
        return diff_protobuf(_protobuf(old), _protobuf(new))

    def field_tree(self, schema: Parsed) -> FieldTree:
        return field_tree(_protobuf(schema))

    def formatted(self, schema: Parsed, format: str) -> str | None:
        if format == SERIALIZED:
            return _protobuf(schema).serialized()
        return None  # Confluent's ignore_extensions is not implemented: the text as stored

    def readable(self, schema: Parsed) -> str:
        return _protobuf(schema).canonical

    def search_entries(self, schema: Parsed) -> tuple[tuple[str, str, str], ...]:
        return tree_entries(self.field_tree(schema))

    def positions(self, schema: Parsed) -> Mapping[str, tuple[int, int]]:
        return _protobuf(schema).positions


def check_reader_writer(reader: ParsedProtobuf, writer: ParsedProtobuf) -> list[Incompatibility]:
    """Why ``reader`` cannot read data written with ``writer``: the incompatible differences from the
    writer's schema to the reader's, as Confluent's ``isBackwardCompatible`` finds them."""
    return [incompatibility(found) for found in differences(writer, reader) if not found.kind.compatible]


def _protobuf(schema: Parsed) -> ParsedProtobuf:
    if not isinstance(schema, ParsedProtobuf):
        raise TypeError(f"a Protobuf rule was given a {schema.schema_type} schema")
    return schema


__all__ = ["ParsedProtobuf", "Protobuf", "ProtobufKind", "check_reader_writer"]
