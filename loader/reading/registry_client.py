"""The loader's view of a schema registry, through the Confluent REST API only.

Any Confluent-compatible registry works. Schemas are asked for by subject, including soft-deleted
versions: a message written with a version that was later soft-deleted must still be decoded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from urllib.parse import quote

import requests

from loader.reading.value_formats.lookup import (
    AVRO,
    LOADED_TYPES,
    PROTOBUF,
    Document,
    TableOf,
    UnloadableSchema,
    Version,
    compact_json,
    table_of,
)
from pipeline_client.client_settings import RegistryClientSettings
from pipeline_client.http_session import describe_refusal, describe_tls_failure, public_url
from pipeline_client.secret_values import Secret


class RegistryUnavailable(RuntimeError):
    """The registry did not answer as a registry should; nothing was loaded."""


class RegistryRefused(RegistryUnavailable):
    """The registry answered and refused the loader: its credentials, certificate or permissions."""


@dataclass(frozen=True)
class SubjectSchemas:
    """Every schema a topic's values were written with, and the one to project them onto, as the table
    sees them: Avro's JSON form (a JSON Schema's table, `loader.reading.value_formats.json_schema_tables`,
    for a subject of JSON Schemas, whose values are decoded by Spark's JSON reader)."""

    subject: str
    latest_id: int
    latest_schema: str
    writer_schemas: dict[int, str]  # schema id -> schema text, soft-deleted versions included
    schema_type: str = "AVRO"  # the registry's `schemaType` of the subject's latest version
    # A Protobuf subject's files, its messages' tables and where each writer's file has each message
    # (`loader.reading.value_formats.lookup.TableOf`).
    descriptors: str = ""
    message_tables: Mapping[str, str] = field(default_factory=dict)
    messages: Mapping[str, Mapping[str, tuple[int, ...]]] = field(default_factory=dict)

    @property
    def message(self) -> str:
        """The full name of the Protobuf message the table is of (its record's name)."""
        return str(json.loads(self.latest_schema)["name"])

    def of_message(self, name: str) -> SubjectSchemas:
        """The same subject, its table that of its Protobuf message `name` (a topic's other event type)."""
        if name not in self.message_tables:
            raise ValueError(f"subject {self.subject}'s latest schema has no message {name}")
        return replace(self, latest_schema=self.message_tables[name])


@dataclass(frozen=True)
class RegistrySnapshot:
    """All of a registry's schemas as two `GET /schemas` answers gave them: enough to say which subjects
    an Avro schema id is registered under without a request per id. A subject of another type has its
    table made when asked for (`schemas`, `why_unloadable`): a Protobuf schema is compiled for it."""

    writers: dict[str, dict[int, str]]  # Avro subject -> schema id -> text, soft-deleted versions included
    latest: dict[str, tuple[int, str]]  # Avro subject -> its latest live version's id and text
    others: dict[str, dict] = field(default_factory=dict)  # other subject -> its latest live version
    other_ids: dict[str, set[int]] = field(default_factory=dict)  # other subject -> its versions' ids
    versions: dict[tuple[str, int], dict] = field(default_factory=dict)  # every version, for references
    _tables: dict[str, TableOf | str] = field(default_factory=dict, compare=False, repr=False)
    _by_subject: dict[str, list[dict]] = field(default_factory=dict, compare=False, repr=False)

    def schemas(self, subject: str) -> SubjectSchemas | None:
        if subject in self.others:
            table = self._table(subject)
            if isinstance(table, str):
                return None
            latest = self.others[subject]
            return _other_schemas(subject, latest, self.other_ids.get(subject, set()), table)
        if subject not in self.latest:
            return None
        latest_id, latest_schema = self.latest[subject]
        schemas = {**self.writers.get(subject, {}), latest_id: latest_schema}
        return SubjectSchemas(subject, latest_id, latest_schema, schemas)

    def why_unloadable(self, subject: str) -> str | None:
        table = self._table(subject) if subject in self.others else None
        return table if isinstance(table, str) else None

    def _table(self, subject: str) -> TableOf | str:
        """The table of an other subject's latest version, or why it has none."""
        if subject not in self._tables:
            latest = self.others[subject]
            earlier = [
                Version(int(v["id"]), _document(v), _referenced(v, self.versions))
                for v in (self._versions_of(subject) if _schema_type(latest) == PROTOBUF else [])
                if _schema_type(v) == PROTOBUF and int(v["id"]) != int(latest["id"])
            ]
            self._tables[subject] = _table_or_why(latest, _referenced(latest, self.versions), earlier)
        return self._tables[subject]

    def _versions_of(self, subject: str) -> list[dict]:
        """A subject's versions, by number: the snapshot's versions indexed by subject once, not scanned
        for each Protobuf subject a run loads."""
        if not self._by_subject:
            for (name, _), version in sorted(self.versions.items()):
                self._by_subject.setdefault(name, []).append(version)
        return self._by_subject.get(subject, [])

    def subjects_of(self, schema_id: int) -> list[str]:
        return sorted(s for s, ids in self.writers.items() if schema_id in ids)

    def schema_text(self, schema_id: int) -> str | None:
        return next((ids[schema_id] for ids in self.writers.values() if schema_id in ids), None)


