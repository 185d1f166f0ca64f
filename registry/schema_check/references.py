"""A schema file's references to other files of ``schemas/``: which files they are, parsed with theirs.

A Protobuf file's ``import "customer.proto";`` and a JSON schema's ``"$ref": "customer.json#/$defs/x"``
name other schema files (``SchemaType.file_references``). A name is a path relative to the referring
file's directory, else to the schemas directory (protoc's ``--proto_path``); the file found is a schema
file of the layout, with its own subject, under which ``registry push`` registers it before the files
that refer to it. A name that finds no file is left out: parsing then says the reference is missing, at
its line where the type knows it.

The same lookups serve the files being committed and the files as committed at a git revision (the
offline baseline): only the reader of a path's text differs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from registry.compatibility import InvalidSchemaError
from registry.schema_check.checker import INVALID_SCHEMA, FileResult, Finding, Status
from registry.schema_check.history import GitError, file_at_revision
from registry.schema_check.layout import LayoutError, SchemaFile, schema_file
from registry.schema_check.source_positions import NOWHERE
from registry.schema_types import Parsed, Reference

__all__ = ["FileReference", "FileSchemas", "ReferenceProblem", "TextReader", "at_revision", "in_work_tree"]

#: The text of a path in one source (the work tree, a git revision), or None where it has no such file.
TextReader = Callable[[Path], "str | None"]


class ReferenceProblem(ValueError):
    """A referenced file cannot be used (invalid, unreadable, or in a cycle of references); the message
    names it and says why."""

    def result(self, file: SchemaFile) -> FileResult:
        """The referring file's result: invalid, about the file as a whole (the referenced file's own
        check points at its lines)."""
        return FileResult(file, Status.INVALID, (Finding(NOWHERE, INVALID_SCHEMA, str(self)),))


@dataclass(frozen=True)
class FileReference:
    """A file one schema file refers to, by the name its text uses."""

    name: str
    file: SchemaFile


def in_work_tree(path: Path) -> str | None:
    """A path's text as it is on disk (``OSError`` when it is there but cannot be read)."""
    return path.read_text(encoding="utf-8-sig") if path.is_file() else None


def at_revision(revision: str) -> TextReader:
    """A path's text as committed at ``revision`` (None where the directory or the file is not there)."""

    def read(path: Path) -> str | None:
        if not path.parent.is_dir():
            return None
        try:
            return file_at_revision(path, revision)
        except GitError:
            return None

    return read


class FileSchemas:
    """The schema files of one source, each parsed once with the files it refers to."""

    def __init__(self, read: TextReader, schemas_dir: Path) -> None:
        self._read = read
        self._schemas_dir = schemas_dir
        self._texts: dict[Path, str | None] = {}
        self._parsed: dict[Path, Parsed] = {}
        self._visiting: list[Path] = []

    def text(self, path: Path) -> str | None:
        key = _normal(path)
        if key not in self._texts:
            self._texts[key] = self._read(path)
        return self._texts[key]

    def referenced_files(self, file: SchemaFile, text: str) -> list[FileReference]:
        """The files ``text`` (the text of ``file``) refers to and that exist in this source."""
        found = []
        for name in file.kind.file_references(text):
            for folder in (file.path.parent, self._schemas_dir):
                candidate = Path(os.path.normpath(folder / name))
                try:
                    referenced = schema_file(candidate)
                except LayoutError:
                    break  # not a schema file's name: parsing says the reference is missing
                if self.text(candidate) is not None:
                    found.append(FileReference(name, referenced))
                    break
        return found

    def references(self, file: SchemaFile, text: str) -> tuple[Reference, ...]:
        """The parsed references ``text`` (the text of ``file``) needs; raises :class:`ReferenceProblem`."""
        return tuple(Reference(ref.name, self.parsed(ref.file)) for ref in self.referenced_files(file, text))

    def parsed(self, file: SchemaFile) -> Parsed:
        """``file`` parsed with its references; raises :class:`ReferenceProblem` naming what is wrong."""
        key = _normal(file.path)
        if key in self._parsed:
            return self._parsed[key]
        if key in self._visiting:
            cycle = " -> ".join(p.as_posix() for p in [*self._visiting[self._visiting.index(key) :], key])
            raise ReferenceProblem(f"the files refer to each other in a cycle ({cycle})")
        text = self.text(file.path)
        if text is None:
            raise ReferenceProblem(f"{file.display} cannot be read")
        self._visiting.append(key)
        try:
            references = self.references(file, text)
            try:
                parsed = file.kind.parse(text, references)
            except InvalidSchemaError as exc:
                reason = " ".join(str(exc).split())
                raise ReferenceProblem(f"{file.display} is not a valid schema ({reason})") from None
        finally:
            self._visiting.pop()
        self._parsed[key] = parsed
        return parsed

    def closure(self, files: Iterable[tuple[SchemaFile, str]]) -> list[tuple[SchemaFile, str]]:
        """``files`` and every file they refer to (directly or not), each once, every file after the files
        it refers to: the order ``registry push`` registers them in. Files that cannot be read are left
        out; pushing them fails on its own."""
        ordered: dict[Path, tuple[SchemaFile, str]] = {}
        visiting: set[Path] = set()

        def visit(file: SchemaFile, text: str) -> None:
            key = _normal(file.path)
            if key in ordered or key in visiting:
                return
            visiting.add(key)
            for ref in self.referenced_files(file, text):
                referenced_text = self.text(ref.file.path)
                if referenced_text is not None:
                    visit(ref.file, referenced_text)
            ordered[key] = (file, text)

        for file, text in files:
            self._texts.setdefault(_normal(file.path), text)
            visit(file, text)
        return list(ordered.values())


def _normal(path: Path) -> Path:
    return Path(os.path.normpath(path.absolute()))
