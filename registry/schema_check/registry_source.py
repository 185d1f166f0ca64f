"""A small client of the Confluent Schema Registry REST API: only the calls the check and push need.

Only the public API is used, so the check works against Confluent's registry, Karapace, Apicurio's
Confluent-compatible API or ours alike:
- ``GET /config/{subject}?defaultToGlobal=true`` (falling back to ``GET /config`` for registries that do
  not know the flag) for the subject's compatibility level and data-contract settings;
- ``GET /subjects/{subject}/versions`` and ``GET /subjects/{subject}/versions/{version}`` for the live
  versions, oldest first (soft-deleted versions are not returned, and registries do not check against them);
- ``POST /subjects/{subject}`` to find an already registered schema and
  ``POST /subjects/{subject}/versions`` to register one (``registry push``), each with the schema's
  type (unless Avro, the default), its references and, when it has a contract file, its metadata and
  rule set.

Compatibility itself is computed locally (see ``checker``) rather than by ``POST /compatibility/...``:
the verbose messages of other registries are free text, while the local checker yields JSON pointers into
the new file, which is what turns a refusal into ``file:line:column``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import requests

from pipeline_client.http_session import (
    CONTENT_TYPE,
    describe_refusal,
    describe_tls_failure,
    public_url,
    registry_session,
)
from registry.schema_types import DEFAULT_SCHEMA_TYPE

__all__ = [
    "RegisteredVersion",
    "RegistryClient",
    "RegistryError",
    "RegistryRefused",
    "RegistryUnavailable",
    "schema_body",
]

SUBJECT_NOT_FOUND = 40401
SCHEMA_NOT_FOUND = 40403
SUBJECT_CONFIG_NOT_FOUND = 40408


class RegistryUnavailable(RuntimeError):
    """The registry could not be asked (refused connection, timeout, server error): not the schema's fault."""


class RegistryError(RuntimeError):
    """The registry answered with an error body; ``status`` and ``error_code`` as it sent them."""

    def __init__(self, status: int, error_code: int | None, message: str) -> None:
        super().__init__(f"{message} (HTTP {status}, error code {error_code})")
        self.status = status
        self.error_code = error_code
        self.message = message


class RegistryRefused(RegistryError):
    """401 or 403: the registry refused these credentials (not the schema); says which and what to check."""

    def __init__(self, status: int, error_code: int | None, message: str, url: str) -> None:
        super().__init__(status, error_code, message)
        self.args = (f"the registry at {url} refused: {describe_refusal(status, message)}",)


@dataclass(frozen=True)
class RegisteredVersion:
    """One version of a subject as the registry returns it."""

    subject: str
    version: int
    id: int
    schema: str
    schema_type: str = DEFAULT_SCHEMA_TYPE
    references: tuple[dict[str, Any], ...] = field(default=())
    metadata: dict[str, Any] | None = field(default=None, hash=False)


