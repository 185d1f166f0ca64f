"""A parsed Protobuf schema: the text as given, its compiled file and the forms the registry compares."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from google.protobuf.descriptor_pb2 import FileDescriptorProto
from google.protobuf.message import Message

from registry.schema_types.protobuf.options import readable_options
from registry.schema_types.protobuf.positions import source_positions
from registry.schema_types.protobuf.printer import proto_text, syntax_of

if TYPE_CHECKING:
    from registry.schema_types.protobuf.model import Types


@dataclass(frozen=True)
class ParsedProtobuf:
    """A valid Protobuf schema; build it with :func:`registry.schema_types.protobuf.parsing.parse_protobuf`.

    ``text`` is the ``.proto`` text as sent, or, for a schema sent as a base64 descriptor, its canonical
    text (what the registry stores and answers, as Confluent does).

    ``file`` is the schema's compiled ``FileDescriptorProto`` (named ``default``, as Confluent names a
    schema's own file), ``dependencies`` every file it imports, directly or not, each after the files it
    imports, named by the import paths used. Both are shared and must not be changed.

    ``canonical`` is the ``.proto`` text printed from ``file`` (:mod:`~.printer`): what two texts differing
    only in layout, comments, option order or how they qualify type names share. The identity is the same
    text: declaration order, options, defaults and JSON names all change what a schema is (Confluent's
    own identity, ``canonicalString()``, also keeps declaration order and drops comments).
    """

    schema_type: ClassVar[str] = "PROTOBUF"
    text: str
    canonical: str
    fingerprint: str
    file: FileDescriptorProto = field(repr=False, compare=False)
    dependencies: tuple[FileDescriptorProto, ...] = field(repr=False, compare=False)
    #: Whether ``text`` is the ``.proto`` source as sent (not the text of a descriptor sent).
    from_source: bool = field(default=True, compare=False)

    @property
    def identity(self) -> str:
        return self.canonical

    @property
    def package(self) -> str:
        return self.file.package

    @property
    def syntax(self) -> str:
        return syntax_of(self.file)

    def serialized(self) -> str:
        """The base64 ``FileDescriptorProto``, as ``GET /schemas/ids/{id}?format=serialized`` answers."""
        return base64.b64encode(self.file.SerializeToString(deterministic=True)).decode("ascii")

    @cached_property
    def positions(self) -> Mapping[str, tuple[int, int]]:
        """Where the file's declarations start in ``text`` (line, column), by the rules' pointers; empty
        for a schema sent as a descriptor. Compiled again for it, when asked: the schema check and the
        page ask for a conflict's line, while registering and looking up never do."""
        return source_positions(self.text, self.dependencies) if self.from_source else {}

    @cached_property
    def normalized(self) -> str:
        """The text Confluent's ``normalize=true`` would store (see :mod:`~.printer`)."""
        return proto_text(self.readable_file, normalize=True)

    @cached_property
    def readable_file(self) -> Message:
        """``file`` with its custom options readable (``(confluent.field_meta)``)."""
        return readable_options(self.file, self.dependencies)

    @cached_property
    def types(self) -> Types:
        """Every message and enum the schema can name, its own and its dependencies'."""
        from registry.schema_types.protobuf.model import Types

        return Types(self)
