"""Backups of the registry as one versioned JSON document, and restoring them with every id kept.

Clients cache schema ids forever and Kafka records carry them, so a restore that renumbered anything would
break every consumer: rows are copied verbatim (schema ids, versions, soft-deleted flags, settings).
Import validates the whole document before touching the database and writes in one transaction, so a bad
file or a failure half way leaves the target as it was. Users are not part of a backup (secrets stay put).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from registry.service.requests import COMPATIBILITY_LEVELS, MODES
from registry.storage.db import Database
from registry.storage.models import RegistryState, SchemaRecord, SchemaReference, Subject, SubjectVersion

FORMAT = "avro-registry-backup"
FORMAT_VERSION = 1


class BackupError(Exception):
    """The document cannot be imported (malformed, another version) or the target is not empty."""


def export_registry(database: Database) -> dict[str, Any]:
    """Everything needed to rebuild the registry, in a plain JSON-ready dict.

    The queries must all see one snapshot, or a version registered between two of them would point at a
    schema id the document does not hold. SQLite's read transaction is a snapshot already; PostgreSQL's
    default (READ COMMITTED) takes a new one per statement, so the export asks for REPEATABLE READ.
    """
    with database.read() as session:
        if session.get_bind().dialect.name == "postgresql":
            session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
        state = session.get(RegistryState, 1)
        schemas = session.scalars(select(SchemaRecord).order_by(SchemaRecord.id)).all()
        subjects = session.scalars(select(Subject).order_by(Subject.name)).all()
        versions = session.execute(
            select(Subject.name, SubjectVersion)
            .join(SubjectVersion.subject)
            .order_by(Subject.name, SubjectVersion.version)
        ).all()
        by_subject: dict[str, list[dict[str, Any]]] = {}
        for name, row in versions:
            by_subject.setdefault(name, []).append(
                {
                    "version": row.version,
                    "schema_id": row.schema_id,
                    "deleted": row.deleted,
                    "created_at": _iso(row.created_at),
                }
            )
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "exported_at": datetime.now(UTC).isoformat(),
            "config": {
                "compatibility": state.compatibility if state else None,
                "mode": state.mode if state else None,
            },
            "schemas": [
                {
                    "id": s.id,
                    "schema_type": s.schema_type,
                    "schema": s.schema_text,
                    "references": json.loads(s.references_json),
                    "identity_hash": s.identity_hash,
                    "fingerprint": s.fingerprint,
                    "created_at": _iso(s.created_at),
                }
                for s in schemas
            ],
            "subjects": [
                {
                    "name": s.name,
                    "compatibility": s.compatibility,
                    "mode": s.mode,
                    "last_version": s.last_version,
                    "versions": by_subject.get(s.name, []),
                }
                for s in subjects
            ],
        }


def import_registry(database: Database, document: Any, force: bool = False) -> dict[str, int]:
    """Restores ``document``; refuses a non-empty target unless ``force`` (which replaces its contents)."""
    validate(document)
    try:
        return _write(database, document, force)
    except IntegrityError as exc:  # e.g. two schemas with one identity: the whole import is rolled back
        raise BackupError(f"the backup contradicts itself: {exc.orig}") from exc


def _write(database: Database, document: dict[str, Any], force: bool) -> dict[str, int]:
    with database.write() as session:
        if not _is_empty(session):
            if not force:
                raise BackupError("the target registry is not empty (use --force to replace its contents)")
            _clear(session)
        state = session.get(RegistryState, 1, with_for_update=True)  # the writers' lock
        if state is None:
            state = RegistryState(id=1, epoch=0)
            session.add(state)
        state.compatibility = document["config"]["compatibility"]
        state.mode = document["config"]["mode"]
        state.epoch = (state.epoch or 0) + 1
        for s in document["schemas"]:
            session.add(
                SchemaRecord(
                    id=s["id"],
                    identity_hash=s["identity_hash"],
                    schema_type=s["schema_type"],
                    schema_text=s["schema"],
                    fingerprint=s["fingerprint"],
                    references_json=json.dumps(s["references"]),
                    created_at=_parse_time(s.get("created_at")),
                )
            )
            session.add_all(
                SchemaReference(schema_id=s["id"], name=r["name"], subject=r["subject"], version=r["version"])
                for r in s["references"]
            )
        session.flush()
        count = 0
        for sub in document["subjects"]:
            row = Subject(
                name=sub["name"],
                compatibility=sub["compatibility"],
                mode=sub["mode"],
                last_version=sub["last_version"],
            )
            session.add(row)
            session.flush()
            for v in sub["versions"]:
                session.add(
                    SubjectVersion(
                        subject_id=row.id,
                        version=v["version"],
                        schema_id=v["schema_id"],
                        deleted=v["deleted"],
                        created_at=_parse_time(v.get("created_at")),
                    )
                )
                count += 1
        session.flush()
    return {"schemas": len(document["schemas"]), "subjects": len(document["subjects"]), "versions": count}


def validate(document: Any) -> None:
    """Checks shape and cross-references up front so that nothing is written for a bad file."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BackupError(f'not a registry backup (expected "format": "{FORMAT}")')
    version = document.get("format_version")
    if version != FORMAT_VERSION:
        raise BackupError(
            f"unsupported backup format_version {version!r} (this registry reads {FORMAT_VERSION})"
        )
    try:
        config = document["config"]
        _expect(isinstance(config, dict), "config must be an object")
        _settings(config, "config")
        ids: set[int] = set()
        for s in document["schemas"]:
            _expect(
                isinstance(s["id"], int) and s["id"] > 0,
                f"schema id {s.get('id')!r} is not a positive integer",
            )
            _expect(s["id"] not in ids, f"schema id {s['id']} appears twice")
            ids.add(s["id"])
            for key in ("schema_type", "schema", "identity_hash", "fingerprint"):
                _expect(isinstance(s[key], str), f"schema {s['id']}: {key} must be a string")
            _expect(isinstance(s["references"], list), f"schema {s['id']}: references must be a list")
            for r in s["references"]:
                _expect(isinstance(r["name"], str) and isinstance(r["subject"], str), "bad reference")
                _expect(isinstance(r["version"], int), "reference version must be an integer")
        names: set[str] = set()
        for sub in document["subjects"]:
            _expect(isinstance(sub["name"], str) and sub["name"], "subject name must be a non-empty string")
            _expect(sub["name"] not in names, f"subject {sub['name']!r} appears twice")
            names.add(sub["name"])
            _settings(sub, f"subject {sub['name']!r}:")
            highest = max((v["version"] for v in sub["versions"] if isinstance(v, dict)), default=0)
            _expect(
                isinstance(sub["last_version"], int) and sub["last_version"] >= highest,
                f"subject {sub['name']!r}: last_version must be an integer, at least its highest version "
                "(new registrations take the next number)",
            )
            seen: set[int] = set()
            for v in sub["versions"]:
                _expect(isinstance(v["version"], int) and v["version"] > 0, f"{sub['name']!r}: bad version")
                _expect(v["version"] not in seen, f"{sub['name']!r}: version {v['version']} appears twice")
                seen.add(v["version"])
                _expect(
                    v["schema_id"] in ids,
                    f"{sub['name']!r} v{v['version']}: unknown schema id {v['schema_id']}",
                )
                _expect(
                    isinstance(v["deleted"], bool),
                    f"{sub['name']!r} v{v['version']}: deleted must be a boolean",
                )
                _parse_time(v.get("created_at"))
    except (KeyError, TypeError) as exc:
        raise BackupError(f"malformed backup: missing or wrong field {exc}") from exc
    except ValueError as exc:
        raise BackupError(f"malformed backup: {exc}") from exc


def _settings(holder: dict[str, Any], where: str) -> None:
    """A compatibility level or mode the registry does not know would break every later registration."""
    for key, allowed in (("compatibility", COMPATIBILITY_LEVELS), ("mode", MODES)):
        value = holder[key]
        _expect(
            value is None or value in allowed, f"{where} {key} {value!r} is not one of {', '.join(allowed)}"
        )


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise BackupError(f"malformed backup: {message}")


def _is_empty(session: Session) -> bool:
    return not session.scalar(select(func.count()).select_from(SchemaRecord)) and not session.scalar(
        select(func.count()).select_from(Subject)
    )


def _clear(session: Session) -> None:
    """Deletes registry content (children first; users are left alone)."""
    for model in (SubjectVersion, SchemaReference, Subject, SchemaRecord):
        session.execute(delete(model))


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _parse_time(value: Any) -> datetime:
    if value is None:
        return datetime.now(UTC)
    if not isinstance(value, str):
        raise ValueError(f"timestamp {value!r} is not a string")
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
