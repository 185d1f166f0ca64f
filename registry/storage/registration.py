"""Registration, lookup and compatibility checks of a schema under a subject: the repository's hot writes.

A mixin of :class:`registry.storage.repository.Registry`, split off to keep each module readable. What a
request becomes is decided in one place (:meth:`RegistrationMixin._candidate`): its data contract is the
one Confluent would store (outside IMPORT mode the request's metadata and rule set, or the previous
version's when it has none, between the config's defaults and overrides), and its identity hash covers
text, type, references and that contract. Registering the same everything finds the existing version;
anything else is a new version, checked for compatibility against the versions of its compatibility
group (all of them when no group is configured).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import select, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from registry.compatibility import Conflict
from registry.schema_types import Parsed
from registry.service import errors
from registry.service import schemas as schema_logic
from registry.service.bodies import SchemaRequest
from registry.service.contract_config import group_value, in_group, registration_contract
from registry.service.contracts import Metadata, RuleSet, to_text
from registry.storage import queries as q
from registry.storage.models import SchemaRecord, SchemaReference, Subject, SubjectVersion
from registry.storage.settings import scope_config
from registry.storage.views import Registered, StoredSchema, VersionView

if TYPE_CHECKING:
    from registry.storage.cache import LRUCache
    from registry.storage.db import Database

T = TypeVar("T")
Stamp = tuple[int, int]
Latest = tuple[int, SchemaRecord]  # (version, schema) of a subject's latest live version


STAMP_QUERY = text(
    "SELECT r.epoch, COALESCE(s.last_version, 0) FROM registry_state r "
    "LEFT JOIN subjects s ON s.name = :name WHERE r.id = 1"
)


@dataclass(frozen=True)
class CheckOutcome:
    """A compatibility check's answer and what it compared (nothing at level NONE or for a new subject)."""

    level: str
    #: The versions the candidate was compared with, oldest first.
    compared: tuple[int, ...]
    conflicts: list[Conflict]
    #: The compatibility group property in scope and the candidate's value of it, when one is configured.
    group: str | None = None
    group_value: str | None = None
    #: The candidate as parsed (where its type's pointers lead in its text, for the page's findings).
    candidate: Parsed | None = None


@dataclass(frozen=True)
class Candidate:
    """What a request would be stored as under one subject: contract, identity and compatibility group."""

    key: str
    metadata: Metadata | None
    rule_set: RuleSet | None
    group: str | None  # the compatibility group property in scope, if any

    @property
    def group_value(self) -> str | None:
        return group_value(self.metadata, self.group)


def _request_key(parsed: Parsed, request: SchemaRequest) -> tuple[str, bool, bool]:
    """Identifies a request as sent (an empty contract and no contract differ: only the latter carries
    the previous version's forward)."""
    key = schema_logic.identity_hash(
        parsed, request.schema_type, request.references, request.metadata, request.rule_set
    )
    return key, request.metadata is None, request.rule_set is None


