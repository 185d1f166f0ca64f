"""Config (compatibility levels and data-contract settings), modes and deletes: the administrative writes.

A mixin of :class:`registry.storage.repository.Registry`, split off to keep each module readable; it uses
the host's ``_read`` / ``_write`` transaction helpers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import delete
from sqlalchemy.orm import Session

from registry.service import errors
from registry.service.bodies import DEFAULT_COMPATIBILITY, DEFAULT_MODE
from registry.service.contract_config import ConfigUpdate, ContractConfig, in_scope
from registry.service.contracts import from_text, to_text
from registry.service.requests import LATEST
from registry.storage import queries as q
from registry.storage.models import RegistryState, Subject, SubjectVersion

if TYPE_CHECKING:
    from registry.storage.cache import LRUCache
    from registry.storage.views import VersionView

T = TypeVar("T")


def _setting(
    session: Session, subject: str | None, column: str, default: str, default_to_global: bool
) -> str:
    """A subject's own mode; without one, the global one when asked for, else Confluent's 404."""
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


def contract_settings(row: RegistryState | Subject | None) -> ContractConfig:
    """The contract config stored on a row (all unset for ``None``)."""
    if row is None:
        return ContractConfig()
    return ContractConfig(
        compatibility_group=row.compatibility_group,
        default_metadata=from_text(row.default_metadata),
        override_metadata=from_text(row.override_metadata),
        default_rule_set=from_text(row.default_rule_set),
        override_rule_set=from_text(row.override_rule_set),
    )


def _store_contract_settings(row: RegistryState | Subject, config: ContractConfig) -> None:
    row.compatibility_group = config.compatibility_group
    row.default_metadata = to_text(config.default_metadata)
    row.override_metadata = to_text(config.override_metadata)
    row.default_rule_set = to_text(config.default_rule_set)
    row.override_rule_set = to_text(config.override_rule_set)


def own_config(row: Subject | None) -> ContractConfig | None:
    """A subject's contract config when it has a config of its own (a level or any contract setting)."""
    if row is None:
        return None
    config = contract_settings(row)
    return config if row.compatibility or not config.is_empty() else None


def scope_config(state: RegistryState, row: Subject | None) -> ContractConfig:
    """The contract config a subject's registrations use (``contract_config.in_scope``)."""
    return in_scope(contract_settings(state), own_config(row))


def _config_body(level: str, config: ContractConfig) -> dict[str, Any]:
    return {"compatibilityLevel": level, **config.body()}


class SettingsMixin:
    """Config and mode endpoints, and soft/permanent deletes."""

    if TYPE_CHECKING:
        version_cache: LRUCache[tuple[int, VersionView]]

        def _read(self, work: Callable[[Session], T]) -> T: ...
        def _write(self, work: Callable[[Session], T]) -> T: ...

    # -- config: compatibility level and data-contract settings -----------------------------------
    def get_config(self, subject: str | None, default_to_global: bool = False) -> dict[str, Any]:
        """``GET /config[/{subject}]``: the level that applies and the contract settings of the scope."""

        def work(session: Session) -> dict[str, Any]:
            state = q.state(session)
            if subject is None:
                return _config_body(q.effective_compatibility(state, None), contract_settings(state))
            row = q.subject(session, subject)
            own = own_config(row)
            if own is None and not default_to_global:
                raise _no_subject_setting(subject, "compatibility")
            level = q.effective_compatibility(state, row)
            return _config_body(
                level, scope_config(state, row) if default_to_global else own or ContractConfig()
            )

        return self._read(work)

    def update_config(self, subject: str | None, update: ConfigUpdate) -> dict[str, Any]:
        """``PUT /config[/{subject}]``: sets what the body gives; answers the scope's settings."""

        def work(session: Session) -> dict[str, Any]:
            row = self._settings_row(session, subject)
            if update.compatibility is not None:
                row.compatibility = update.compatibility
            before = contract_settings(row)
            after = update.apply(before)
            if after != before:
                _store_contract_settings(row, after)
                self._bump_epoch(session)  # cached registrations must see new defaults and overrides
            answer: dict[str, Any] = {"compatibility": row.compatibility} if row.compatibility else {}
            return {**answer, **after.body()}

        return self._write(work)

    def delete_config(self, subject: str | None) -> dict[str, Any]:
        """Removes a scope's settings; answers the ones that were in force (global: back to defaults)."""

        def work(session: Session) -> dict[str, Any]:
            state = q.state(session)
            row: RegistryState | Subject | None = state if subject is None else q.subject(session, subject)
            if subject is not None and own_config(row) is None:  # type: ignore[arg-type]
                raise _no_subject_setting(subject, "compatibility")
            assert row is not None
            previous = _config_body(row.compatibility or DEFAULT_COMPATIBILITY, contract_settings(row))
            if not contract_settings(row).is_empty():
                self._bump_epoch(session)
            row.compatibility = None
            _store_contract_settings(row, ContractConfig())
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
                _store_contract_settings(row, ContractConfig())
                done = [r.version for r in rows]
            else:
                for r in live:
                    r.deleted = True
                done = [r.version for r in live]
            self._bump_epoch(session)
            return done

        return self._write(work)
