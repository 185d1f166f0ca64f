"""The registry's database schema, in one place (its history lives in ``migrations/versions/``).

Schema ids are global and allocated under the registry lock (``registry_state`` row 1) as ``max(id) + 1``,
so they are unique, dense and increase in commit order on every database, without relying on sequences.
Subjects keep ``last_version`` so that version numbers are never reused, even after a permanent delete.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def _now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """Declarative base of every registry table."""


class ContractSettings:
    """Data-contract config of one scope (the global row, or a subject): JSON texts, NULL when unset.

    See ``registry.service.contract_config`` for what each setting does.
    """

    compatibility_group: Mapped[str | None] = mapped_column(String(255))
    default_metadata: Mapped[str | None] = mapped_column(Text)
    override_metadata: Mapped[str | None] = mapped_column(Text)
    default_rule_set: Mapped[str | None] = mapped_column(Text)
    override_rule_set: Mapped[str | None] = mapped_column(Text)


class RegistryState(ContractSettings, Base):
    """The single global row: default compatibility and mode, a change counter, and the write lock.

    Every write transaction starts with ``SELECT ... FOR UPDATE`` on this row, which serializes writers
    across processes on PostgreSQL (SQLite serializes them with ``BEGIN IMMEDIATE``). ``epoch`` grows on
    every delete, mode change and contract config change so that per-process caches know when to forget.
    """

    __tablename__ = "registry_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    compatibility: Mapped[str | None] = mapped_column(String(32))
    mode: Mapped[str | None] = mapped_column(String(16))
    epoch: Mapped[int] = mapped_column(Integer, default=0)


class SchemaRecord(Base):
    """One distinct schema (by identity, type, references, metadata and rule set), shared by every subject
    that uses it; Confluent gives a schema with other metadata or rules another id too."""

    __tablename__ = "schemas"
    __table_args__ = (Index("ix_schemas_guid", "guid", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    #: sha256 of identity + type + references (+ metadata and rule set when there are any): the dedupe
    #: key (a hash, so the unique index stays small).
    identity_hash: Mapped[str] = mapped_column(String(64), unique=True)
    #: The schema's GUID: the identity hash's first 128 bits as a UUID (version 8), so equal contents have
    #: equal GUIDs in any registry of this kind. Always written; nullable only because a column added to
    #: an existing SQLite table that others reference cannot be NOT NULL without a default.
    guid: Mapped[str | None] = mapped_column(String(36))
    schema_type: Mapped[str] = mapped_column(String(16), default="AVRO")
    schema_text: Mapped[str] = mapped_column(Text)
    #: sha256 of the type's canonical form (Avro's Parsing Canonical Form), for lookups by fingerprint.
    fingerprint: Mapped[str] = mapped_column(String(64), index=True)
    #: JSON list of {"name", "subject", "version"}; also normalized into ``schema_references``.
    references_json: Mapped[str] = mapped_column(Text, default="[]")
    #: The data contract, canonical JSON (``registry.service.contracts``); NULL when there is none.
    metadata_json: Mapped[str | None] = mapped_column(Text)
    rule_set_json: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class Subject(ContractSettings, Base):
    """A subject name with its own settings; it exists for the API while it has version rows."""

    __tablename__ = "subjects"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    compatibility: Mapped[str | None] = mapped_column(String(32))
    mode: Mapped[str | None] = mapped_column(String(16))
    #: Highest version ever given out; the next registration gets last_version + 1.
    last_version: Mapped[int] = mapped_column(Integer, default=0)

    versions: Mapped[list[SubjectVersion]] = relationship(back_populates="subject")


class SubjectVersion(Base):
    """Version ``version`` of a subject points at a schema; soft delete only sets ``deleted``."""

    __tablename__ = "subject_versions"
    __table_args__ = (
        UniqueConstraint("subject_id", "version", name="uq_subject_versions_subject_version"),
        Index("ix_subject_versions_schema_id", "schema_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    subject_id: Mapped[int] = mapped_column(ForeignKey("subjects.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    schema_id: Mapped[int] = mapped_column(ForeignKey("schemas.id"))
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    subject: Mapped[Subject] = relationship(back_populates="versions")
    schema: Mapped[SchemaRecord] = relationship()


class SchemaReference(Base):
    """A schema's reference to another subject's version, indexed for ``.../referencedby``."""

    __tablename__ = "schema_references"
    __table_args__ = (Index("ix_schema_references_target", "subject", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    schema_id: Mapped[int] = mapped_column(ForeignKey("schemas.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(Text)
    subject: Mapped[str] = mapped_column(String(255))
    version: Mapped[int] = mapped_column(Integer)


class User(Base):
    """Someone (a person or a service) who may call the API when authentication is on.

    Secrets are stored only as argon2 hashes. A bearer token is ``<token_id>.<secret>``: the id finds the
    row (it is not secret), the secret is verified against ``token_hash``, so one slow hash per request
    at most (and none once verified, see ``registry.auth.credentials``).
    """

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    #: ``read``, ``write`` or ``admin``; each includes the ones before it.
    role: Mapped[str] = mapped_column(String(16))
    #: JSON list of subject prefixes a ``write`` user may register and soft-delete under.
    write_prefixes: Mapped[str] = mapped_column(Text, default="[]")
    password_hash: Mapped[str | None] = mapped_column(Text)
    token_id: Mapped[str | None] = mapped_column(String(32), unique=True)
    token_hash: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
