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

A topic's own table is of the file's first message (message index `[0]`, what Confluent's serializers
write for a file's only message); a record whose message indexes name another message of its writer's
file is that message's, which gets a table of its own, as an event type of the topic
(`message_paths`, `loader.run.topic_pass`). A field renamed under the same number carries its former
names as Avro aliases (`former_names`), which a table format may take for a rename.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
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


def table_schema(
    file: FileDescriptorProto,
    dependencies: Sequence[FileDescriptorProto] = (),
    message: str | None = None,
    former: Mapping[str, Mapping[str, tuple[str, ...]]] | None = None,
) -> dict:
    """The table's record (Avro's JSON form) for values of `message` (by default the file's first);
    `former`: each message's fields' former names (`former_names`), which become their aliases."""
    messages = dict(_messages([*dependencies, file]))
    name = message or table_message(file)
    if name not in messages:
        raise UnloadableProtobuf(f"the schema has no message {name}")
    return _record(messages, name, (), former or {})


def message_paths(file: FileDescriptorProto) -> dict[str, str]:
    """Every message of the file by its message indexes as Confluent's framing writes them, as text
    (`0`, `1`, `0.2` for the third message nested in the first): its full name. Map entries, which no
    record is, are left out."""
    found: dict[str, str] = {}
    package = f"{file.package}." if file.package else ""

    def walk(siblings: Sequence[DescriptorProto], prefix: str, path: str) -> None:
        for index, message in enumerate(siblings):
            if message.options.map_entry:
                continue
            at = f"{path}.{index}" if path else str(index)
            found[at] = prefix + message.name
            walk(message.nested_type, f"{prefix}{message.name}.", at)

    walk(file.message_type, package, "")
    return found


def former_names(
    latest: Sequence[FileDescriptorProto], earlier: Sequence[Sequence[FileDescriptorProto]]
) -> dict[str, dict[str, tuple[str, ...]]]:
    """Message full name -> field name -> the names the same field number had in `earlier` versions'
    files (each version's files, imports included) and no longer has: a field renamed under its number."""
    now = {name: {f.number: f.name for f in m.field} for name, m in _messages(latest)}
    found: dict[str, dict[str, set[str]]] = {}
    for files in earlier:
        for name, message in _messages(files):
            fields = now.get(name, {})
            for field in message.field:
                current = fields.get(field.number)
                if current is not None and current != field.name:
                    found.setdefault(name, {}).setdefault(current, set()).add(field.name)
    return {m: {f: tuple(sorted(names)) for f, names in fs.items()} for m, fs in found.items()}


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


def _record(
    messages: dict[str, DescriptorProto],
    name: str,
    walking: tuple[str, ...],
    former: Mapping[str, Mapping[str, tuple[str, ...]]],
) -> dict:
    message = messages[name]
    renamed = former.get(name, {})
    fields = []
    for field in message.field:
        column = {
            "name": field.name,
            "type": ["null", _field_type(messages, field, (*walking, name), former)],
            "default": None,
        }
        if field.name in renamed:
            column["aliases"] = list(renamed[field.name])
        fields.append(column)
    return {"type": "record", "name": name, "fields": fields}


def _field_type(
    messages: dict[str, DescriptorProto],
    field: FieldDescriptorProto,
    walking: tuple[str, ...],
    former: Mapping[str, Mapping[str, tuple[str, ...]]],
) -> Any:
    if field.type == _F.TYPE_MESSAGE:
        target = field.type_name.lstrip(".")
        entry = messages.get(target)
        if entry is not None and entry.options.map_entry:
            _, value = entry.field  # a map entry is (key = 1, value = 2)
            return {"type": "map", "values": _single_type(messages, value, walking, former)}
    single = _single_type(messages, field, walking, former)
    if field.label == _F.LABEL_REPEATED:
        return {"type": "array", "items": single}
    return single


def _single_type(
    messages: dict[str, DescriptorProto],
    field: FieldDescriptorProto,
    walking: tuple[str, ...],
    former: Mapping[str, Mapping[str, tuple[str, ...]]],
) -> Any:
    if field.type in (_F.TYPE_MESSAGE, _F.TYPE_GROUP):
        target = field.type_name.lstrip(".")
        if target in _WELL_KNOWN:
            return _WELL_KNOWN[target]
        if target in walking:
            return JSON_TEXT  # a message that contains itself has no fixed depth: its JSON text
        return _record(messages, target, walking, former)
    return _SCALARS[field.type]
