"""The two vocabularies other code switches on: compatibility levels and incompatibility kinds.

Both are ``StrEnum``s so that values compare equal to the plain strings that arrive over HTTP and are
stored in the database, and serialise as themselves. The kinds use Avro Java's names on purpose: people
who know ``SchemaCompatibility`` (and Confluent's error texts) recognise them.
"""

from __future__ import annotations

from enum import StrEnum


class CompatibilityLevel(StrEnum):
    """Which existing versions a new schema is checked against, and in which direction."""

    NONE = "NONE"
    BACKWARD = "BACKWARD"
    BACKWARD_TRANSITIVE = "BACKWARD_TRANSITIVE"
    FORWARD = "FORWARD"
    FORWARD_TRANSITIVE = "FORWARD_TRANSITIVE"
    FULL = "FULL"
    FULL_TRANSITIVE = "FULL_TRANSITIVE"

    @property
    def transitive(self) -> bool:
        """Whether every existing version takes part, not only the newest."""
        return self.value.endswith("_TRANSITIVE")

    @property
    def new_reads_old(self) -> bool:
        """Whether the new schema must read data written with the existing ones (BACKWARD, FULL)."""
        return self.value.startswith(("BACKWARD", "FULL"))

    @property
    def old_reads_new(self) -> bool:
        """Whether the existing schemas must read data written with the new one (FORWARD, FULL)."""
        return self.value.startswith(("FORWARD", "FULL"))


class IncompatibilityKind(StrEnum):
    """Why a reader cannot read a writer's data, in Avro Java's ``SchemaIncompatibilityType`` terms."""

    NAME_MISMATCH = "NAME_MISMATCH"
    FIXED_SIZE_MISMATCH = "FIXED_SIZE_MISMATCH"
    MISSING_ENUM_SYMBOLS = "MISSING_ENUM_SYMBOLS"
    READER_FIELD_MISSING_DEFAULT_VALUE = "READER_FIELD_MISSING_DEFAULT_VALUE"
    TYPE_MISMATCH = "TYPE_MISMATCH"
    MISSING_UNION_BRANCH = "MISSING_UNION_BRANCH"
