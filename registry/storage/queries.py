"""Query helpers over an open session, shared by the read and write paths of the repository."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from registry.service import errors
from registry.service.bodies import DEFAULT_COMPATIBILITY, DEFAULT_MODE
from registry.service.requests import LATEST
from registry.storage.models import RegistryState, SchemaRecord, SchemaReference, Subject, SubjectVersion

SelectT = TypeVar("SelectT", bound=Select[Any])


def state(session: Session, lock: bool = False) -> RegistryState:
    """The global row; ``lock`` takes the registry write lock (PostgreSQL row lock) until commit.

    Unlocked reads go through the identity map, so inside a write transaction they cost no query.
    """
    if lock:
        stmt = select(RegistryState).where(RegistryState.id == 1).with_for_update()
        found = session.execute(stmt).scalar_one_or_none()
    else:
        found = session.get(RegistryState, 1)
    if found is None:
        raise errors.StoreError("The registry database is not initialized; run `registry db upgrade`.")
    return found


def subject(session: Session, name: str) -> Subject | None:
    return session.execute(select(Subject).where(Subject.name == name)).scalar_one_or_none()


def versions(session: Session, subject_row: Subject, include_deleted: bool) -> list[SubjectVersion]:
    """The subject's version rows, oldest first."""
    stmt = select(SubjectVersion).where(SubjectVersion.subject_id == subject_row.id)
    if not include_deleted:
        stmt = stmt.where(SubjectVersion.deleted.is_(False))
    return list(session.execute(stmt.order_by(SubjectVersion.version)).scalars())


def existing_subject(session: Session, name: str) -> Subject:
    """The subject if it has any version row (even soft-deleted), else 40401."""
    row = subject(session, name)
    if (
        row is None
        or not session.execute(
            select(SubjectVersion.id).where(SubjectVersion.subject_id == row.id).limit(1)
        ).first()
    ):
        raise errors.SubjectNotFound(f"Subject '{name}' not found.")
    return row


def _one_version(stmt: SelectT, version: int, include_deleted: bool) -> SelectT:
    """Narrows a query over versions to ``version`` (or the latest), soft-deleted ones only when asked."""
    if not include_deleted:
        stmt = stmt.where(SubjectVersion.deleted.is_(False))
    if version == LATEST:
        return stmt.order_by(SubjectVersion.version.desc()).limit(1)
    return stmt.where(SubjectVersion.version == version)


def resolve_version(
    session: Session, subject_row: Subject, version: int, include_deleted: bool
) -> SubjectVersion:
    """Version ``version`` (or the latest) of a subject, honouring soft deletes."""
    stmt = select(SubjectVersion).where(SubjectVersion.subject_id == subject_row.id)
    stmt = _one_version(stmt, version, include_deleted)
    row = session.execute(stmt).scalar_one_or_none()
    if row is None:
        shown = "latest" if version == LATEST else version
        raise errors.VersionNotFound(f"Version {shown} not found for subject '{subject_row.name}'.")
    return row


def version_with_hash(session: Session, subject_row: Subject, identity_hash: str) -> SubjectVersion | None:
    """The newest live version of the subject whose schema has this dedupe key."""
    stmt = (
        select(SubjectVersion)
        .join(SchemaRecord, SchemaRecord.id == SubjectVersion.schema_id)
        .where(SubjectVersion.subject_id == subject_row.id, SchemaRecord.identity_hash == identity_hash)
        .order_by(SubjectVersion.deleted, SubjectVersion.version.desc())
        .limit(1)
    )
    return session.execute(stmt).scalar_one_or_none()


def latest_live(session: Session, subject_row: Subject | None) -> tuple[int, SchemaRecord] | None:
    """The subject's latest live version and its schema: what a registration carries a contract from."""
    if subject_row is None:
        return None
    stmt = (
        select(SubjectVersion.version, SchemaRecord)
        .join(SchemaRecord, SchemaRecord.id == SubjectVersion.schema_id)
        .where(SubjectVersion.subject_id == subject_row.id, SubjectVersion.deleted.is_(False))
        .order_by(SubjectVersion.version.desc())
        .limit(1)
    )
    found = session.execute(stmt).first()
    return (found[0], found[1]) if found is not None else None


