"""Compatibility levels, modes and deletes: the repository's administrative writes.

A mixin of :class:`registry.storage.repository.Registry`, split off to keep each module readable; it uses
the host's ``_read`` / ``_write`` transaction helpers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from sqlalchemy import delete
from sqlalchemy.orm import Session

from registry.service import errors
from registry.service.requests import DEFAULT_COMPATIBILITY, DEFAULT_MODE, LATEST
from registry.storage import queries as q
from registry.storage.models import RegistryState, Subject, SubjectVersion

if TYPE_CHECKING:
    from registry.storage.cache import LRUCache
    from registry.storage.views import VersionView

T = TypeVar("T")


def _setting(
    session: Session, subject: str | None, column: str, default: str, default_to_global: bool
) -> str:
    """A subject's own level or mode; without one, the global one when asked for, else Confluent's 404."""
    state = q.state(session)
    global_value: str = getattr(state, column) or default
    if subject is None:
        return global_value
    row = q.subject(session, subject)
    if row is not None and getattr(row, column):
        return str(getattr(row, column))
    if default_to_global:
        return global_value
    raise _no_subject_setting(subject, column)


def _no_subject_setting(subject: str, column: str) -> errors.RegistryError:
    if column == "mode":
        return errors.SubjectModeNotFound(f"Subject '{subject}' does not have subject-level mode.")
    return errors.SubjectConfigNotFound(f"Subject '{subject}' does not have subject-level compatibility.")


class SettingsMixin:
    """Config and mode endpoints, and soft/permanent deletes."""

    if TYPE_CHECKING:
        version_cache: LRUCache[tuple[int, VersionView]]

        def _read(self, work: Callable[[Session], T]) -> T: ...
        def _write(self, work: Callable[[Session], T]) -> T: ...

    # -- compatibility level ----------------------------------------------------------------------
    def get_compatibility(self, subject: str | None, default_to_global: bool = False) -> str:
        return self._read(
            lambda session: _setting(
                session, subject, "compatibility", DEFAULT_COMPATIBILITY, default_to_global
            )
        )

    def set_compatibility(self, subject: str | None, level: str) -> str:
        def work(session: Session) -> str:
            self._settings_row(session, subject).compatibility = level
            return level

        return self._write(work)

    def delete_compatibility(self, subject: str | None) -> str:
        """Removes a level; returns the one that was in force (global: back to the default)."""

        def work(session: Session) -> str:
            if subject is None:
                state = q.state(session)
                previous = state.compatibility or DEFAULT_COMPATIBILITY
                state.compatibility = None
                return previous
            row = q.subject(session, subject)
            if row is None or not row.compatibility:
                raise _no_subject_setting(subject, "compatibility")
            previous, row.compatibility = row.compatibility, None
            return previous

        return self._write(work)

    # -- mode -------------------------------------------------------------------------------------
    def get_mode(self, subject: str | None, default_to_global: bool = False) -> str:
        return self._read(lambda session: _setting(session, subject, "mode", DEFAULT_MODE, default_to_global))

    def set_mode(self, subject: str | None, mode: str) -> str:
        def work(session: Session) -> str:
            self._settings_row(session, subject).mode = mode
            self._bump_epoch(session)  # cached registrations must see READONLY at once
            return mode

        return self._write(work)

    def delete_mode(self, subject: str) -> str:
        def work(session: Session) -> str:
            row = q.subject(session, subject)
            if row is None or not row.mode:
                raise _no_subject_setting(subject, "mode")
            previous, row.mode = row.mode, None
            self._bump_epoch(session)
            return previous

        return self._write(work)

    @staticmethod
    def _settings_row(session: Session, subject: str | None) -> RegistryState | Subject:
        """The row a setting lives on; a subject may be configured before its first version."""
        if subject is None:
            return q.state(session)
        row = q.subject(session, subject)
        if row is None:
            row = Subject(name=subject, last_version=0)
            session.add(row)
        return row

    # -- deletes ----------------------------------------------------------------------------------
    def _writable(self, session: Session, row: Subject) -> None:
        if q.effective_mode(q.state(session), row) == "READONLY":
            raise errors.OperationNotPermitted(f"Subject '{row.name}' is in read-only mode.")

    def _bump_epoch(self, session: Session) -> None:
        """Tells every process's caches that a delete or a mode change happened."""
        q.state(session).epoch += 1

    def delete_version(self, subject: str, version: int, permanent: bool) -> int:
        def work(session: Session) -> int:
            row = q.existing_subject(session, subject)
            self._writable(session, row)
            if version == LATEST and not permanent:
                found = q.resolve_version(session, row, LATEST, include_deleted=False)
            else:
                found = q.resolve_version(session, row, version, include_deleted=True)
            if not permanent and found.deleted:
                raise errors.VersionSoftDeleted(
                    f"Subject '{subject}' Version {found.version} was soft deleted. "
                    "Set permanent=true to delete permanently"
                )
            if permanent and not found.deleted:
                raise errors.VersionNotSoftDeleted(
                    f"Subject '{subject}' Version {found.version} was not deleted first before being "
                    "permanently deleted"
                )
            users = q.referencing_schema_ids(session, subject, [found.version])
            if users:
                raise errors.ReferenceExists(f"Schemas {users} reference this version; delete them first.")
            if permanent:
                session.delete(found)
            else:
                found.deleted = True
            self._bump_epoch(session)
            return found.version

        return self._write(work)

    def delete_subject(self, subject: str, permanent: bool) -> list[int]:
        def work(session: Session) -> list[int]:
            row = q.existing_subject(session, subject)
            self._writable(session, row)
            rows = q.versions(session, row, include_deleted=True)
            live = [r for r in rows if not r.deleted]
            if permanent and live:
                raise errors.SubjectNotSoftDeleted(
                    f"Subject '{subject}' was not deleted first before being permanently deleted"
                )
            if not permanent and not live:
                raise errors.SubjectSoftDeleted(
                    f"Subject '{subject}' was soft deleted. Set permanent=true to delete permanently"
                )
            users = q.referencing_schema_ids(session, subject, [r.version for r in rows])
            if users:
                raise errors.ReferenceExists(f"Schemas {users} reference this subject; delete them first.")
            if permanent:
                session.execute(delete(SubjectVersion).where(SubjectVersion.subject_id == row.id))
                row.compatibility = row.mode = None
                done = [r.version for r in rows]
            else:
                for r in live:
                    r.deleted = True
                done = [r.version for r in live]
            self._bump_epoch(session)
            return done

        return self._write(work)