class RegistryClient:
    """``access`` holds the credentials and TLS settings (Confluent's client properties); ``sasl_login`` is
    the Kafka login, for ``basic.auth.credentials.source=SASL_INHERIT``."""

    def __init__(
        self,
        url: str,
        timeout_s: float = 30,
        access: RegistryClientSettings | None = None,
        sasl_login: tuple[str, Secret] | None = None,
    ) -> None:
        self.url = public_url(url).rstrip("/")  # user-info in the URL is credentials: never in a message
        self.timeout_s = timeout_s
        self.session = (access or RegistryClientSettings()).session(url.rstrip("/"), sasl_login)

    def _get(self, path: str, absent: tuple[int, ...] = (404,), **params: str) -> object:
        """The JSON answer; None when the status is one of `absent` (nothing there)."""
        try:
            response = self.session.get(f"{self.url}{path}", params=params, timeout=self.timeout_s)
        except requests.RequestException as exc:
            tls = describe_tls_failure(exc)
            if tls:
                raise RegistryRefused(f"schema registry at {self.url} refused the connection: {tls}") from exc
            raise RegistryUnavailable(f"schema registry at {self.url} did not answer: {exc}") from exc
        refusal = describe_refusal(response.status_code, response.text)
        if refusal:
            raise RegistryRefused(f"schema registry at {self.url} refused the loader: {refusal}")
        if response.status_code in absent:
            return None
        if response.status_code != 200:
            raise RegistryUnavailable(
                f"schema registry at {self.url} answered {response.status_code} to GET {path}: "
                f"{response.text[:300]}"
            )
        try:
            return response.json()
        except ValueError as exc:
            raise RegistryUnavailable(f"schema registry at {self.url} sent no JSON for GET {path}") from exc

    def subjects(self) -> set[str]:
        found = self._get("/subjects")
        if not isinstance(found, list):
            raise RegistryUnavailable(f"schema registry at {self.url} sent no subject list")
        return {str(s) for s in found}

    def subject_schemas(self, subject: str) -> SubjectSchemas | None:
        """The subject's writer schemas and latest schema, or None when it has no live version, or one
        the loader cannot make a table of (see `unloadable`)."""
        path = f"/subjects/{quote(subject, safe='')}"
        latest = self._get(f"{path}/versions/latest")
        if not isinstance(latest, dict):
            return None
        kind = _schema_type(latest)
        if kind not in LOADED_TYPES:
            return None
        versions = self._get(f"{path}/versions", deleted="true") or []
        found = []
        for version in versions if isinstance(versions, list) else []:
            answer = self._get(f"{path}/versions/{int(version)}", deleted="true")
            if isinstance(answer, dict) and _schema_type(answer) == kind:
                found.append(answer)
        earlier = [
            Version(int(v["id"]), _document(v), self._references(v))
            for v in found
            if kind == PROTOBUF and int(v["id"]) != int(latest["id"])
        ]
        table = _table_or_why(latest, self._references(latest), earlier)
        if isinstance(table, str):
            return None
        if kind != AVRO:
            return _other_schemas(subject, latest, {int(v["id"]) for v in found}, table)
        writers = {int(v["id"]): compact_json(str(v["schema"])) for v in found}
        writers[int(latest["id"])] = table.schema
        return SubjectSchemas(subject, int(latest["id"]), table.schema, writers)

    def _references(self, version: dict[str, object]) -> dict[str, Document]:
        """The documents a version references, theirs included, by reference name."""
        found: dict[str, Document] = {}
        pending = list(_reference_list(version))
        while pending:
            name, subject, number = pending.pop()
            if name in found:
                continue
            answer = self._get(f"/subjects/{quote(subject, safe='')}/versions/{number}", deleted="true")
            if isinstance(answer, dict) and isinstance(answer.get("schema"), str):
                found[name] = _document(answer)
                pending.extend(_reference_list(answer))
        return found

    def snapshot(self) -> RegistrySnapshot | None:
        """Every subject's schemas in two requests however many subjects there are: `GET /schemas` with
        soft-deleted versions (the writer schemas), and with `latestOnly` (each subject's latest live
        version). None from a registry that does not serve the list."""
        unsupported = (404, 405, 501)  # registries that do not serve the list answer one of these
        every = self._get("/schemas", unsupported, deleted="true")
        latest = self._get("/schemas", unsupported, latestOnly="true") if isinstance(every, list) else None
        if not isinstance(every, list) or not isinstance(latest, list):
            return None
        versions = {
            (str(v["subject"]), int(v["version"])): v
            for v in every
            if isinstance(v, dict) and {"subject", "version", "schema"} <= v.keys()
        }
        latest_of = {
            str(v["subject"]): (int(v["id"]), compact_json(v["schema"])) for v in latest if _is_avro(v)
        }
        others = {
            str(v["subject"]): v
            for v in latest
            if isinstance(v, dict) and "subject" in v and _schema_type(v) != AVRO
        }
        writers: dict[str, dict[int, str]] = {}
        other_ids: dict[str, set[int]] = {}
        for version in every:
            if _is_avro(version) and str(version["subject"]) in latest_of:
                subject_writers = writers.setdefault(str(version["subject"]), {})
                subject_writers[int(version["id"])] = compact_json(version["schema"])
            elif isinstance(version, dict) and str(version.get("subject")) in others:
                subject = str(version["subject"])
                if _schema_type(version) == _schema_type(others[subject]):
                    other_ids.setdefault(subject, set()).add(int(version["id"]))
        return RegistrySnapshot(writers, latest_of, others, other_ids, versions)

    def unloadable(self, subjects: set[str], snapshot: RegistrySnapshot | None) -> dict[str, str]:
        """Of ``subjects``, those whose latest live version is not loaded, with why (the registry's
        ``snapshot``, or a request per subject from a registry that gave none)."""
        if snapshot is not None:
            return {s: why for s in sorted(subjects) if (why := snapshot.why_unloadable(s))}
        found = {}
        for subject in sorted(subjects):
            latest = self._get(f"/subjects/{quote(subject, safe='')}/versions/latest")
            if isinstance(latest, dict):
                table = _table_or_why(latest, self._references(latest))
                if isinstance(table, str):
                    found[subject] = table
        return found

    def all_subject_schemas(
        self, subjects: set[str], snapshot: RegistrySnapshot | None
    ) -> dict[str, SubjectSchemas]:
        """Every subject's schemas, from the registry's `snapshot`, or subject by subject from a registry
        that gave none."""
        if snapshot is None:
            found = {subject: self.subject_schemas(subject) for subject in sorted(subjects)}
            return {subject: schemas for subject, schemas in found.items() if schemas is not None}
        found = {subject: snapshot.schemas(subject) for subject in sorted(subjects)}
        return {subject: schemas for subject, schemas in found.items() if schemas is not None}

    def schema_usages(self, schema_id: int) -> list[tuple[str, int]]:
        """The (subject, version) pairs registered with this id, deleted ones included; [] when the
        registry does not know the id."""
        found = self._get(f"/schemas/ids/{int(schema_id)}/versions", deleted="true")
        if not isinstance(found, list):
            return []
        return sorted((str(u["subject"]), int(u["version"])) for u in found if isinstance(u, dict))