class RegistrationMixin:
    """``POST /subjects/{s}/versions``, ``POST /subjects/{s}`` and ``POST /compatibility/...``."""

    if TYPE_CHECKING:
        db: Database
        registered_cache: LRUCache[tuple[Stamp, Registered]]
        on_registered: Callable[[str, Registered], None] | None

        def _read(self, work: Callable[[Session], T]) -> T: ...
        def _write(self, work: Callable[[Session], T]) -> T: ...
        def _stored(self, record: SchemaRecord) -> StoredSchema: ...
        def _schema_in(self, session: Session, schema_id: int) -> StoredSchema: ...
        def parsed(self, stored: StoredSchema) -> Parsed: ...
        def parse_request(self, request: SchemaRequest, normalize: bool = False) -> Parsed: ...

    # -- what a request becomes -------------------------------------------------------------------
    def _candidate(
        self,
        session: Session,
        row: Subject | None,
        parsed: Parsed,
        request: SchemaRequest,
        mode: str,
        latest: Latest | None,
    ) -> Candidate:
        """``latest`` is the subject's latest live version (``q.latest_live``), which the callers also use."""
        state = q.state(session)
        config = scope_config(state, row)
        if mode == "IMPORT":  # a copy of another registry: the contract exactly as it was there
            metadata, rule_set = request.metadata or None, request.rule_set or None
        else:
            previous = self._stored(latest[1]).contract if latest is not None else None
            metadata, rule_set = registration_contract(config, request.metadata, request.rule_set, previous)
        key = schema_logic.identity_hash(parsed, request.schema_type, request.references, metadata, rule_set)
        return Candidate(key, metadata, rule_set, config.compatibility_group)

    def _stamp(self, subject: str) -> Stamp:
        """The delete/config counter and the subject's last version, in one tiny statement: a cached
        registration stays valid while neither moved (a new version can change what a request without a
        contract carries forward)."""
        try:
            with self.db.engine.connect() as conn:
                found = conn.execute(STAMP_QUERY, {"name": subject}).first()
        except SQLAlchemyError as exc:
            raise errors.StoreError(f"Error in the backend datastore: {exc}") from exc
        if found is None:
            raise errors.StoreError("The registry database is not initialized; run `registry db upgrade`.")
        return int(found[0]), int(found[1])

    # -- registration -----------------------------------------------------------------------------
    def register(self, subject: str, request: SchemaRequest, normalize: bool = False) -> Registered:
        """Registers ``request`` under ``subject``; already live with its contract: that id and version."""
        parsed = self.parse_request(request, normalize)
        text_to_store = parsed.text  # normalized: the normalized text; else the text as sent
        if request.id is None:
            cache_key = (subject, _request_key(parsed, request))
            hit = self.registered_cache.get(cache_key)
            if hit is not None and hit[0] == self._stamp(subject):
                return hit[1]
            fast = self._read(lambda session: self._already_registered(session, subject, parsed, request))
            if fast is not None:
                self.registered_cache.put(cache_key, fast)
                return fast[1]
        done = self._write(
            lambda session: self._register_locked(session, subject, parsed, text_to_store, request)
        )
        if done.created and self.on_registered is not None:
            self.on_registered(subject, done)
        return done

    def _already_registered(
        self, session: Session, subject: str, parsed: Parsed, request: SchemaRequest
    ) -> tuple[Stamp, Registered] | None:
        """The existing live registration and the stamp it was read at (then remembered until it moves)."""
        state = q.state(session)
        row = q.subject(session, subject)
        if row is None or q.effective_mode(state, row) != "READWRITE":
            return None
        stamp = (state.epoch, row.last_version)
        candidate = self._candidate(session, row, parsed, request, "READWRITE", q.latest_live(session, row))
        found = q.version_with_hash(session, row, candidate.key)
        if found is None or found.deleted:
            return None
        return stamp, Registered(
            found.schema_id, found.version, False, self._schema_in(session, found.schema_id)
        )

    def _register_locked(
        self, session: Session, subject: str, parsed: Parsed, text: str, request: SchemaRequest
    ) -> Registered:
        state = q.state(session)
        row = q.subject(session, subject)
        mode = q.effective_mode(state, row)
        if mode == "READONLY":
            raise errors.OperationNotPermitted(f"Subject '{subject}' is in read-only mode.")
        if (request.id is not None or request.version is not None) and mode != "IMPORT":
            raise errors.OperationNotPermitted(
                f"Subject '{subject}' is not in import mode; 'id' and 'version' may only be given in IMPORT."
            )
        latest = q.latest_live(session, row)  # carries a contract forward; BACKWARD's one baseline
        candidate = self._candidate(session, row, parsed, request, mode, latest)
        if row is not None:
            found = q.version_with_hash(session, row, candidate.key)
            if found is not None and not found.deleted and request.id in (None, found.schema_id):
                return Registered(
                    found.schema_id, found.version, False, self._schema_in(session, found.schema_id)
                )
        if mode != "IMPORT":
            level = q.effective_compatibility(state, row)
            pairs = self._versions_to_check(session, row, level, candidate, latest)
            found_conflicts = schema_logic.conflicts(parsed, pairs, level)
            if found_conflicts:
                raise schema_logic.incompatible_error(subject, level, found_conflicts)
        record = self._schema_record(session, parsed, candidate, text, request)
        if row is None:
            row = Subject(name=subject, last_version=0)
            session.add(row)
            session.flush()
        version = request.version or row.last_version + 1
        if session.execute(
            select(SubjectVersion.id).where(
                SubjectVersion.subject_id == row.id, SubjectVersion.version == version
            )
        ).first():
            raise errors.OperationNotPermitted(f"Version {version} of subject '{subject}' already exists.")
        row.last_version = max(row.last_version, version)
        session.add(SubjectVersion(subject_id=row.id, version=version, schema_id=record.id, deleted=False))
        session.flush()
        return Registered(record.id, version, True, self._stored(record))

    def _versions_to_check(
        self,
        session: Session,
        row: Subject | None,
        level: str,
        candidate: Candidate,
        latest: Latest | None,
    ) -> list[tuple[int, Parsed]]:
        """The versions a new schema is checked against: those of its compatibility group (Confluent).
        A non-transitive level without a group needs only ``latest``, which the caller has read."""
        one = level != "NONE" and not level.endswith("_TRANSITIVE")
        if candidate.group is None and one:
            pairs = [latest] if latest is not None else []
        elif candidate.group is None:
            pairs = q.versions_to_check(session, row, level)
        else:
            pairs = in_group(
                q.versions_to_check(session, row, "FULL_TRANSITIVE"),
                lambda pair: self._stored(pair[1]).metadata,
                candidate.group,
                candidate.group_value,
                level.endswith("_TRANSITIVE"),
            )
        return [(version, self.parsed(self._stored(record))) for version, record in pairs]

    def _schema_record(
        self,
        session: Session,
        parsed: Parsed,
        candidate: Candidate,
        text: str,
        request: SchemaRequest,
    ) -> SchemaRecord:
        record = q.schema_by_hash(session, candidate.key)
        if record is not None:
            if request.id is not None and request.id != record.id:
                raise errors.OperationNotPermitted(
                    f"This schema already has id {record.id}; it cannot be imported as id {request.id}."
                )
            return record
        schema_id = request.id or q.next_schema_id(session)
        if request.id is not None and session.get(SchemaRecord, request.id) is not None:
            raise errors.OperationNotPermitted(f"Id {request.id} is already used by a different schema.")
        refs: list[dict[str, Any]] = [
            {"name": r.name, "subject": r.subject, "version": r.version} for r in request.references
        ]
        record = SchemaRecord(
            id=schema_id,
            identity_hash=candidate.key,
            guid=schema_logic.guid_for(candidate.key),
            schema_type=request.schema_type,
            schema_text=text,
            fingerprint=parsed.fingerprint,
            references_json=json.dumps(refs),
            metadata_json=to_text(candidate.metadata),
            rule_set_json=to_text(candidate.rule_set),
        )
        session.add(record)
        session.add_all(SchemaReference(schema_id=schema_id, **ref) for ref in refs)
        session.flush()
        return record

    # -- lookup and compatibility -----------------------------------------------------------------
    def lookup(
        self, subject: str, request: SchemaRequest, include_deleted: bool, normalize: bool = False
    ) -> VersionView:
        """The version of ``subject`` holding this schema (``POST /subjects/{s}``): first as sent, then as
        a registration would complete it (the previous version's contract, the config's), as Confluent;
        ``normalize``, as the registration's ``normalize=true`` stored it."""
        parsed = self.parse_request(request, normalize)
        exact, _, _ = _request_key(parsed, request)

        def work(session: Session) -> VersionView:
            row = q.existing_subject(session, subject)
            found = q.version_with_hash(session, row, exact)
            if found is None or (found.deleted and not include_deleted):
                latest = q.latest_live(session, row)
                completed = self._candidate(session, row, parsed, request, "READWRITE", latest).key
                found = q.version_with_hash(session, row, completed) if completed != exact else found
            if found is None or (found.deleted and not include_deleted):
                raise errors.SchemaNotFound(f"Schema not found under subject '{subject}'.")
            return VersionView(
                subject, found.version, found.deleted, self._schema_in(session, found.schema_id)
            )

        return self._read(work)

    def check(
        self, subject: str, request: SchemaRequest, version: int | None, normalize: bool = False
    ) -> tuple[str, list[Conflict]]:
        """Conflicts of a candidate with one version (``version``) or with the subject's history; the
        candidate is completed as a registration would be, so the answer is the registration's."""
        found = self.check_detailed(subject, request, version, normalize)
        return found.level, found.conflicts

    def check_detailed(
        self, subject: str, request: SchemaRequest, version: int | None, normalize: bool = False
    ) -> CheckOutcome:
        """:meth:`check` with what it compared: the versions, and the candidate's compatibility group.

        The API's ``/compatibility`` answers from this, and the page's check shows it, so both compare the
        same versions the same way (references resolved from the registry)."""
        parsed = self.parse_request(request, normalize)

        def work(session: Session) -> tuple[str, list[tuple[int, Parsed]], str | None, str | None]:
            state = q.state(session)
            if version is None:
                row = q.subject(session, subject)
                level = q.effective_compatibility(state, row)
                latest = q.latest_live(session, row)
                candidate = self._candidate(session, row, parsed, request, "READWRITE", latest)
                pairs = self._versions_to_check(session, row, level, candidate, latest)
                return level, pairs, candidate.group, candidate.group_value
            subject_row, found, record = q.version_row(session, subject, version, include_deleted=False)
            level = q.effective_compatibility(state, subject_row)
            stored = self._stored(record)
            group = scope_config(state, subject_row).compatibility_group
            if group is not None:
                latest = q.latest_live(session, subject_row)
                candidate = self._candidate(session, subject_row, parsed, request, "READWRITE", latest)
                if group_value(stored.metadata, group) != candidate.group_value:
                    return level, [], group, candidate.group_value  # another group: nothing to compare
                return level, [(found.version, self.parsed(stored))], group, candidate.group_value
            return level, [(found.version, self.parsed(stored))], None, None

        level, pairs, group, value = self._read(work)
        return CheckOutcome(
            level=level,
            compared=tuple(number for number, _ in pairs),
            conflicts=schema_logic.conflicts(parsed, pairs, level),
            group=group,
            group_value=value,
            candidate=parsed,
        )
