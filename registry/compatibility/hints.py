"""How a found problem reads to a person: a message saying what is wrong and a hint saying how to fix it.

The rules produce problems relative to the compared pair; this module anchors them (absolute JSON
pointers, a dotted field path starting at the reader's top-level name) and words them. Messages speak of
"the reader" and "the writer" because the same problem is reported for BACKWARD (the new schema reads)
and FORWARD (the old schema reads); :class:`~registry.compatibility.levels.Conflict` adds the direction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum

from registry.compatibility.kinds import IncompatibilityKind as Kind
from registry.compatibility.rules import PROMOTIONS, Found
from registry.compatibility.schema_model import PRIMITIVES, Node


@dataclass(frozen=True)
class Incompatibility:
    """One reason the reader cannot read the writer's data, located in both schemas.

    ``kind`` names the rule broken: a ``(str, Enum)`` of the schema type's own kinds (Avro's
    :class:`~registry.compatibility.kinds.IncompatibilityKind`, Protobuf's, JSON Schema's), whose value
    the messages show.
    """

    kind: Enum
    reader_pointer: str
    writer_pointer: str
    path: str
    message: str
    hint: str


def root_label(node: Node) -> str:
    """The first segment of field paths: the top-level type's unqualified name, or its type."""
    return node.simple_name if node.name is not None else node.type


def anchor(found: Found, label: str, reader_doc: object, writer_doc: object) -> Incompatibility:
    """The final, absolute, worded form of ``found``."""
    reader_ptr = found.reader_ptr
    writer_ptr = found.writer_ptr
    if found.attr is not None:
        # Point at "name"/"size"/"symbols" only where the type is written out, not at a by-name reference.
        if found.reader.document is reader_doc and found.reader.pointer == reader_ptr:
            reader_ptr += "/" + found.attr
        if found.writer.document is writer_doc and found.writer.pointer == writer_ptr:
            writer_ptr += "/" + found.attr
    path = label + found.path
    message, hint = _WORDING[found.kind](found, path)
    return Incompatibility(found.kind, reader_ptr, writer_ptr, path, message, hint)


def _one_of(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _type_json(node: Node) -> str:
    if node.name is not None:
        return json.dumps(node.name)
    if node.type in PRIMITIVES:
        return json.dumps(node.type)
    if node.type == "array":
        return '{"type": "array", "items": ...}'
    if node.type == "map":
        return '{"type": "map", "values": ...}'
    return node.type


def _type_mismatch(found: Found, path: str) -> tuple[str, str]:
    reader, writer = found.reader, found.writer
    if found.detail is not None:  # Java's corner: a missing field whose enum type has a default
        name = found.detail.name
        message = (
            f'field "{path}" is in the reader but not in the writer and has no default; '
            f'the default "{reader.enum_default}" of its {reader.describe()} replaces unknown symbols, '
            "not a missing field"
        )
        return message, f'add "default": "{reader.enum_default}" to the field "{name}"'
    message = (
        f'"{path}" is {reader.describe()} in the reader but {writer.describe()} in the writer, '
        f"and {writer.type} data cannot be read as {reader.type}"
    )
    if writer.type in PRIMITIVES:
        readable = [writer.type, *PROMOTIONS.get(writer.type, ())]
        union = "a union with one of them" if len(readable) > 1 else "a union that includes it"
        hint = f"the reader must use {_one_of(readable)} here (or {union})"
    else:
        hint = (
            f"the reader must use the writer's type ({writer.describe()}) here, or a union that includes it"
        )
    return message, hint


def _missing_default(found: Found, path: str) -> tuple[str, str]:
    field = found.detail
    message = f'field "{path}" is in the reader but not in the writer, and has no default to fill it with'
    node = field.type
    if node.type == "union":  # since Avro 1.12 a union's default may match any of its branches
        if any(b.type == "null" for b in node.branches):
            return message, f'add "default": null to the field "{field.name}"'
        branches = ", ".join(b.describe() for b in node.branches)
        return message, f'add a "default" matching one of the union\'s branches ({branches})'
    hint = (
        f'add "default": null and make the type ["null", {_type_json(node)}], '
        f'or add a "default" of type {node.type}'
    )
    return message, hint


def _missing_symbols(found: Found, path: str) -> tuple[str, str]:
    symbols = ", ".join(found.detail)
    message = f'"{path}" is {found.reader.describe()}, which lacks the writer\'s symbols {symbols}'
    hint = f'add {symbols} to the reader enum\'s "symbols", or give the reader enum a "default" symbol'
    return message, hint


def _name_mismatch(found: Found, path: str) -> tuple[str, str]:
    reader, writer = found.reader, found.writer
    message = f'"{path}" is {reader.type} "{reader.name}" in the reader but "{writer.name}" in the writer'
    hint = f'name it "{writer.simple_name}" in the reader, or add "{writer.name}" to its "aliases"'
    return message, hint


def _fixed_size(found: Found, path: str) -> tuple[str, str]:
    reader, writer = found.reader, found.writer
    message = (
        f'"{path}" is {reader.describe()} of size {reader.size} in the reader but {writer.size} in the writer'
    )
    return message, f'keep "size": {writer.size}; the size of a fixed cannot change'


def _missing_branch(found: Found, path: str) -> tuple[str, str]:
    writer_branch: Node = found.detail
    written = writer_branch.describe()
    branches = ", ".join(b.describe() for b in found.reader.branches)
    message = (
        f'"{path}": the writer can write {written}, which no branch of the reader\'s union [{branches}] reads'
    )
    if any(b.describe() == written for b in found.reader.branches):
        # The usual cause: the reader has "the same" branch, but it changed incompatibly.
        message += f"; the reader's {written} branch differs from the writer's in a way it cannot read"
        hint = f"make the reader's {written} able to read the writer's (compare the two on their own)"
        return message, hint
    return message, f"add {written} (or a type it can be read as) to the reader's union"


_WORDING = {
    Kind.TYPE_MISMATCH: _type_mismatch,
    Kind.READER_FIELD_MISSING_DEFAULT_VALUE: _missing_default,
    Kind.MISSING_ENUM_SYMBOLS: _missing_symbols,
    Kind.NAME_MISMATCH: _name_mismatch,
    Kind.FIXED_SIZE_MISMATCH: _fixed_size,
    Kind.MISSING_UNION_BRANCH: _missing_branch,
}
