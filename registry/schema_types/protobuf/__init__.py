"""Protobuf as a schema type of the registry (``PROTOBUF``), as Confluent's registry has it.

Modules, one job each: ``worker`` (protoc in a process of its own) and ``compiler`` (the client that
starts, feeds and restarts it), ``builtins`` (imports that need no reference), ``parsing`` (text or
base64 descriptor to :class:`ParsedProtobuf`, in ``parsed``), ``options`` and ``printer`` (the canonical
and normalized ``.proto`` texts).
"""

from __future__ import annotations

from collections.abc import Sequence

from registry.schema_types.base import Parsed, Reference
from registry.schema_types.protobuf.parsed import ParsedProtobuf
from registry.schema_types.protobuf.parsing import parse_protobuf


class Protobuf:
    """Protobuf schemas (``.proto`` text or a base64 ``FileDescriptorProto``; references by import path)."""

    name = "PROTOBUF"

    def parse(self, text: str, references: Sequence[Reference] = ()) -> ParsedProtobuf:
        return parse_protobuf(text, references)

    def readable(self, schema: Parsed) -> str:
        return _protobuf(schema).canonical


def _protobuf(schema: Parsed) -> ParsedProtobuf:
    if not isinstance(schema, ParsedProtobuf):
        raise TypeError(f"a Protobuf rule was given a {schema.schema_type} schema")
    return schema


__all__ = ["ParsedProtobuf", "Protobuf"]
