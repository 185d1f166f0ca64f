"""Backups of the registry as one versioned JSON document, and restoring them with every id kept.

Clients cache schema ids forever and Kafka records carry them, so a restore that renumbered anything would
break every consumer: rows are copied verbatim (schema ids, versions, soft-deleted flags, settings).
Import validates the whole document before touching the database and writes in one transaction, so a bad
file or a failure half way leaves the target as it was. Users are not part of a backup (secrets stay put).

Format version 2 adds data contracts: each schema's GUID, metadata and rule set, and the contract settings
of the global config and of each subject. Version 1 documents (written before) still import: their
schemas get the GUIDs this registry derives from their identity, and no contracts.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from registry.service.bodies import COMPATIBILITY_LEVELS, MODES
from registry.service.contracts import from_text, parse_metadata, parse_rule_set, to_text
from registry.service.errors import RegistryError
from registry.service.schemas import guid_for
from registry.storage.db import Database
from registry.storage.models import RegistryState, SchemaRecord, SchemaReference, Subject, SubjectVersion

FORMAT = "avro-registry-backup"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
#: The contract settings of a scope, under their backup names: (column, kind of value).
CONTRACT_SETTINGS = (
    ("compatibility_group", "group"),
    ("default_metadata", "metadata"),
    ("override_metadata", "metadata"),
    ("default_rule_set", "rule_set"),
    ("override_rule_set", "rule_set"),
)


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
                **_export_settings(state),
            },
            "schemas": [
                {
                    "id": s.id,
                    "schema_type": s.schema_type,
                    "schema": s.schema_text,
                    "references": json.loads(s.references_json),
                    "identity_hash": s.identity_hash,
                    "guid": s.guid or guid_for(s.identity_hash),
                    "fingerprint": s.fingerprint,
                    "metadata": from_text(s.metadata_json),
                    "rule_set": from_text(s.rule_set_json),
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
                    **_export_settings(s),
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
        _import_settings(state, document["config"])
        state.epoch = (state.epoch or 0) + 1
        for s in document["schemas"]:
            session.add(
                SchemaRecord(
                    id=s["id"],
                    identity_hash=s["identity_hash"],
                    guid=s.get("guid") or guid_for(s["identity_hash"]),
                    schema_type=s["schema_type"],
                    schema_text=s["schema"],
                    fingerprint=s["fingerprint"],
                    references_json=json.dumps(s["references"]),
                    metadata_json=to_text(s.get("metadata")),
                    rule_set_json=to_text(s.get("rule_set")),
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
            _import_settings(row, sub)
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
    if version not in READABLE_VERSIONS:
        readable = " and ".join(str(v) for v in READABLE_VERSIONS)
        raise BackupError(f"unsupported backup format_version {version!r} (this registry reads {readable})")
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
            _schema_contract(s)
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
    """A compatibility level or mode the registry does not know would break every later registration;
    so would contract settings it cannot read."""
    for key, allowed in (("compatibility", COMPATIBILITY_LEVELS), ("mode", MODES)):
        value = holder[key]
        _expect(
            value is None or value in allowed, f"{where} {key} {value!r} is not one of {', '.join(allowed)}"
        )
    for key, kind in CONTRACT_SETTINGS:
        value = holder.get(key)
        if kind == "group":
            _expect(
                value is None or (isinstance(value, str) and value != ""), f"{where} {key} must be a name"
            )
        else:
            _contract_value(value, kind, f"{where} {key}")


def _contract_value(value: Any, kind: str, where: str) -> None:
    """Metadata or a rule set must be exactly what the API would have stored (canonical and valid)."""
    try:
        parsed = parse_metadata(value, where) if kind == "metadata" else parse_rule_set(value, where)
    except RegistryError as exc:
        raise BackupError(f"malformed backup: {exc.message}") from exc
    _expect(parsed == (value or None) or (parsed == {} and value == {}), f"{where} is not in canonical form")


def _schema_contract(schema: dict[str, Any]) -> None:
    where = f"schema {schema['id']}:"
    guid = schema.get("guid")
    if guid is not None:
        _expect(isinstance(guid, str) and _is_guid(guid), f"{where} guid {guid!r} is not a UUID")
    _contract_value(schema.get("metadata"), "metadata", f"{where} metadata")
    _contract_value(schema.get("rule_set"), "rule_set", f"{where} rule_set")


def _is_guid(text: str) -> bool:
    try:
        return str(uuid.UUID(text)) == text
    except ValueError:
        return False


def _export_settings(row: RegistryState | Subject | None) -> dict[str, Any]:
    if row is None:
        return {key: None for key, _ in CONTRACT_SETTINGS}
    return {
        key: getattr(row, key) if kind == "group" else from_text(getattr(row, key))
        for key, kind in CONTRACT_SETTINGS
    }


def _import_settings(row: RegistryState | Subject, holder: dict[str, Any]) -> None:
    for key, kind in CONTRACT_SETTINGS:
        value = holder.get(key)
        setattr(row, key, value if kind == "group" else to_text(value))


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
