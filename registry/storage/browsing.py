"""The reads behind the registry's web page: subjects with their state, and a subject's whole history.

A mixin of :class:`registry.storage.repository.Registry`, like the settings: the page asks the same
repository as the JSON API, never the database. Each read is a fixed number of queries whatever the
registry's size (the subject list aggregates, counts and pages in SQL), because the page must stay fast
with thousands of subjects of dozens of versions each.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Integer, case, cast, func, or_, select
from sqlalchemy.orm import Session

from registry.service.contract_config import group_value, in_group, registration_contract
from registry.storage import queries as q
from registry.storage.models import RegistryState, SchemaRecord, SchemaReference, Subject, SubjectVersion
from registry.storage.settings import scope_config
from registry.storage.views import (
    SubjectHistory,
    SubjectListing,
    SubjectSettings,
    SubjectSummary,
    VersionRecord,
    as_utc,
)

if TYPE_CHECKING:
    from registry.storage.cache import LRUCache
    from registry.storage.views import StoredSchema

T = TypeVar("T")


def settings_of(state: RegistryState, compatibility: str | None, mode: str | None) -> SubjectSettings:
    """The level and mode in force for a subject whose own ones are ``compatibility`` and ``mode``."""
    level = compatibility or q.effective_compatibility(state, None)
    return SubjectSettings(level, bool(compatibility), mode or q.effective_mode(state, None), bool(mode))


class BrowsingMixin:
    """The subject list and a subject's history, for people rather than clients."""

    if TYPE_CHECKING:

        def _read(self, work: Callable[[Session], T]) -> T: ...
        def _stored(self, record: Any) -> StoredSchema: ...

        schema_cache: LRUCache[StoredSchema]

    def subject_summaries(
        self,
        text: str,
        prefix_only: bool,
        include_deleted: bool,
        offset: int,
        limit: int,
        also: Collection[str] = (),
        level: str | None = None,
        mode: str | None = None,
        sort: str = "name",
    ) -> SubjectListing:
        """Subjects whose name contains ``text`` (or starts with it), case-insensitively, or is one of
        ``also`` (found in their schemas); with the level and mode in force given, only those; sorted by
        name, newest registration first (``recent``) or most live versions first (``versions``).

        A subject whose versions are all soft-deleted is listed only with ``include_deleted``, as the
        JSON API does. ``total`` counts every match, so the page can say how many pages there are.
        """
        live = SubjectVersion.deleted.is_(False)
        live_count = func.sum(cast(case((live, 1), else_=0), Integer))
        newest = func.max(SubjectVersion.created_at)
        order = {"recent": (newest.desc(), Subject.name), "versions": (live_count.desc(), Subject.name)}

        def work(session: Session) -> SubjectListing:
            state = q.state(session)
            stmt = (
                select(
                    Subject.name,
                    Subject.compatibility,
                    Subject.mode,
                    func.max(case((live, SubjectVersion.version))),
                    func.max(SubjectVersion.version),
                    live_count,
                    newest,
                    func.count().over(),
                )
                .join(SubjectVersion, SubjectVersion.subject_id == Subject.id)
                .group_by(Subject.id, Subject.name, Subject.compatibility, Subject.mode)
                .order_by(*order.get(sort, (Subject.name,)))
                .offset(offset)
                .limit(limit)
            )
            if text:
                matches = Subject.name.istartswith if prefix_only else Subject.name.icontains
                found = matches(text, autoescape=True)
                stmt = stmt.where(or_(found, Subject.name.in_(list(also))) if also else found)
            if level:
                global_level = q.effective_compatibility(state, None)
                stmt = stmt.where(func.coalesce(Subject.compatibility, global_level) == level)
            if mode:
                stmt = stmt.where(func.coalesce(Subject.mode, q.effective_mode(state, None)) == mode)
            if not include_deleted:
                stmt = stmt.having(live_count > 0)
            rows = session.execute(stmt).all()
            total = rows[0][7] if rows else self._count(session, stmt)
            summaries = tuple(
                SubjectSummary(
                    name=name,
                    latest_version=newest_live or newest,
                    live_versions=int(live_versions or 0),
                    deleted=not live_versions,
                    settings=settings_of(state, compatibility, mode),
                    last_registered=as_utc(registered),
                )
                for name, compatibility, mode, newest_live, newest, live_versions, registered, _ in rows
            )
            return SubjectListing(int(total), summaries)

        return self._read(work)

    def latest_schemas_containing(self, text: str) -> list[tuple[str, int]]:
        """(subject, schema id) of each subject whose newest version is live and holds ``text`` in its
        schema text (case-insensitively): the candidates of a search in schemas, which the caller then
        narrows. The newest version by the subject's own counter, one indexed join per subject: a search
        stays about as cheap as a name search with thousands of subjects (a subject whose newest version
        is soft- or permanently deleted is found by its name only)."""
        stmt = (
            select(Subject.name, SchemaRecord.id)
            .join(
                SubjectVersion,
                (SubjectVersion.subject_id == Subject.id) & (SubjectVersion.version == Subject.last_version),
            )
            .join(SchemaRecord, SchemaRecord.id == SubjectVersion.schema_id)
            .where(SubjectVersion.deleted.is_(False))
            .order_by(Subject.name)
        )

        def work(session: Session) -> list[tuple[str, int]]:
            # SQLite's LIKE ignores ASCII case by itself; lower() on every schema text would double the
            # scan's time. Elsewhere (PostgreSQL) ILIKE. The caller matches case-insensitively anyway.
            text_column = SchemaRecord.schema_text
            sqlite = session.get_bind().dialect.name == "sqlite"
            holds = (text_column.contains if sqlite else text_column.icontains)(text, autoescape=True)
            return [(name, schema_id) for name, schema_id in session.execute(stmt.where(holds))]

        return self._read(work)

    def schemas_by_id(self, ids: Collection[int]) -> dict[int, StoredSchema]:
        """Schemas by id, from memory when seen before, the others in one query."""
        found: dict[int, StoredSchema] = {}
        for schema_id in set(ids):
            cached = self.schema_cache.get(schema_id)
            if cached is not None:
                found[schema_id] = cached
        missing = sorted(set(ids) - set(found))
        if missing:

            def work(session: Session) -> list[StoredSchema]:
                stmt = select(SchemaRecord).where(SchemaRecord.id.in_(missing))
                return [self._stored(record) for record in session.execute(stmt).scalars()]

            found.update((stored.id, stored) for stored in self._read(work))
        return found

    def subject_referrers(self, subject: str) -> list[tuple[int, str, int, int, bool]]:
        """Every subject version whose schema references any version of ``subject``: (the version it
        uses, the referring subject, its version, its schema id, soft-deleted), by version used."""
        stmt = (
            select(
                SchemaReference.version,
                Subject.name,
                SubjectVersion.version,
                SubjectVersion.schema_id,
                SubjectVersion.deleted,
            )
            .join(SubjectVersion, SubjectVersion.schema_id == SchemaReference.schema_id)
            .join(Subject, Subject.id == SubjectVersion.subject_id)
            .where(SchemaReference.subject == subject)
            .order_by(SchemaReference.version, Subject.name, SubjectVersion.version)
        )
        return self._read(lambda session: [tuple(row) for row in session.execute(stmt)])  # type: ignore[misc]

    @staticmethod
    def _count(session: Session, stmt: Any) -> int:
        """Matches in all when the requested page is empty (past the end): the window count saw no row."""
        counted = stmt.limit(None).offset(None).order_by(None).subquery()
        return int(session.execute(select(func.count()).select_from(counted)).scalar_one())

    def subject_history(self, subject: str) -> SubjectHistory:
        """Every version of ``subject``, soft-deleted ones too (40401 when it has none at all)."""

        def work(session: Session) -> SubjectHistory:
            state = q.state(session)
            row = q.existing_subject(session, subject)
            versions = tuple(
                VersionRecord(v.version, v.schema_id, v.deleted, as_utc(v.created_at))
                for v in q.versions(session, row, include_deleted=True)
            )
            return SubjectHistory(row.name, settings_of(state, row.compatibility, row.mode), versions)

        return self._read(work)

    def compatibility_baseline(self, subject: str) -> tuple[str, list[tuple[int, StoredSchema]]]:
        """The subject's level and the live versions a new schema is checked against at that level.

        What a registration is checked against: the latest live version, or every live one for a
        transitive level; none for a subject without versions. At level NONE the latest one still comes
        back (nothing is compared with it, but the check says so rather than calling the subject new).
        With a compatibility group configured, only the versions of the group a registration of the
        schema (without a contract of its own) would join.
        """

        def work(session: Session) -> tuple[str, list[tuple[int, StoredSchema]]]:
            state = q.state(session)
            row = q.subject(session, subject)
            level = q.effective_compatibility(state, row)
            transitive = level.endswith("_TRANSITIVE")
            config = scope_config(state, row)
            if config.compatibility_group is None:
                pairs = q.live_versions(session, row, every=transitive)
                return level, [(version, self._stored(record)) for version, record in pairs]
            every = [
                (version, self._stored(record)) for version, record in q.live_versions(session, row, True)
            ]
            # A schema without a contract carries the latest version's, so it joins that version's group.
            carried = registration_contract(config, None, None, every[-1][1].contract if every else None)[0]
            group = config.compatibility_group
            return level, in_group(
                every, lambda pair: pair[1].metadata, group, group_value(carried, group), transitive
            )

        return self._read(work)