def schema_by_hash(session: Session, identity_hash: str) -> SchemaRecord | None:
    return session.execute(
        select(SchemaRecord).where(SchemaRecord.identity_hash == identity_hash)
    ).scalar_one_or_none()


def next_schema_id(session: Session) -> int:
    """max(id) + 1; only called under the registry lock, which makes it unique and monotonic."""
    return int(session.execute(select(func.coalesce(func.max(SchemaRecord.id), 0))).scalar_one()) + 1


def referencing_schema_ids(session: Session, subject_name: str, version_numbers: list[int]) -> list[int]:
    """Ids of schemas, still live in some subject, that reference any of these versions."""
    if not version_numbers:
        return []
    live = select(SubjectVersion.schema_id).where(SubjectVersion.deleted.is_(False))
    stmt = (
        select(SchemaReference.schema_id)
        .where(
            SchemaReference.subject == subject_name,
            SchemaReference.version.in_(version_numbers),
            SchemaReference.schema_id.in_(live),
        )
        .distinct()
        .order_by(SchemaReference.schema_id)
    )
    return list(session.execute(stmt).scalars())


def effective_compatibility(state_row: RegistryState, subject_row: Subject | None) -> str:
    if subject_row is not None and subject_row.compatibility:
        return subject_row.compatibility
    return state_row.compatibility or DEFAULT_COMPATIBILITY


def effective_mode(state_row: RegistryState, subject_row: Subject | None) -> str:
    if subject_row is not None and subject_row.mode:
        return subject_row.mode
    return state_row.mode or DEFAULT_MODE


def versions_to_check(
    session: Session, subject_row: Subject | None, level: str
) -> list[tuple[int, SchemaRecord]]:
    """(version, schema) pairs a new schema is checked against, oldest first, in one query.

    Non-transitive levels only ever look at the latest live version, so only that row is read; this keeps
    registration O(1) in the subject's history instead of loading every version.
    """
    if level == "NONE":
        return []
    return live_versions(session, subject_row, every=level.endswith("_TRANSITIVE"))


def live_versions(
    session: Session, subject_row: Subject | None, every: bool
) -> list[tuple[int, SchemaRecord]]:
    """(version, schema) of every live version, oldest first, or (``every`` false) of the latest only."""
    if subject_row is None:
        return []
    stmt = (
        select(SubjectVersion.version, SchemaRecord)
        .join(SchemaRecord, SchemaRecord.id == SubjectVersion.schema_id)
        .where(SubjectVersion.subject_id == subject_row.id, SubjectVersion.deleted.is_(False))
    )
    if every:
        return [(v, r) for v, r in session.execute(stmt.order_by(SubjectVersion.version))]
    return [(v, r) for v, r in session.execute(stmt.order_by(SubjectVersion.version.desc()).limit(1))]


def version_row(
    session: Session, subject_name: str, version: int, include_deleted: bool
) -> tuple[Subject, SubjectVersion, SchemaRecord]:
    """Subject, version and schema in one query (the hot read path); the precise 404 on a miss."""
    stmt = (
        select(Subject, SubjectVersion, SchemaRecord)
        .join(SubjectVersion, SubjectVersion.subject_id == Subject.id)
        .join(SchemaRecord, SchemaRecord.id == SubjectVersion.schema_id)
        .where(Subject.name == subject_name)
    )
    stmt = _one_version(stmt, version, include_deleted)
    row = session.execute(stmt).first()
    if row is None:
        subject_row = existing_subject(session, subject_name)
        if not include_deleted and not versions(session, subject_row, include_deleted=False):
            raise errors.SubjectNotFound(f"Subject '{subject_name}' not found.")  # soft-deleted as a whole
        resolve_version(session, subject_row, version, include_deleted)
        raise errors.StoreError("version vanished while it was being read")  # unreachable in practice
    return row[0], row[1], row[2]
