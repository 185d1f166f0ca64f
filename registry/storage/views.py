"""Plain values the repository returns, so the API never touches ORM objects or open sessions."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from registry.storage.models import SchemaRecord


@dataclass(frozen=True)
class StoredSchema:
    """A schema by id: immutable once written."""

    id: int
    schema: str
    schema_type: str
    references: tuple[dict[str, Any], ...]

    @classmethod
    def from_record(cls, record: SchemaRecord) -> StoredSchema:
        return cls(
            record.id, record.schema_text, record.schema_type, tuple(json.loads(record.references_json))
        )

    def body(self) -> dict[str, Any]:
        """The JSON Confluent returns for ``GET /schemas/ids/{id}`` (schemaType only when not AVRO)."""
        out: dict[str, Any] = {"schema": self.schema}
        if self.schema_type != "AVRO":
            out["schemaType"] = self.schema_type
        if self.references:
            out["references"] = list(self.references)
        return out


@dataclass(frozen=True)
class VersionView:
    """One subject version with its schema."""

    subject: str
    version: int
    deleted: bool
    schema: StoredSchema

    def body(self) -> dict[str, Any]:
        """The JSON of ``GET /subjects/{s}/versions/{v}`` and of a successful lookup."""
        return {"subject": self.subject, "version": self.version, "id": self.schema.id, **self.schema.body()}


@dataclass(frozen=True)
class Registered:
    """Outcome of a registration: the global id and the subject's version (new or existing)."""

    id: int
    version: int
    created: bool
