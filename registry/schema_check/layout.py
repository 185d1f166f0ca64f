"""The ``schemas/`` layout: which file holds which subject.

One file per subject, named after the topic, so that a reviewer sees the topic in the diff and the check
needs no configuration: ``schemas/<topic>.avsc`` is the value schema (subject ``<topic>-value``, Confluent's
default TopicNameStrategy) and ``schemas/<topic>.key.avsc`` the key schema (subject ``<topic>-key``).
Sub-directories only group files; the topic is the file name alone, so two files naming the same topic are
a layout error rather than a silent overwrite.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "KEY_SUFFIX",
    "SCHEMA_SUFFIX",
    "LayoutError",
    "SchemaFile",
    "discover",
    "schema_file",
    "schema_files",
]

SCHEMA_SUFFIX = ".avsc"
KEY_SUFFIX = ".key.avsc"
# Kafka's own rule for topic names (kafka.common.internals.Topic): these characters, at most 249 of them.
_TOPIC_NAME = re.compile(r"[a-zA-Z0-9._-]{1,249}")


class LayoutError(ValueError):
    """A path that cannot be a schema file of this layout; the message says what the name should be."""


@dataclass(frozen=True)
class SchemaFile:
    """One schema file and the subject it registers under."""

    path: Path
    topic: str
    is_key: bool

    @property
    def subject(self) -> str:
        """``<topic>-key`` or ``<topic>-value``, as Confluent's serializers look them up."""
        return f"{self.topic}-{'key' if self.is_key else 'value'}"

    @property
    def display(self) -> str:
        """The path as the user gave it (pre-commit passes repository-relative paths)."""
        return self.path.as_posix()


def schema_file(path: Path | str) -> SchemaFile:
    """The subject of one path; raises ``LayoutError`` when its name breaks the layout."""
    path = Path(path)
    name = path.name
    if name.endswith(KEY_SUFFIX):
        topic, is_key = name[: -len(KEY_SUFFIX)], True
    elif name.endswith(SCHEMA_SUFFIX):
        topic, is_key = name[: -len(SCHEMA_SUFFIX)], False
    else:
        raise LayoutError(f"{path.as_posix()}: a schema file is named <topic>{SCHEMA_SUFFIX}")
    if not _TOPIC_NAME.fullmatch(topic) or topic in (".", ".."):
        raise LayoutError(
            f"{path.as_posix()}: {topic!r} is not a Kafka topic name "
            "(use letters, digits, '.', '_' and '-', at most 249 characters)"
        )
    return SchemaFile(path=path, topic=topic, is_key=is_key)


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
    """Every ``*.avsc`` under ``schemas_dir`` (recursively), sorted so output is stable."""
    return sorted(path for path in schemas_dir.rglob(f"*{SCHEMA_SUFFIX}") if path.is_file())
