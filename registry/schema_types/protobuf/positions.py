"""Where the parts of a compiled ``.proto`` file are in its text: the pointers the rules name (descriptor
field names and indexes, ``/message_type/0/field/1``) to 1-based lines and columns, from the
``SourceCodeInfo`` protoc writes when asked (``--include_source_info``), in a compilation of its own: the
descriptor the registry keeps holds none."""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.descriptor import Descriptor
from google.protobuf.descriptor_pb2 import FileDescriptorProto

from registry.schema_types.protobuf.builtins import include_dirs, is_builtin
from registry.schema_types.protobuf.compiler import SCHEMA_FILE, Compiler, CompilerFailed, shared_compiler


def source_positions(
    text: str, dependencies: Sequence[FileDescriptorProto], compiler: Compiler | None = None
) -> dict[str, tuple[int, int]]:
    """Each declaration of the ``.proto`` ``text`` (which compiled, importing ``dependencies``) by pointer:
    where it starts (line, column)."""
    given = [file for file in dependencies if not is_builtin(file.name)]
    worker = compiler or shared_compiler()
    try:
        compiled = worker.compile(SCHEMA_FILE, include_dirs(), {SCHEMA_FILE: text}, given, source_info=True)
    except CompilerFailed:
        return {}
    if not compiled.ok:
        return {}
    return located(compiled.files[-1])


def located(file: FileDescriptorProto) -> dict[str, tuple[int, int]]:
    """Each part of ``file`` its source info locates, by pointer: where it starts (line, column)."""
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
