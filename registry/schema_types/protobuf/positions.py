"""Where the parts of a compiled ``.proto`` file are in its text: the pointers the rules name (descriptor
field names and indexes, ``/message_type/0/field/1``) to 1-based lines and columns, from the
``SourceCodeInfo`` protoc writes with ``--include_source_info``."""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.descriptor import Descriptor
from google.protobuf.descriptor_pb2 import FileDescriptorProto


def source_positions(file: FileDescriptorProto) -> dict[str, tuple[int, int]]:
    """Each located part of ``file`` by pointer: where its declaration starts (line, column)."""
    positions: dict[str, tuple[int, int]] = {}
    for location in file.source_code_info.location:
        pointer = _pointer(FileDescriptorProto.DESCRIPTOR, location.path)
        if pointer is not None and len(location.span) >= 2:
            positions.setdefault(pointer, (location.span[0] + 1, location.span[1] + 1))
    return positions


def _pointer(descriptor: Descriptor, path: Sequence[int]) -> str | None:
    """``path`` (field numbers, each repeated one followed by an index) as descriptor field names."""
    parts: list[str] = []
    i = 0
    while i < len(path):
        field = descriptor.fields_by_number.get(path[i])
        if field is None:
            return None
        parts.append(field.name)
        i += 1
        if field.is_repeated and i < len(path):
            parts.append(str(path[i]))
            i += 1
        if field.message_type is None:
            break
        descriptor = field.message_type
    return None if i < len(path) else "/" + "/".join(parts)
