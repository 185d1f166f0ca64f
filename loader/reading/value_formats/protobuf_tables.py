"""A Protobuf schema's table: the columns a topic of Protobuf values gets, decided on the compiled schema
alone (its `FileDescriptorProto` and those of the files it imports, as protoc gives them:
`protobuf_files`).

The table's shape is given in Avro's JSON form, as for JSON Schema (`json_schema_tables`); its Spark type
follows (`spark_types`); the records are decoded by the loader's JVM module (`tableloader.ProtobufRows`,
benchmarks/JOURNAL.md, "Decoding Protobuf records: where"). The mapping, as docs/loader.md ("Protobuf
topics") gives it: a message is a struct of its
fields by their `.proto` names, `repeated` an array, `map<K, V>` a map with the keys as text (as
Protobuf's JSON mapping writes them), an enum its value's name, a `oneof`'s members nullable columns,
`uint64` and `fixed64` a `decimal(20,0)` (no loss), `uint32` a bigint; of the well-known types a
`Timestamp` is a timestamp, a wrapper (`Int64Value`...) its value, and a `Duration`, `Struct`, `Value`,
`ListValue`, `Any`, `FieldMask` or `Empty` its JSON text; a message that contains itself is its JSON
text where it recurs. Every column is nullable.

The table is a topic's first message type's (message index `[0]`, the first message the file declares),
as Confluent's serializers write a file's only message; records of another message of the file are not
that table's (see the decoding).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from google.protobuf.descriptor_pb2 import (
    DescriptorProto,
    FieldDescriptorProto,
    FileDescriptorProto,
)

JSON_TEXT = "string"
UINT64 = {"type": "bytes", "logicalType": "decimal", "precision": 20, "scale": 0}

_F = FieldDescriptorProto
_SCALARS: dict[int, Any] = {
    _F.TYPE_DOUBLE: "double",
    _F.TYPE_FLOAT: "float",
    _F.TYPE_INT64: "long",
    _F.TYPE_SINT64: "long",
    _F.TYPE_SFIXED64: "long",
    _F.TYPE_UINT64: UINT64,
    _F.TYPE_FIXED64: UINT64,
    _F.TYPE_INT32: "int",
    _F.TYPE_SINT32: "int",
    _F.TYPE_SFIXED32: "int",
    _F.TYPE_UINT32: "long",
    _F.TYPE_FIXED32: "long",
    _F.TYPE_BOOL: "boolean",
    _F.TYPE_STRING: "string",
    _F.TYPE_BYTES: "bytes",
    _F.TYPE_ENUM: "string",
}
_WELL_KNOWN: dict[str, Any] = {
    "google.protobuf.Timestamp": {"type": "long", "logicalType": "timestamp-micros"},
    "google.protobuf.DoubleValue": "double",
    "google.protobuf.FloatValue": "float",
    "google.protobuf.Int64Value": "long",
    "google.protobuf.UInt64Value": UINT64,
    "google.protobuf.Int32Value": "int",
    "google.protobuf.UInt32Value": "long",
    "google.protobuf.BoolValue": "boolean",
    "google.protobuf.StringValue": "string",
    "google.protobuf.BytesValue": "bytes",
    # JSON text: a duration as Protobuf's JSON mapping writes it ("1.5s"), the rest having no fixed shape
    "google.protobuf.Duration": JSON_TEXT,
    "google.protobuf.Struct": JSON_TEXT,
    "google.protobuf.Value": JSON_TEXT,
    "google.protobuf.ListValue": JSON_TEXT,
    "google.protobuf.Any": JSON_TEXT,
    "google.protobuf.FieldMask": JSON_TEXT,
    "google.protobuf.Empty": JSON_TEXT,
}


class UnloadableProtobuf(ValueError):
    """A Protobuf schema whose values cannot become a table's rows: it declares no message."""


def table_message(file: FileDescriptorProto) -> str:
    """The full name of the message a topic's table is of: the file's first (message index `[0]`)."""
    if not file.message_type:
        raise UnloadableProtobuf("the schema declares no message (a table's row is a message)")
    package = f"{file.package}." if file.package else ""
    return package + file.message_type[0].name


def table_schema(file: FileDescriptorProto, dependencies: Sequence[FileDescriptorProto] = ()) -> dict:
    """The table's record (Avro's JSON form) for values of the file's first message."""
    messages = dict(_messages([*dependencies, file]))
    return _record(messages, table_message(file), ())


def _messages(files: Sequence[FileDescriptorProto]) -> Iterator[tuple[str, DescriptorProto]]:
    """Every message of the files, nested ones included, by full name."""
    for file in files:
        prefix = f"{file.package}." if file.package else ""
        for message in file.message_type:
            yield from _nested(message, prefix)


def _nested(message: DescriptorProto, prefix: str) -> Iterator[tuple[str, DescriptorProto]]:
    name = prefix + message.name
    yield name, message
    for inner in message.nested_type:
        yield from _nested(inner, f"{name}.")


def _record(messages: dict[str, DescriptorProto], name: str, walking: tuple[str, ...]) -> dict:
    message = messages[name]
    fields = [
        {
            "name": field.name,
            "type": ["null", _field_type(messages, field, (*walking, name))],
            "default": None,
        }
        for field in message.field
    ]
    return {"type": "record", "name": name, "fields": fields}


def _field_type(
    messages: dict[str, DescriptorProto], field: FieldDescriptorProto, walking: tuple[str, ...]
) -> Any:
    if field.type == _F.TYPE_MESSAGE:
        target = field.type_name.lstrip(".")
        entry = messages.get(target)
        if entry is not None and entry.options.map_entry:
            _, value = entry.field  # a map entry is (key = 1, value = 2)
            return {"type": "map", "values": _single_type(messages, value, walking)}
    single = _single_type(messages, field, walking)
    if field.label == _F.LABEL_REPEATED:
        return {"type": "array", "items": single}
    return single


def _single_type(
    messages: dict[str, DescriptorProto], field: FieldDescriptorProto, walking: tuple[str, ...]
) -> Any:
    if field.type in (_F.TYPE_MESSAGE, _F.TYPE_GROUP):
        target = field.type_name.lstrip(".")
        if target in _WELL_KNOWN:
            return _WELL_KNOWN[target]
        if target in walking:
            return JSON_TEXT  # a message that contains itself has no fixed depth: its JSON text
        return _record(messages, target, walking)
    return _SCALARS[field.type]
