"""A Protobuf schema compiled, with the files it imports, by protoc (the compiler `grpcio-tools` ships, a
core dependency): what the loader makes a Protobuf topic's table and decoder of.

The registry has already compiled the same text when it was registered, so this is not where a hostile
schema is met; protoc runs in this process, in a directory of its own. A schema imports its references by
their names (import paths), Google's well-known types resolve from protoc's own files; Confluent's own
(`confluent/meta.proto`, `confluent/type/decimal.proto`) resolve only when the subject references them.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import grpc_tools
from google.protobuf.descriptor_pb2 import FileDescriptorProto, FileDescriptorSet
from grpc_tools import protoc

WELL_KNOWN = Path(grpc_tools.__file__).parent / "_proto"
SCHEMA_FILE = "subject-schema.proto"  # the schema's own file, beside its imports


class Document(Protocol):
    text: str


class ProtobufCompileError(ValueError):
    """protoc refused the schema or one of the files it imports."""


def compiled(schema: Document, referenced: Mapping[str, Document]) -> list[FileDescriptorProto]:
    """The schema's file and every file it imports, imports first (the schema's own last)."""
    with tempfile.TemporaryDirectory(prefix="loader-protobuf-") as workdir:
        root = Path(workdir)
        for name, document in {**referenced, SCHEMA_FILE: schema}.items():
            path = (root / "files" / name).resolve()
            if not path.is_relative_to(root / "files"):
                raise ProtobufCompileError(f"the reference name {name!r} is no import path")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(document.text, encoding="utf-8")
        out = root / "files.pb"
        argv = [
            "protoc",
            f"-I{root / 'files'}",
            f"-I{WELL_KNOWN}",
            "--include_imports",
            f"--descriptor_set_out={out}",
            SCHEMA_FILE,
        ]
        if protoc.main(argv) != 0 or not out.exists():
            raise ProtobufCompileError("protoc refused the schema or a file it imports (its stderr says why)")
        return list(FileDescriptorSet.FromString(out.read_bytes()).file)