class RegistryClient:
    """Blocking calls with a timeout; URL user-info (``https://user:secret@host``) becomes basic auth."""

    def __init__(self, url: str, *, timeout: float = 10.0, session: requests.Session | None = None) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.session = session or registry_session()

    @property
    def public_url(self) -> str:
        """The URL without user-info, so credentials never reach a message or a CI log."""
        return public_url(self.url)

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self.session.request(method, self.url + path, timeout=self.timeout, **kwargs)
        except requests.RequestException as exc:
            reason = describe_tls_failure(exc) or str(exc)
            raise RegistryUnavailable(f"cannot reach the registry at {self.public_url}: {reason}") from exc
        if response.status_code >= 500:
            raise RegistryUnavailable(
                f"the registry at {self.public_url} failed ({method} {path}: HTTP {response.status_code}) "
                f"{response.text[:300].strip()}"
            )
        if response.status_code in (401, 403):
            raise RegistryRefused(response.status_code, *_error_parts(response), self.public_url)
        try:
            body = response.json()
        except ValueError as exc:
            raise RegistryUnavailable(
                f"{method} {self.public_url}{path} did not answer JSON (HTTP {response.status_code}); "
                "is this a schema registry URL?"
            ) from exc
        if response.status_code >= 400:
            if isinstance(body, dict):
                raise RegistryError(response.status_code, body.get("error_code"), str(body.get("message")))
            raise RegistryError(response.status_code, None, str(body))
        return body

    @staticmethod
    def _subject(subject: str) -> str:
        return quote(subject, safe="")

    def config(self, subject: str) -> dict[str, Any]:
        """The config that governs ``subject`` (its own, else the global one): level and contract settings."""
        try:
            path = f"/config/{self._subject(subject)}"
            body = self._request("GET", path, params={"defaultToGlobal": "true"})
        except RegistryError as exc:
            if exc.status != 404:
                raise
            body = self._request("GET", "/config")
        return body if isinstance(body, dict) else {}

    def compatibility_level(self, subject: str) -> str:
        """The level that governs ``subject``: its own, else the global one."""
        return self.level_of(self.config(subject))

    def level_of(self, body: dict[str, Any]) -> str:
        """The level in a config answer."""
        level = body.get("compatibilityLevel") or body.get("compatibility")  # some registries say the latter
        if not isinstance(level, str):
            raise RegistryUnavailable(
                f"the registry at {self.public_url} answered a config without a level: {body}"
            )
        return level.upper()

    def version_numbers(self, subject: str) -> list[int]:
        """Live version numbers of ``subject``, ascending; empty when the subject does not exist."""
        try:
            body = self._request("GET", f"/subjects/{self._subject(subject)}/versions")
        except RegistryError as exc:
            if exc.error_code == SUBJECT_NOT_FOUND or (exc.status == 404 and exc.error_code is None):
                return []
            raise
        return sorted(int(number) for number in body)

    def version(self, subject: str, number: int | str) -> RegisteredVersion:
        """One version with its schema text."""
        body = self._request("GET", f"/subjects/{self._subject(subject)}/versions/{number}")
        return _registered(subject, body)

    def history(self, subject: str) -> list[RegisteredVersion]:
        """Every live version of ``subject``, oldest first (what a transitive level checks against)."""
        return [self.version(subject, number) for number in self.version_numbers(subject)]

    def lookup(
        self, subject: str, schema: str, extra: dict[str, Any] | None = None
    ) -> RegisteredVersion | None:
        """The version under which ``schema`` (with ``extra``: see :func:`schema_body`) is already
        registered in ``subject``, if it is."""
        try:
            body = self._request(
                "POST",
                f"/subjects/{self._subject(subject)}",
                json={"schema": schema, **(extra or {})},
                headers={"Content-Type": CONTENT_TYPE},
            )
        except RegistryError as exc:
            if exc.error_code in (SUBJECT_NOT_FOUND, SCHEMA_NOT_FOUND) or exc.status == 404:
                return None
            raise
        return _registered(subject, body)

    def register(self, subject: str, schema: str, extra: dict[str, Any] | None = None) -> int:
        """Registers ``schema`` (with ``extra``: see :func:`schema_body`) as the next version of
        ``subject``; returns its global id.

        Refusals (409 incompatible, 422 invalid) arrive as ``RegistryError`` for the caller to report.
        """
        body = self._request(
            "POST",
            f"/subjects/{self._subject(subject)}/versions",
            json={"schema": schema, **(extra or {})},
            headers={"Content-Type": CONTENT_TYPE},
        )
        return int(body["id"])


def schema_body(
    schema_type: str,
    references: Sequence[dict[str, Any]] = (),
    contract: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What a registration or lookup sends besides the schema: its ``schemaType`` (left out for the
    default type, as Confluent's own clients leave it out), its ``references`` (name, subject, version)
    and its contract (``metadata``, ``ruleSet``)."""
    body: dict[str, Any] = {} if schema_type == DEFAULT_SCHEMA_TYPE else {"schemaType": schema_type}
    if references:
        body["references"] = list(references)
    return {**body, **(contract or {})}


def _error_parts(response: requests.Response) -> tuple[int | None, str]:
    """The error code and message of an error body; the text itself when it is not Confluent's JSON."""
    try:
        body = response.json()
    except ValueError:
        return None, response.text.strip()[:300]
    if isinstance(body, dict):
        return body.get("error_code"), str(body.get("message"))
    return None, str(body)[:300]


def _registered(subject: str, body: Any) -> RegisteredVersion:
    if not isinstance(body, dict) or "schema" not in body:
        raise RegistryUnavailable(f"unexpected answer for subject {subject!r}: {str(body)[:300]}")
    return RegisteredVersion(
        subject=str(body.get("subject", subject)),
        version=int(body["version"]),
        id=int(body["id"]),
        schema=str(body["schema"]),
        schema_type=str(body.get("schemaType") or DEFAULT_SCHEMA_TYPE),
        references=tuple(body.get("references") or ()),
        metadata=body.get("metadata") if isinstance(body.get("metadata"), dict) else None,
    )
