"""Plain values the repository returns, so the API never touches ORM objects or open sessions."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from registry.schema_types import DEFAULT_SCHEMA_TYPE
from registry.service.contracts import from_text
from registry.storage.models import SchemaRecord


@dataclass(frozen=True)
class StoredSchema:
    """A schema by id: immutable once written (its data contract included)."""

    id: int
    schema: str
    schema_type: str
    references: tuple[dict[str, Any], ...]
    guid: str = ""
    metadata: dict[str, Any] | None = None
    rule_set: dict[str, Any] | None = None

    @classmethod
    def from_record(cls, record: SchemaRecord) -> StoredSchema:
        return cls(
            record.id,
            record.schema_text,
            record.schema_type,
            tuple(json.loads(record.references_json)),
            record.guid or "",
            from_text(record.metadata_json),
            from_text(record.rule_set_json),
        )

    @property
    def contract(self) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        return self.metadata, self.rule_set

    def body(self) -> dict[str, Any]:
        """The JSON Confluent returns for ``GET /schemas/ids/{id}`` (schemaType only when not AVRO)."""
        out: dict[str, Any] = {"schema": self.schema}
        if self.schema_type != DEFAULT_SCHEMA_TYPE:
            out["schemaType"] = self.schema_type
        if self.references:
            out["references"] = list(self.references)
        if self.metadata:
            out["metadata"] = self.metadata
        if self.rule_set:
            out["ruleSet"] = self.rule_set
        if self.guid:
            out["guid"] = self.guid
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
    schema: StoredSchema | None = field(default=None, compare=False)

    def body(self) -> dict[str, Any]:
        """Confluent's registration answer: id, version, GUID and the schema as stored (its contract
        included, which may come from the previous version or the config rather than the request)."""
        out: dict[str, Any] = {"id": self.id, "version": self.version}
        if self.schema is not None:
            out.update(self.schema.body())
        return out


@dataclass(frozen=True)
class SubjectSettings:
    """A subject's compatibility level and mode in force, and whether each is its own or the global one."""

    compatibility: str
    compatibility_own: bool
    mode: str
    mode_own: bool


@dataclass(frozen=True)
class SubjectSummary:
    """One line of the subject list: enough to decide which subject to open, read in one query."""

    name: str
    #: The newest live version; the newest of all when every version is soft-deleted.
    latest_version: int
    live_versions: int
    #: True when every version is soft-deleted (the JSON API then lists it only with ``deleted=true``).
    deleted: bool
    settings: SubjectSettings
    #: When the newest version was registered (deletes and setting changes record no time).
    last_registered: datetime


@dataclass(frozen=True)
class SubjectListing:
    """One page of subjects and how many match in all."""

    total: int
    subjects: tuple[SubjectSummary, ...]


@dataclass(frozen=True)
class VersionRecord:
    """A subject version without its schema text: the rows of a subject's history."""

    version: int
    schema_id: int
    deleted: bool
    registered: datetime


@dataclass(frozen=True)
class SubjectHistory:
    """Every version of a subject, soft-deleted ones included, oldest first, with its settings."""

    name: str
    settings: SubjectSettings
    versions: tuple[VersionRecord, ...]


def as_utc(moment: datetime) -> datetime:
    """SQLite hands back the stored UTC times without a zone, PostgreSQL with one: the same for both."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
