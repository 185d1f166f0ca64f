"""The ``schemas/`` layout: which file holds which subject, and of which schema type.

One file per subject, named after the topic, so that a reviewer sees the topic in the diff and the check
needs no configuration: ``schemas/<topic><suffix>`` is the value schema (subject ``<topic>-value``,
Confluent's default TopicNameStrategy) and ``schemas/<topic>.key<suffix>`` the key schema (subject
``<topic>-key``), where the suffix names the schema type (``SchemaType.file_suffix``: ``.avsc``,
``.proto``, ``.json``). A schema's contract file, ``<topic>.meta.json``, is not a schema. Sub-directories
only group files; the topic is the file name alone, so two files naming the same topic are a layout
error rather than a silent overwrite.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from registry.schema_types import DEFAULT_SCHEMA_TYPE, SchemaType, all_types, schema_type

__all__ = [
    "CONTRACT_SUFFIX",
    "KEY_PART",
    "LayoutError",
    "SchemaFile",
    "discover",
    "schema_file",
    "schema_files",
    "split_name",
]

KEY_PART = ".key"
#: A schema's contract file (``<topic>.meta.json``), beside it; never a schema itself.
CONTRACT_SUFFIX = ".meta.json"
# Kafka's own rule for topic names (kafka.common.internals.Topic): these characters, at most 249 of them.
_TOPIC_NAME = re.compile(r"[a-zA-Z0-9._-]{1,249}")


class LayoutError(ValueError):
    """A path that cannot be a schema file of this layout; the message says what the name should be."""


@dataclass(frozen=True)
class SchemaFile:
    """One schema file, the subject it registers under and the name of its schema type."""

    path: Path
    topic: str
    is_key: bool
    schema_type: str = DEFAULT_SCHEMA_TYPE

    @property
    def subject(self) -> str:
        """``<topic>-key`` or ``<topic>-value``, as Confluent's serializers look them up."""
        return f"{self.topic}-{'key' if self.is_key else 'value'}"

    @property
    def display(self) -> str:
        """The path as the user gave it (pre-commit passes repository-relative paths)."""
        return self.path.as_posix()

    @property
    def kind(self) -> SchemaType:
        return schema_type(self.schema_type)


def split_name(name: str) -> tuple[str, SchemaType] | None:
    """A schema file's name as its stem (``page_view``, ``page_view.key``) and its type, or ``None`` when
    no type's suffix ends it (a contract file included)."""
    if name.endswith(CONTRACT_SUFFIX):
        return None
    for kind in sorted(all_types(), key=lambda t: -len(t.file_suffix)):
        if name.endswith(kind.file_suffix):
            return name[: -len(kind.file_suffix)], kind
    return None


def _named() -> str:
    suffixes = [f"<topic>{kind.file_suffix}" for kind in all_types()]
    return ", ".join(suffixes[:-1]) + f" or {suffixes[-1]}" if len(suffixes) > 1 else suffixes[0]


def schema_file(path: Path | str) -> SchemaFile:
    """The subject of one path; raises ``LayoutError`` when its name breaks the layout."""
    path = Path(path)
    split = split_name(path.name)
    if split is None:
        raise LayoutError(f"{path.as_posix()}: a schema file is named {_named()}")
    stem, kind = split
    topic, is_key = (stem[: -len(KEY_PART)], True) if stem.endswith(KEY_PART) else (stem, False)
    if not _TOPIC_NAME.fullmatch(topic) or topic in (".", ".."):
        raise LayoutError(
            f"{path.as_posix()}: {topic!r} is not a Kafka topic name "
            "(use letters, digits, '.', '_' and '-', at most 249 characters)"
        )
    return SchemaFile(path=path, topic=topic, is_key=is_key, schema_type=kind.name)


def schema_files(paths: Iterable[Path | str]) -> list[SchemaFile]:
    """The files of ``paths`` in order; raises ``LayoutError`` when two of them claim one subject."""
    files: list[SchemaFile] = []
    claimed: dict[str, SchemaFile] = {}
    for path in paths:
        found = schema_file(path)
        earlier = claimed.get(found.subject)
        if earlier is not None:
            if earlier.path.resolve() == found.path.resolve():
                continue
            raise LayoutError(
                f"{earlier.display} and {found.display} both hold subject {found.subject!r}; "
                "a topic has one file (sub-directories only group files)"
            )
        claimed[found.subject] = found
        files.append(found)
    return files


def discover(schemas_dir: Path) -> list[Path]:
    """Every schema file under ``schemas_dir`` (recursively, any type's suffix), sorted so output is
    stable."""
    return sorted(
        path for path in schemas_dir.rglob("*") if path.is_file() and split_name(path.name) is not None
    )
