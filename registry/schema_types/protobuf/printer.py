"""A ``.proto`` text printed from a compiled file: the canonical form, and Confluent's normalized one.

Printing from the compiled descriptor rather than reformatting the text is what makes the forms
independent of how a schema was written: comments and layout are gone, type names are fully qualified
(``.shop.Order``), options come in field-number order, and a base64 ``FileDescriptorProto`` prints the
same as the text it was compiled from.

The canonical form keeps the declaration order of messages, enums, fields and enum values: Confluent's
message indexes count messages in that order, and people read fields in it. A oneof is printed where its
first member is declared; a map field as ``map<K, V>`` (its entry message hidden); a group with its body.

The normalized form (``normalize=true``) does what Confluent's ``ProtobufSchema.normalize()`` does:
fields sorted by number with the oneofs after them (ordered by their first member), enum values by
number, imports sorted, options sorted by name, reserved ranges and names one by one and sorted, and no
``syntax`` line for proto2 (its default). Messages and enums keep their order, as message indexes need.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf.descriptor_pb2 import Edition, FieldDescriptorProto
from google.protobuf.message import Message

from registry.schema_types.protobuf.options import option_items, quoted

#: The largest field number (``max`` in ranges); descriptor ranges end one past it.
MAX_FIELD_NUMBER = 536_870_911

_SCALARS = {number: name.removeprefix("TYPE_").lower() for name, number in FieldDescriptorProto.Type.items()}
_TYPE_MESSAGE = FieldDescriptorProto.TYPE_MESSAGE
_TYPE_GROUP = FieldDescriptorProto.TYPE_GROUP
_REPEATED = FieldDescriptorProto.LABEL_REPEATED
_REQUIRED = FieldDescriptorProto.LABEL_REQUIRED


def proto_text(file: Message, *, normalize: bool = False) -> str:
    """``file`` (a ``FileDescriptorProto``, custom options readable) as ``.proto`` text."""
    printer = _Printer(file, normalize)
    printer.print_file()
    return "\n".join(printer.lines) + "\n"


def json_name(name: str) -> str:
    """The JSON name protoc gives a field that declares none (``order_id`` -> ``orderId``)."""
    parts = name.split("_")
    return parts[0] + "".join(part[:1].upper() + part[1:] for part in parts[1:])


def syntax_of(file: Message) -> str:
    """``proto2``, ``proto3`` or ``editions`` (a file that says nothing is proto2)."""
    return file.syntax or "proto2"  # type: ignore[attr-defined]


def field_label(field: Any, syntax: str) -> str | None:
    """The label a ``.proto`` text writes: ``repeated``, ``required``, ``optional`` or None (proto3's
    implicit presence, and editions), as Confluent's parser sees it."""
    if field.label == _REPEATED:
        return "repeated"
    if field.label == _REQUIRED:
        return "required"
    if syntax == "proto2" or field.proto3_optional:
        return "optional"
    return None


def real_oneofs(message: Any) -> set[int]:
    """The indexes of a message's declared oneofs (not the synthetic ones of proto3 ``optional``)."""
    return {f.oneof_index for f in message.field if f.HasField("oneof_index") and not f.proto3_optional}


def hidden_types(message: Any, full_name: str) -> dict[str, tuple[str, Any]]:
    """The nested messages a field prints itself: map entries (``map``) and group bodies (``group``)."""
    nested = {f"{full_name}.{n.name}": n for n in message.nested_type}
    hidden = {}
    for field in message.field:
        inner = nested.get(field.type_name)
        if inner is None:
            continue
        if field.type == _TYPE_GROUP:
            hidden[field.type_name] = ("group", inner)
        elif field.type == _TYPE_MESSAGE and field.label == _REPEATED and inner.options.map_entry:
            hidden[field.type_name] = ("map", inner)
    return hidden


def scalar_name(field: Any) -> str:
    return _SCALARS[field.type]


def _ranges(ranges: Iterable[Any]) -> list[str]:
    """Descriptor ranges (end exclusive) as a text writes them: ``5``, ``9 to 11``, ``100 to max``."""
    out = []
    for each in ranges:
        last = each.end - 1
        if last == each.start:
            out.append(str(each.start))
        else:
            out.append(f"{each.start} to {'max' if last >= MAX_FIELD_NUMBER else last}")
    return out


