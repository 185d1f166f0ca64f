"""Schema text to :class:`ParsedProtobuf`: ``.proto`` source or a base64 ``FileDescriptorProto``.

Confluent's registry accepts both, and confluent-kafka-python's ProtobufSerializer sends the second. They
cannot be confused: base64 is letters, digits, ``+``, ``/`` and ``=``, and a non-empty ``.proto`` file
needs at least a ``;`` or a ``{``. Either way protoc (through the compiler worker) checks the schema and
resolves every name; the schemas its ``import``\\s name come from the references (a reference's name is
the import path), or are built in (:mod:`~.builtins`).

Limits: ``MAX_SCHEMA_BYTES`` of UTF-8 text, messages nested at most ``MAX_MESSAGE_NESTING`` deep (where
protoc's parser stops; the check also covers descriptors, which that parser never sees). Recursive
messages and large enums are fine. Parsing is deterministic, so a caller may cache it by text and
references.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Sequence

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.descriptor_pb2 import FileDescriptorProto
from google.protobuf.message import DecodeError, Message

from registry.compatibility import InvalidSchemaError, SchemaProblem
from registry.schema_types.base import Reference
from registry.schema_types.protobuf.builtins import described, include_dirs, is_builtin
from registry.schema_types.protobuf.compiler import (
    SCHEMA_FILE,
    Compiler,
    CompilerFailed,
    CompilerMessage,
    shared_compiler,
)
from registry.schema_types.protobuf.options import readable_options
from registry.schema_types.protobuf.parsed import ParsedProtobuf
from registry.schema_types.protobuf.printer import proto_text

#: The largest schema text accepted, in bytes of UTF-8 (a base64 descriptor counts as its text).
MAX_SCHEMA_BYTES = 1_000_000
#: How deep messages may be declared inside messages (a top-level message is at depth 1): protoc's own
#: limit for text, applied to descriptors too.
MAX_MESSAGE_NESTING = 31
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]+")
_IMPORT_FAILED = re.compile(r'Import "(?P<path>[^"]+)" was not found or had errors\.')


def parse_protobuf(
    text: str, references: Sequence[Reference] = (), compiler: Compiler | None = None
) -> ParsedProtobuf:
    """The schema ``text`` is (``.proto`` source, or a base64 ``FileDescriptorProto``, which it keeps as
    its ``.proto`` text); raises :class:`InvalidSchemaError` listing protoc's complaints, with line and
    column where the text is ``.proto`` source."""
    _check_text(text)
    given = _referenced_files(references)
    descriptor = _descriptor_form(text)
    worker = compiler or shared_compiler()
    try:
        if descriptor is None:
            compiled = worker.compile(SCHEMA_FILE, include_dirs(), {SCHEMA_FILE: text}, given)
        else:
            compiled = worker.compile(SCHEMA_FILE, include_dirs(), None, [*given, descriptor])
    except CompilerFailed as exc:
        raise InvalidSchemaError([SchemaProblem("", str(exc))]) from None
    if not compiled.ok:
        raise InvalidSchemaError(_problems(compiled.messages))
    *dependencies, file = compiled.files
    _check_compiled(file)
    try:
        canonical = proto_text(readable_options(file, dependencies))
    except (TypeError, ValueError, DecodeError) as exc:  # an option the Python runtime cannot read
        raise InvalidSchemaError([SchemaProblem("", f"the schema's options cannot be read: {exc}")]) from None
    fingerprint = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    # A schema sent as a descriptor is kept as its `.proto` text, as Confluent stores it (clients that
    # want the descriptor ask for `format=serialized`).
    kept = text if descriptor is None else canonical
    return ParsedProtobuf(kept, canonical, fingerprint, file, tuple(dependencies), descriptor is None)


def _check_text(text: str) -> None:
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        message = f"the schema is not valid UTF-8 text (character {exc.start + 1} cannot be encoded)"
        raise InvalidSchemaError([SchemaProblem("", message)]) from None
    if size > MAX_SCHEMA_BYTES:
        message = f"the schema is {size} bytes long; the registry accepts at most {MAX_SCHEMA_BYTES}"
        raise InvalidSchemaError([SchemaProblem("", message)])


def _descriptor_form(text: str) -> FileDescriptorProto | None:
    """The ``FileDescriptorProto`` a base64 text encodes (named ``default``), or None for ``.proto`` text."""
    if not text.strip() or not _BASE64.fullmatch(text):
        return None
    try:
        descriptor = FileDescriptorProto.FromString(base64.b64decode("".join(text.split()), validate=True))
    except (binascii.Error, ValueError, DecodeError) as exc:
        message = f"the schema is neither .proto text nor a base64-encoded FileDescriptorProto ({exc})"
        raise InvalidSchemaError([SchemaProblem("", message)]) from None
    descriptor.name = SCHEMA_FILE
    return descriptor


def _referenced_files(references: Sequence[Reference]) -> list[FileDescriptorProto]:
    """The compiled files the references give, each under the import path that names it, with the files
    they import themselves; built-in paths are left to the compiler (a reference cannot replace them)."""
    found: dict[str, FileDescriptorProto] = {}
    for reference in references:
        schema = reference.schema
        if not isinstance(schema, ParsedProtobuf):
            message = (
                f'the reference "{reference.name}" is a {schema.schema_type} schema; '
                "a Protobuf schema can import Protobuf schemas only"
            )
            raise InvalidSchemaError([SchemaProblem("", message)])
        if reference.name == SCHEMA_FILE:
            message = f'a reference may not be named "{SCHEMA_FILE}", the name of the schema\'s own file'
            raise InvalidSchemaError([SchemaProblem("", message)])
        for dependency in schema.dependencies:
            if not is_builtin(dependency.name):
                found.setdefault(dependency.name, dependency)
        if not is_builtin(reference.name) and reference.name not in found:
            own = FileDescriptorProto()
            own.CopyFrom(schema.file)
            own.name = reference.name
            found[reference.name] = own
    return list(found.values())


def _problems(messages: Sequence[CompilerMessage]) -> list[SchemaProblem]:
    missing = {m.file for m in messages if m.text == "File not found."}
    problems = []
    for message in messages:
        if message.is_warning or message.text == "File not found.":
            continue
        text = message.text
        failed = _IMPORT_FAILED.fullmatch(text)
        if failed is not None and (failed["path"] in missing or message.line is None):
            path = failed["path"]
            text = (
                f'import "{path}" is not found: it is neither one of the schema\'s references (name a '
                f'reference "{path}") nor a file the registry knows ({described()})'
            )
        if message.file == SCHEMA_FILE:
            problems.append(SchemaProblem("", text, message.line, message.column))
        else:
            problems.append(SchemaProblem("", f"{message.file}: {text}" if message.file else text))
    for path in sorted(missing - {SCHEMA_FILE}):
        if not any(path in p.message for p in problems):
            problems.append(SchemaProblem("", f'import "{path}" is not found'))
    return problems or [SchemaProblem("", "protoc refused the schema without saying why")]


def _check_compiled(file: FileDescriptorProto) -> None:
    """What protoc lets through but the registry does not: deep nesting (a descriptor is not parsed by
    protoc's parser, which has its own limit) and strings that are not UTF-8 (proto2's ``string``)."""
    pending = [(message, 1) for message in file.message_type]
    while pending:
        message, depth = pending.pop()
        if depth > MAX_MESSAGE_NESTING:
            text = f"messages are nested more than {MAX_MESSAGE_NESTING} deep (at {message.name})"
            raise InvalidSchemaError([SchemaProblem("", text)])
        pending.extend((nested, depth + 1) for nested in message.nested_type)
    bad = _undecodable(file)
    if bad is not None:
        raise InvalidSchemaError([SchemaProblem(bad, "the schema holds a string that is not valid UTF-8")])


def _undecodable(root: Message) -> str | None:
    """A pointer to a string field of ``root`` (or below) whose bytes are not UTF-8, or None."""
    pending: list[tuple[Message, str]] = [(root, "")]
    while pending:
        message, pointer = pending.pop()
        for field, value in message.ListFields():
            values = list(value) if field.is_repeated else [value]
            for index, one in enumerate(values):
                here = f"{pointer}/{field.name}" + (f"/{index}" if field.is_repeated else "")
                if field.type == FieldDescriptor.TYPE_STRING and isinstance(one, bytes):
                    return here
                if field.type == FieldDescriptor.TYPE_MESSAGE:
                    pending.append((one, here))
    return None
