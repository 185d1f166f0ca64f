"""The registry's reads and writes, each in one transaction, returning plain values.

Reads run without locks. Every write first takes the registry lock (see ``models.RegistryState``), then
re-reads what it depends on, so that concurrent registrations from any number of processes are applied
one after another: one id per distinct schema, versions that only grow, nothing lost. Transient database
failures (SQLite busy, PostgreSQL deadlock or serialization errors) are retried before they surface as
50001.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session

from registry.schema_types import Parsed, Reference, schema_type
from registry.service import errors
from registry.service import schemas as schema_logic
from registry.service.bodies import SchemaRequest
from registry.service.contracts import has_properties
from registry.service.requests import LATEST
from registry.service.search import Digest
from registry.storage import queries as q
from registry.storage.browsing import BrowsingMixin
from registry.storage.cache import LRUCache
from registry.storage.db import Database
from registry.storage.models import SchemaRecord, Subject, SubjectVersion
from registry.storage.registration import RegistrationMixin, Stamp
from registry.storage.settings import SettingsMixin
from registry.storage.views import Registered, StoredSchema, VersionView

T = TypeVar("T")
WRITE_ATTEMPTS = 8
PARSE_CACHE_MAX_CHARS = 64 * 1024


class Registry(RegistrationMixin, SettingsMixin, BrowsingMixin):
    """All operations of the Schema Registry API over one database."""

    def __init__(self, database: Database, cache_size: int = 10_000) -> None:
        self.db = database
        self.schema_cache: LRUCache[StoredSchema] = LRUCache(cache_size)
        self.parsed_cache: LRUCache[Parsed] = LRUCache(cache_size)
        self.version_cache: LRUCache[tuple[int, VersionView]] = LRUCache(cache_size)
        self.request_cache: LRUCache[Parsed] = LRUCache(min(cache_size, 2_000))
        self.registered_cache: LRUCache[tuple[Stamp, Registered]] = LRUCache(cache_size)
        #: The page's one-line change summaries by (older schema id, newer schema id).
        self.summary_cache: LRUCache[str] = LRUCache(cache_size)
        #: The page's search digests (names, namespaces, symbols, docs) by schema id.
        self.search_cache: LRUCache[Digest] = LRUCache(cache_size)
        #: Told of each registration that created a version, once its transaction has committed (metrics).
        self.on_registered: Callable[[str, Registered], None] | None = None

    # -- plumbing ---------------------------------------------------------------------------------
    def _write(self, work: Callable[[Session], T]) -> T:
        """Runs ``work`` in a locked write transaction, retrying transient conflicts."""
        for attempt in range(WRITE_ATTEMPTS):
            try:
                with self.db.write() as session:
                    q.state(session, lock=True)
                    return work(session)
            except errors.RegistryError:
                raise
            except (OperationalError, IntegrityError) as exc:
                if attempt == WRITE_ATTEMPTS - 1:
                    raise errors.StoreError(f"Error in the backend datastore: {exc.orig}") from exc
                time.sleep(0.01 * 2**attempt)
            except SQLAlchemyError as exc:
                raise errors.StoreError(f"Error in the backend datastore: {exc}") from exc
        raise AssertionError("unreachable")

    def _read(self, work: Callable[[Session], T]) -> T:
        try:
            with self.db.read() as session:
                return work(session)
        except (DBAPIError, SQLAlchemyError) as exc:
            raise errors.StoreError(f"Error in the backend datastore: {exc}") from exc

    def _epoch(self) -> int:
        """The delete/mode change counter, read with one tiny statement to validate cached entries."""
        try:
            with self.db.engine.connect() as conn:
                value = conn.exec_driver_sql("SELECT epoch FROM registry_state WHERE id = 1").scalar()
        except SQLAlchemyError as exc:
            raise errors.StoreError(f"Error in the backend datastore: {exc}") from exc
        if value is None:
            raise errors.StoreError("The registry database is not initialized; run `registry db upgrade`.")
        return int(value)

    def _stored(self, record: SchemaRecord) -> StoredSchema:
        cached = self.schema_cache.get(record.id)
        if cached is None:
            cached = StoredSchema.from_record(record)
            self.schema_cache.put(record.id, cached)
        return cached

    def _schema_in(self, session: Session, schema_id: int) -> StoredSchema:
        """A schema by id inside an open transaction, from memory when seen before."""
        cached = self.schema_cache.get(schema_id)
        if cached is not None:
            return cached
        record = session.get(SchemaRecord, schema_id)
        if record is None:
            raise errors.StoreError(f"schema {schema_id} vanished while it was being read")
        return self._stored(record)

    def parsed(self, stored: StoredSchema) -> Parsed:
        """The parsed form of a stored schema, cached by id (parsing dominates compatibility checks)."""
        found = self.parsed_cache.get(stored.id)
        if found is None:
            referenced = self._referenced(stored.references)
            found = schema_logic.parse(stored.schema, referenced, stored.schema_type)
            self.parsed_cache.put(stored.id, found)
        return found

    def formatted(self, stored: StoredSchema, format: str) -> StoredSchema:
        """``stored`` with its text in its type's ``format`` (``?format=serialized``); unchanged for no
        format or one its type does not have, as Confluent answers then."""
        if not format.strip():
            return stored
        text = schema_type(stored.schema_type).formatted(self.parsed(stored), format.strip())
        return stored if text is None else replace(stored, schema=text)

    def _referenced(self, references: Sequence[dict]) -> list[Reference]:
        """The referenced subject versions, parsed, under the names the referring schema uses (each
        parsed with its own references, so one level here resolves them all)."""
        out = []
        for ref in references:
            view = self.get_version(str(ref["subject"]), int(ref["version"]), include_deleted=True)
            out.append(Reference(str(ref["name"]), self.parsed(view.schema)))
        return out

    def parse_request(self, request: SchemaRequest, normalize: bool = False) -> Parsed:
        """Parses a request's schema, resolving its references; a missing reference is 42201. With
        ``normalize`` (Confluent's ``normalize=true``), the schema parsed from the text its type
        normalizes it to: what is then registered, looked up and compared.

        Clients re-send the same schema text constantly (serializers on every start), so parses of
        texts up to :data:`PARSE_CACHE_MAX_CHARS` without references are remembered by type and text (one
        text can be a schema of two types: ``{"type": "string"}``).
        """
        parsed = self._parse_remembered(request)
        if normalize and parsed.normalized != request.schema:
            parsed = self._parse_remembered(replace(request, schema=parsed.normalized))
        return parsed

    def _parse_remembered(self, request: SchemaRequest) -> Parsed:
        cacheable = len(request.schema) <= PARSE_CACHE_MAX_CHARS and not request.references
        key = (request.schema_type, request.schema)
        if cacheable:
            hit = self.request_cache.get(key)
            if hit is not None:
                return hit
        parsed = self._parse_request(request)
        if cacheable:
            self.request_cache.put(key, parsed)
        return parsed

    def _parse_request(self, request: SchemaRequest) -> Parsed:
        try:
            referenced = self._referenced([r.__dict__ for r in request.references])
        except (errors.SubjectNotFound, errors.VersionNotFound) as exc:
            raise errors.InvalidSchema(f"Invalid schema reference: {exc.message}") from None
        return schema_logic.parse(request.schema, referenced, request.schema_type)

    # -- schemas by id ----------------------------------------------------------------------------
    def get_schema(self, schema_id: int) -> StoredSchema:
        """A schema by global id; served from memory once seen (ids never change meaning)."""
        cached = self.schema_cache.get(schema_id)
        if cached is not None:
            return cached

        def work(session: Session) -> StoredSchema:
            record = session.get(SchemaRecord, schema_id)
            if record is None:
                raise errors.SchemaNotFound(f"Schema {schema_id} not found")
            return self._stored(record)

        return self._read(work)

    def schema_by_guid(self, guid: str) -> StoredSchema:
        """A schema by GUID (``GET /schemas/guids/{guid}``); one GUID is one id here."""

        def work(session: Session) -> StoredSchema:
            record = session.execute(
                select(SchemaRecord).where(SchemaRecord.guid == guid)
            ).scalar_one_or_none()
            if record is None:
                raise errors.SchemaNotFound(f"Schema with GUID {guid} not found")
            return self._stored(record)

        return self._read(work)

    def schema_usages(self, schema_id: int, include_deleted: bool) -> list[tuple[str, int]]:
        """(subject, version) pairs using a schema, sorted."""
        self.get_schema(schema_id)

        def work(session: Session) -> list[tuple[str, int]]:
            stmt = (
                select(Subject.name, SubjectVersion.version)
                .join(Subject, Subject.id == SubjectVersion.subject_id)
                .where(SubjectVersion.schema_id == schema_id)
                .order_by(Subject.name, SubjectVersion.version)
            )
            if not include_deleted:
                stmt = stmt.where(SubjectVersion.deleted.is_(False))
            return [(name, version) for name, version in session.execute(stmt)]

        return self._read(work)

    def list_schemas(self, prefix: str, include_deleted: bool, latest_only: bool) -> list[VersionView]:
        """Every subject version (or each subject's latest) whose subject starts with ``prefix``."""

        def work(session: Session) -> list[VersionView]:
            stmt = (
                select(Subject.name, SubjectVersion, SchemaRecord)
                .join(Subject, Subject.id == SubjectVersion.subject_id)
                .join(SchemaRecord, SchemaRecord.id == SubjectVersion.schema_id)
                .where(Subject.name.startswith(prefix, autoescape=True))
                .order_by(Subject.name, SubjectVersion.version)
            )
            if not include_deleted:
                stmt = stmt.where(SubjectVersion.deleted.is_(False))
            views = [
                VersionView(n, v.version, v.deleted, self._stored(r)) for n, v, r in session.execute(stmt)
            ]
            if latest_only:
                latest = {view.subject: view for view in views}
                views = list(latest.values())
            return views

        return self._read(work)

    # -- subjects and versions --------------------------------------------------------------------
    def list_subjects(self, prefix: str, include_deleted: bool, deleted_only: bool) -> list[str]:
        def work(session: Session) -> list[str]:
            stmt = (
                select(Subject.name, SubjectVersion.deleted)
                .join(SubjectVersion, SubjectVersion.subject_id == Subject.id)
                .where(Subject.name.startswith(prefix, autoescape=True))
            )
            live: set[str] = set()
            dead: set[str] = set()
            for name, deleted in session.execute(stmt):
                (dead if deleted else live).add(name)
            if deleted_only:
                return sorted(dead - live)
            return sorted(live | dead) if include_deleted else sorted(live)

        return self._read(work)

    def list_versions(self, subject: str, include_deleted: bool, deleted_only: bool) -> list[int]:
        def work(session: Session) -> list[int]:
            row = q.existing_subject(session, subject)
            rows = q.versions(session, row, include_deleted or deleted_only)
            if deleted_only:
                rows = [r for r in rows if r.deleted]
            elif not rows:
                raise errors.SubjectNotFound(f"Subject '{subject}' not found.")
            return [r.version for r in rows]

        return self._read(work)

    def get_version(self, subject: str, version: int, include_deleted: bool = False) -> VersionView:
        """A subject version; numbered versions come from memory while no delete happened since."""

        if version != LATEST:
            hit = self.version_cache.get((subject, version))
            if hit is not None and (include_deleted or not hit[1].deleted) and hit[0] == self._epoch():
                return hit[1]

        def work(session: Session) -> VersionView:
            epoch = q.state(session).epoch  # read before the row: a racing delete can only make it stale
            _, found, record = q.version_row(session, subject, version, include_deleted)
            view = VersionView(subject, found.version, found.deleted, self._stored(record))
            self.version_cache.put((subject, found.version), (epoch, view))
            return view

        return self._read(work)

    def latest_with_metadata(
        self, subject: str, wanted: dict[str, str], include_deleted: bool
    ) -> VersionView:
        """The newest version whose metadata has every wanted property (``GET /subjects/{s}/metadata``).

        Soft-deleted versions take part only when asked for, as in Confluent (serializers configured with
        ``use.latest.with.metadata`` ask for them).
        """

        def work(session: Session) -> VersionView:
            row = q.existing_subject(session, subject)
            stmt = (
                select(SubjectVersion, SchemaRecord)
                .join(SchemaRecord, SchemaRecord.id == SubjectVersion.schema_id)
                .where(SubjectVersion.subject_id == row.id)
                .order_by(SubjectVersion.version.desc())
            )
            if not include_deleted:
                stmt = stmt.where(SubjectVersion.deleted.is_(False))
            for found, record in session.execute(stmt):
                stored = self._stored(record)
                if stored.metadata is not None and has_properties(stored.metadata, wanted):
                    return VersionView(subject, found.version, found.deleted, stored)
            shown = ", ".join(f"{k}={v}" for k, v in wanted.items()) or "(none)"
            raise errors.SchemaNotFound(f"No version of subject '{subject}' has the metadata {shown}.")

        return self._read(work)

    def referenced_by(self, subject: str, version: int) -> list[int]:
        def work(session: Session) -> list[int]:
            row = q.existing_subject(session, subject)
            found = q.resolve_version(session, row, version, include_deleted=True)
            return q.referencing_schema_ids(session, subject, [found.version])

        return self._read(work)