def describe_foreign_id(registry: RegistryClient, schema_id: int, subject: str) -> str:
    """Why a message's schema id is no version of its topic's subject, for the quarantine's reason: an
    id the registry does not know points at a producer using another registry (or corrupted bytes); an
    id of another subject points at a producer writing to the wrong topic."""
    usages = registry.schema_usages(schema_id)
    if not usages:
        return f"schema id {schema_id} is unknown to the registry (not a version of subject {subject})"
    named = ", ".join(f"{s} version {v}" for s, v in usages)
    return f"schema id {schema_id} belongs to another subject ({named}), not to subject {subject}"


def _schema_type(version: dict[str, object]) -> str:
    return str(version.get("schemaType") or AVRO)


def _is_avro(version: object) -> bool:
    return isinstance(version, dict) and _schema_type(version) == AVRO and "subject" in version


def _reference_list(version: dict[str, object]) -> list[tuple[str, str, int]]:
    """A version's references: (name, subject, version)."""
    references = version.get("references")
    return [
        (str(r["name"]), str(r["subject"]), int(r["version"]))
        for r in (references if isinstance(references, list) else [])
        if isinstance(r, dict) and {"name", "subject", "version"} <= r.keys()
    ]


def _document(version: dict[str, object]) -> Document:
    return Document(str(version["schema"]), tuple(name for name, _, _ in _reference_list(version)))


