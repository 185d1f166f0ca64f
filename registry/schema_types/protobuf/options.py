"""Options as a ``.proto`` text writes them, custom ones (``(confluent.field_meta) = {...}``) included.

A compiled file keeps a custom option as an extension of its options message, which the plain
``descriptor_pb2`` classes do not know and would hide. :func:`readable_options` parses the file again
with classes from a pool holding every file it depends on, so the extensions its dependencies declare
are read; :func:`option_items` then lists a set of options in field-number order, which is what makes
the order in which a text wrote its options irrelevant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from google.protobuf import descriptor_pool, message_factory, text_encoding, text_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.descriptor_pb2 import FileDescriptorProto
from google.protobuf.message import Message

_DESCRIPTOR_PROTO = "google/protobuf/descriptor.proto"


def readable_options(file: FileDescriptorProto, dependencies: Sequence[FileDescriptorProto]) -> Message:
    """``file`` (a ``FileDescriptorProto``) with the custom options its dependencies declare readable.

    ``dependencies`` must come in an order where each file follows the ones it imports, as protoc lists
    them. Without a file declaring extensions there is nothing to read, and ``file`` is returned as is.
    """
    everything = [*dependencies, file]
    if _DESCRIPTOR_PROTO not in {f.name for f in dependencies} or not any(map(_declares, everything)):
        return file
    pool = descriptor_pool.DescriptorPool()
    for each in everything:
        pool.Add(each)
    file_class = message_factory.GetMessageClass(
        pool.FindMessageTypeByName("google.protobuf.FileDescriptorProto")
    )
    return file_class.FromString(file.SerializeToString(deterministic=True))


def _declares(file: FileDescriptorProto) -> bool:
    pending = list(file.message_type)
    if file.extension:
        return True
    while pending:
        message = pending.pop()
        if message.extension:
            return True
        pending.extend(message.nested_type)
    return False


def option_items(options: Message) -> list[tuple[str, str]]:
    """``(name, value)`` of every option set, in field-number order (a repeated option once per value)."""
    items = []
    for field, value in options.ListFields():
        name = f"({field.full_name})" if field.is_extension else field.name
        for one in value if field.is_repeated else [value]:
            items.append((name, value_text(field, one)))
    return items


def value_text(field: FieldDescriptor, value: object) -> str:
    """A value of ``field`` as a ``.proto`` text writes it."""
    kind = field.type
    if kind in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_GROUP):
        inside = text_format.MessageToString(value, as_one_line=True)  # type: ignore[arg-type]
        return "{ " + inside + " }" if inside else "{}"
    if kind == FieldDescriptor.TYPE_ENUM:
        known = field.enum_type.values_by_number.get(value)  # type: ignore[union-attr, arg-type]
        return known.name if known is not None else str(value)
    if kind == FieldDescriptor.TYPE_BOOL:
        return "true" if value else "false"
    if kind == FieldDescriptor.TYPE_STRING:
        return quoted(str(value))
    if kind == FieldDescriptor.TYPE_BYTES:
        return '"' + text_encoding.CEscape(value, as_utf8=False) + '"'  # type: ignore[arg-type]
    if kind in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return float_text(float(value))  # type: ignore[arg-type]
    return str(value)


def quoted(text: str) -> str:
    return '"' + text_encoding.CEscape(text, as_utf8=True) + '"'


def float_text(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)