class _Printer:
    def __init__(self, file: Message, normalize: bool) -> None:
        self.file = file
        self.normalize = normalize
        self.syntax = syntax_of(file)
        self.lines: list[str] = []

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def gap(self) -> None:
        if self.lines and self.lines[-1]:
            self.lines.append("")

    def options(self, options: Message) -> list[tuple[str, str]]:
        items = option_items(options)
        return sorted(items, key=lambda item: item[0].strip("()")) if self.normalize else items

    def option_lines(self, depth: int, options: Message) -> None:
        for name, value in self.options(options):
            self.emit(depth, f"option {name} = {value};")

    def print_file(self) -> None:
        file: Any = self.file
        if self.syntax == "editions":
            self.emit(0, f'edition = "{Edition.Name(file.edition).removeprefix("EDITION_")}";')
        elif not (self.normalize and self.syntax == "proto2"):
            self.emit(0, f'syntax = "{self.syntax}";')
        if file.package:
            self.emit(0, f"package {file.package};")
        public, weak = set(file.public_dependency), set(file.weak_dependency)
        imports = [
            "import " + ("public " if i in public else "weak " if i in weak else "") + quoted(name) + ";"
            for i, name in enumerate(file.dependency)
        ]
        self.gap()
        for line in sorted(set(imports)) if self.normalize else imports:
            self.emit(0, line)
        self.gap()
        self.option_lines(0, file.options)
        prefix = f".{file.package}" if file.package else ""
        for message in file.message_type:
            self.gap()
            self.message(0, message, f"{prefix}.{message.name}")
        for enum in file.enum_type:
            self.gap()
            self.enum(0, enum)
        self.gap()
        self.extends(0, file.extension)
        for service in file.service:
            self.gap()
            self.service(service)
        while self.lines and not self.lines[-1]:
            self.lines.pop()

    def message(self, depth: int, message: Any, full_name: str) -> None:
        self.emit(depth, f"message {message.name} {{")
        self.body(depth + 1, message, full_name)
        self.emit(depth, "}")

    def body(self, depth: int, message: Any, full_name: str) -> None:
        self.option_lines(depth, message.options)
        hidden = hidden_types(message, full_name)
        self.fields(depth, message, hidden)
        for nested in message.nested_type:
            if f"{full_name}.{nested.name}" not in hidden:
                self.message(depth, nested, f"{full_name}.{nested.name}")
        for enum in message.enum_type:
            self.enum(depth, enum)
        for each in message.extension_range:
            options = self.options(each.options)
            suffix = " [" + ", ".join(f"{n} = {v}" for n, v in options) + "]" if options else ""
            self.emit(depth, f"extensions {_ranges([each])[0]}{suffix};")
        self.extends(depth, message.extension)
        self.reserved(depth, message.reserved_range, message.reserved_name)

    def fields(self, depth: int, message: Any, hidden: dict[str, tuple[str, Any]]) -> None:
        oneofs = real_oneofs(message)
        members: dict[int, list[Any]] = {index: [] for index in sorted(oneofs)}
        plain = []
        for field in message.field:
            in_oneof = field.HasField("oneof_index") and field.oneof_index in oneofs
            (members[field.oneof_index] if in_oneof else plain).append(field)
        if self.normalize:
            for field in sorted(plain, key=lambda f: f.number):
                self.field(depth, field, hidden)
            for index in sorted(members, key=lambda i: min(f.number for f in members[i])):
                by_number = sorted(members[index], key=lambda f: f.number)
                self.oneof(depth, message.oneof_decl[index], by_number, hidden)
            return
        printed: set[int] = set()
        for field in message.field:
            index = field.oneof_index if field.HasField("oneof_index") else None
            if index is None or index not in oneofs:
                self.field(depth, field, hidden)
            elif index not in printed:
                printed.add(index)
                self.oneof(depth, message.oneof_decl[index], members[index], hidden)

    def oneof(self, depth: int, oneof: Any, fields: list[Any], hidden: dict[str, tuple[str, Any]]) -> None:
        self.emit(depth, f"oneof {oneof.name} {{")
        self.option_lines(depth + 1, oneof.options)
        for field in fields:
            self.field(depth + 1, field, hidden, in_oneof=True)
        self.emit(depth, "}")

    def field(
        self, depth: int, field: Any, hidden: dict[str, tuple[str, Any]], in_oneof: bool = False
    ) -> None:
        shape, inner = hidden.get(field.type_name, (None, None))
        label = None if in_oneof or shape == "map" else field_label(field, self.syntax)
        if shape == "map":
            key, value = inner.field[0], inner.field[1]
            type_text = f"map<{self.type_text(key)}, {self.type_text(value)}>"
        else:
            type_text = "group" if shape == "group" else self.type_text(field)
        options = []
        if field.HasField("default_value"):
            options.append(("default", self.default_text(field)))
        if field.HasField("json_name") and field.json_name != json_name(field.name):
            options.append(("json_name", quoted(field.json_name)))
        options += self.options(field.options)
        suffix = " [" + ", ".join(f"{n} = {v}" for n, v in options) + "]" if options else ""
        name = inner.name if shape == "group" else field.name
        head = f"{label + ' ' if label else ''}{type_text} {name} = {field.number}{suffix}"
        if shape != "group":
            self.emit(depth, head + ";")
            return
        self.emit(depth, head + " {")
        self.body(depth + 1, inner, field.type_name)
        self.emit(depth, "}")

    @staticmethod
    def type_text(field: Any) -> str:
        return field.type_name or scalar_name(field)  # a message, group or enum type is named

    @staticmethod
    def default_text(field: Any) -> str:
        if field.type == FieldDescriptorProto.TYPE_STRING:
            return quoted(field.default_value)
        if field.type == FieldDescriptorProto.TYPE_BYTES:
            return f'"{field.default_value}"'  # protoc keeps a bytes default escaped
        return str(field.default_value)

    def enum(self, depth: int, enum: Any) -> None:
        self.emit(depth, f"enum {enum.name} {{")
        self.option_lines(depth + 1, enum.options)
        values = sorted(enum.value, key=lambda v: (v.number, v.name)) if self.normalize else enum.value
        for value in values:
            options = self.options(value.options)
            suffix = " [" + ", ".join(f"{n} = {v}" for n, v in options) + "]" if options else ""
            self.emit(depth + 1, f"{value.name} = {value.number}{suffix};")
        self.reserved(depth + 1, enum.reserved_range, enum.reserved_name, inclusive=True)
        self.emit(depth, "}")

    def reserved(self, depth: int, ranges: Any, names: Any, inclusive: bool = False) -> None:
        """Reserved numbers and names (an enum's ranges include their end, a message's do not)."""
        spans = [_Span(r.start, r.end + 1 if inclusive else r.end) for r in ranges]
        if self.normalize:
            for span in sorted(spans, key=lambda s: s.start):
                self.emit(depth, f"reserved {_ranges([span])[0]};")
            for name in sorted(names):
                self.emit(depth, f"reserved {quoted(name)};")
            return
        if spans:
            self.emit(depth, f"reserved {', '.join(_ranges(spans))};")
        if names:
            self.emit(depth, f"reserved {', '.join(quoted(n) for n in names)};")

    def extends(self, depth: int, extensions: Any) -> None:
        """``extend`` blocks, one per extended message, in the order the extensions are declared."""
        groups: dict[str, list[Any]] = {}
        for field in extensions:
            groups.setdefault(field.extendee, []).append(field)
        for extendee, fields in groups.items():
            self.emit(depth, f"extend {extendee} {{")
            for field in sorted(fields, key=lambda f: f.number) if self.normalize else fields:
                self.field(depth + 1, field, {})
            self.emit(depth, "}")

    def service(self, service: Any) -> None:
        self.emit(0, f"service {service.name} {{")
        self.option_lines(1, service.options)
        for method in service.method:
            given = "stream " if method.client_streaming else ""
            taken = "stream " if method.server_streaming else ""
            head = f"rpc {method.name}({given}{method.input_type}) returns ({taken}{method.output_type})"
            options = self.options(method.options)
            if not options:
                self.emit(1, head + ";")
                continue
            self.emit(1, head + " {")
            for name, value in options:
                self.emit(2, f"option {name} = {value};")
            self.emit(1, "}")
        self.emit(0, "}")


class _Span:
    """A range with an exclusive end, as a message's reserved and extension ranges are."""

    def __init__(self, start: int, end: int) -> None:
        self.start = start
        self.end = end