def _referenced(version: dict[str, object], versions: dict[tuple[str, int], dict]) -> dict[str, Document]:
    """The documents a version references, theirs included, from a snapshot's `versions` (by subject
    and version number)."""
    found: dict[str, Document] = {}
    pending = _reference_list(version)
    while pending:
        name, subject, number = pending.pop()
        if name not in found and (subject, number) in versions:
            found[name] = _document(versions[(subject, number)])
            pending.extend(_reference_list(versions[(subject, number)]))
    return found


def _table_or_why(
    version: dict[str, object], referenced: dict[str, Document], earlier: list[Version] | None = None
) -> TableOf | str:
    """The table of a subject whose latest live version is `version`, or why the loader makes none;
    `earlier`: the subject's other versions, which a Protobuf table reads (`lookup.table_of`)."""
    kind = _schema_type(version)
    if kind not in LOADED_TYPES:
        return f"holds {kind} schemas, which the loader does not read"
    try:
        return table_of(kind, Version(int(str(version["id"])), _document(version), referenced), earlier or [])
    except UnloadableSchema as exc:
        return f"holds a {kind} schema the loader cannot make a table of: {exc}"


def _other_schemas(subject: str, latest: dict, ids: set[int], table: TableOf) -> SubjectSchemas:
    """A subject of JSON Schemas or Protobuf schemas: every record, whichever version wrote it, is read
    with the latest's table (JSON names its properties, Protobuf numbers its fields)."""
    latest_id = int(latest["id"])
    writers = dict.fromkeys({*ids, latest_id}, table.schema)
    return SubjectSchemas(
        subject,
        latest_id,
        table.schema,
        writers,
        _schema_type(latest),
        table.descriptors,
        table.message_tables,
        table.messages,
    )
