"""The interface every schema type the registry stores implements, and what it hands back.

Learnt from Confluent's ``SchemaProvider`` and ``ParsedSchema``: a type parses a schema's text, with the
schemas its references name, into a parsed schema that knows its canonical and identity forms; the type
then compares parsed schemas under a compatibility level, says what changed between two of them, and
shows one as a tree of fields. The API, storage, the schema check and the page ask these and nothing
else of a schema, so they never branch on a type's name (``registry.schema_types.schema_type``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from registry.compatibility import Change, CompatibilityLevel, Conflict


class Parsed(Protocol):
    """A valid schema of some type, parsed once and compared many times (immutable)."""

    @property
    def schema_type(self) -> str:
        """The name of its type (``AVRO``)."""
        ...

    @property
    def text(self) -> str:
        """The text as given."""
        ...

    @property
    def canonical(self) -> str:
        """The type's canonical form: what readers and writers agree on (Avro's Parsing Canonical Form)."""
        ...

    @property
    def identity(self) -> str:
        """The form two texts of the same schema share, and two different schemas never do: what makes
        a registration the same version and id (docs, defaults and the like kept)."""
        ...

    @property
    def normalized(self) -> str:
        """The text ``normalize=true`` registers, looks up and compares, as Confluent's ``normalize()``
        makes it (Avro's and JSON Schema's: their identity form; Protobuf's: fields by number, options,
        imports and reserved ranges sorted). It parses to a schema whose ``normalized`` is itself."""
        ...

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the canonical form, in hex."""
        ...


@dataclass(frozen=True)
class Reference:
    """A schema another one refers to, by the name the referring text uses for it: an Avro type's full
    name (Avro finds its types by their own names), a Protobuf ``import`` path, a JSON Schema ``$ref``."""

    name: str
    schema: Parsed


@dataclass(frozen=True)
class FieldRow:
    """One line of a schema's field tree: what a person reads instead of the schema's text.

    ``path`` is in the rules' notation (``PageView.user.addresses[].city``); ``detail`` holds what does not
    fit a type name (symbols, sizes, where a type shown before is expanded); ``tags`` are the field's own.
    ``is_field`` is false for the rows of the top-level type and of a union's branches, which a data
    contract's tags do not name.
    """

    depth: int
    name: str
    path: str
    type: str
    default: str | None = None
    doc: str | None = None
    detail: str | None = None
    tags: tuple[str, ...] = ()
    is_field: bool = field(default=True, compare=False)


@dataclass(frozen=True)
class FieldTree:
    """A schema's rows, the top-level type first; ``namespace`` is what a path may be named with in
    front too (a data contract's tag patterns may name ``com.example.Customer.email``)."""

    rows: tuple[FieldRow, ...]
    namespace: str | None = None


class SchemaType(Protocol):
    """One schema type: every decision about its schemas, pure (no I/O)."""

    @property
    def name(self) -> str:
        """As the API says it (``schemaType``)."""
        ...

    @property
    def file_suffix(self) -> str:
        """How a file holding one schema of this type is named (``.avsc``): the schema check finds files by
        it, and the page names a download with it."""
        ...

    @property
    def media_type(self) -> str:
        """The media type of a schema's text as a file (the page's download)."""
        ...

    @property
    def text_is_json(self) -> bool:
        """Whether a schema's text is JSON: the JSON pointers of its problems and conflicts then lead to a
        line and column of the text, and the page indents it for reading. (Protobuf's text is not; its
        pointers lead into the compiled descriptor.)"""
        ...

    @property
    def field_policies(self) -> bool:
        """Whether the schema check's house rules over fields' docs and defaults (``--require-docs``,
        ``--require-defaults``) apply to this type's schemas: they read Avro's records."""
        ...

    def file_references(self, text: str) -> tuple[str, ...]:
        """The names under which a schema file's ``text`` refers to other schema files (an import path, a
        ``$ref``'s document), each once, in the order written: the names its references will have. Text
        that does not parse names none (parsing says what is wrong with it)."""
        ...

    def parse(self, text: str, references: Sequence[Reference] = ()) -> Parsed:
        """The schema ``text`` is, given the schemas its references name; raises
        ``registry.compatibility.InvalidSchemaError`` listing every problem, with positions where known."""
        ...

    def conflicts(
        self, new: Parsed, existing: Sequence[tuple[int, Parsed]], level: CompatibilityLevel | str
    ) -> list[Conflict]:
        """Why ``new`` may not follow ``existing`` (``(version, schema)``, oldest first) under ``level``."""
        ...

    def reads(self, reader: Parsed, writer: Parsed) -> bool:
        """Whether data written with ``writer`` is always read by ``reader``."""
        ...

    def diff(self, old: Parsed, new: Parsed) -> list[Change]:
        """What changed from ``old`` to ``new``, field by field, for people."""
        ...

    def field_tree(self, schema: Parsed) -> FieldTree:
        """``schema`` as rows of fields."""
        ...

    def formatted(self, schema: Parsed, format: str) -> str | None:
        """``schema`` in the type's ``format`` (``GET /schemas/ids/{id}?format=...``; Protobuf's
        ``serialized``: the base64 ``FileDescriptorProto``), or None for a format the type does not have,
        which answers the text as stored, as Confluent answers an unknown format."""
        ...

    def readable(self, schema: Parsed) -> str:
        """The identity form laid out for reading, one item per line: what the page's text diff compares,
        so that layout and order do not show as changes."""
        ...

    def search_entries(self, schema: Parsed) -> tuple[tuple[str, str, str], ...]:
        """What a search for people looks in (:mod:`~registry.schema_types.search_entries`): ``(kind,
        where, text)`` for each name, namespace, symbol and doc."""
        ...

    def positions(self, schema: Parsed) -> Mapping[str, tuple[int, int]]:
        """Where the pointers of the type's conflicts lead in ``schema``'s text (line and column, 1-based),
        for a text that is not JSON (a JSON text's pointers lead into it as they are): empty where the
        type cannot tell (a Protobuf schema sent as a descriptor)."""
        ...
