"""How a client reaches a schema registry: credentials and TLS, under Confluent's client property names.

One piece for every client of ours (the loader's ``RegistryClient``, ``registry check`` and ``registry push``
and so the pre-commit hook), so that a team copies the registry settings of its producers once:

=================================  ==========================================================================
``basic.auth.credentials.source``  ``USER_INFO`` (``basic.auth.user.info``), ``URL`` (``https://u:pw@host``),
                                   ``SASL_INHERIT`` (the Kafka SASL login; only the loader has one)
``basic.auth.user.info``           ``user:password`` for HTTP Basic (a secret)
``bearer.auth.credentials.source`` ``STATIC_TOKEN``
``bearer.auth.token``              a bearer token (a secret)
``ssl.ca.location``                PEM file of the CA(s) that signed the registry's certificate
``ssl.certificate.location``       PEM client certificate, for registries that require one (mutual TLS)
``ssl.key.location``               its private key (PEM, unencrypted)
=================================  ==========================================================================

They come from a properties file (``key=value`` lines, as Java and confluent-kafka configs are written; the
``schema.registry.`` prefix of producer configs is accepted) and from environment variables, never from the
command line. Only the core dependencies (requests) are used: the pre-commit hook installs nothing more.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import requests

from pipeline_client.secret_values import Secret, secret_from_env

__all__ = [
    "RegistryClientSettings",
    "RegistrySettingsError",
    "describe_refusal",
    "describe_tls_failure",
    "public_url",
    "read_properties_file",
    "settings_from",
]

USER_INFO, URL, SASL_INHERIT, STATIC_TOKEN = "USER_INFO", "URL", "SASL_INHERIT", "STATIC_TOKEN"
PREFIX = "schema.registry."
PROPERTIES = (
    "url",
    "basic.auth.credentials.source",
    "basic.auth.user.info",
    "bearer.auth.credentials.source",
    "bearer.auth.token",
    "ssl.ca.location",
    "ssl.certificate.location",
    "ssl.key.location",
)
SECRET_PROPERTIES = ("basic.auth.user.info", "bearer.auth.token")
# Names Confluent's clients know that this client cannot honour: refused with the reason, never ignored.
UNSUPPORTED = {
    "ssl.key.password": "the client key must be unencrypted (openssl pkey -in key.pem -out plain-key.pem)",
    "ssl.truststore.location": "give the CA as a PEM file in ssl.ca.location (keytool -exportcert -rfc)",
    "ssl.keystore.location": "give ssl.certificate.location and ssl.key.location as PEM files",
}


class RegistrySettingsError(ValueError):
    """Registry client settings that cannot work; the message names the property and the fix."""


@dataclass(frozen=True)
class RegistryClientSettings:
    """Credentials and TLS for reaching a registry; empty means anonymous, with the system's CAs."""

    url: str | None = None  # from a properties file (``schema.registry.url``); the command's URL wins
    basic_auth_credentials_source: str | None = None
    basic_auth_user_info: Secret | None = None
    bearer_auth_credentials_source: str | None = None
    bearer_auth_token: Secret | None = None
    ssl_ca_location: str | None = None
    ssl_certificate_location: str | None = None
    ssl_key_location: str | None = None

    @classmethod
    def from_properties(cls, properties: Mapping[str, str | Secret], origin: str) -> RegistryClientSettings:
        """Settings from Confluent-named properties; an unknown or unsupported name is an error."""
        values: dict[str, Any] = {}
        for raw_name, value in properties.items():
            name = raw_name.removeprefix(PREFIX)
            if name in UNSUPPORTED:
                raise RegistrySettingsError(f"{origin}: {raw_name} is not supported: {UNSUPPORTED[name]}")
            if name not in PROPERTIES:
                raise RegistrySettingsError(
                    f"{origin}: unknown registry client property {raw_name!r} "
                    f"(known: {', '.join(PROPERTIES)})"
                )
            if name in SECRET_PROPERTIES and not isinstance(value, Secret):
                value = Secret(str(value), origin)
            values[name.replace(".", "_")] = value
        return cls(**values)

    @classmethod
    def from_environment(
        cls, prefix: str, environ: Mapping[str, str] | None = None
    ) -> RegistryClientSettings:
        """``<prefix>BASIC_AUTH_USER_INFO``, ``<prefix>BEARER_AUTH_TOKEN``, ``<prefix>SSL_CA_LOCATION``...
        (each property's name in capitals, dots as underscores; the URL has its own option)."""

        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name in PROPERTIES[1:]:
            variable = prefix + name.replace(".", "_").upper()
            if name in SECRET_PROPERTIES:
                found = secret_from_env(variable, env)
                if found is not None:
                    values[name.replace(".", "_")] = found
            elif env.get(variable):
                values[name.replace(".", "_")] = env[variable]
        return cls(**values)

    def overridden_by(self, other: RegistryClientSettings) -> RegistryClientSettings:
        """These settings with every property ``other`` sets taken from ``other`` (environment over file)."""
        changes = {k: v for k, v in vars(other).items() if v is not None}
        return replace(self, **changes)

    def session(self, url: str, sasl_login: tuple[str, Secret] | None = None) -> requests.Session:
        """A session that authenticates and verifies as configured, or an error naming what cannot work.

        ``sasl_login`` is the Kafka SASL user and password, for
        ``basic.auth.credentials.source=SASL_INHERIT``.
        """
        scheme = urlsplit(url).scheme.lower()
        tls = [
            n for n in ("ssl_ca_location", "ssl_certificate_location", "ssl_key_location") if getattr(self, n)
        ]
        if tls and scheme != "https":
            raise RegistrySettingsError(
                f"{tls[0].replace('_', '.')} is set but the registry URL {public_url(url)} is not https://"
            )
        for name in tls:
            location = getattr(self, name)
            if not Path(location).is_file():
                raise RegistrySettingsError(f"{name.replace('_', '.')}: no readable file {location}")
        if self.ssl_key_location and not self.ssl_certificate_location:
            raise RegistrySettingsError(
                "ssl.key.location needs ssl.certificate.location (the client certificate)"
            )
        session = _Session()
        session.headers["Accept"] = "application/vnd.schemaregistry.v1+json, application/json"
        session.auth = self._auth(url, sasl_login)
        if self.ssl_ca_location:
            session.verify = self.ssl_ca_location
        if self.ssl_certificate_location:
            session.cert = (
                (self.ssl_certificate_location, self.ssl_key_location)
                if self.ssl_key_location
                else self.ssl_certificate_location
            )
        return session

    def _auth(self, url: str, sasl_login: tuple[str, Secret] | None) -> requests.auth.AuthBase | None:
        in_url = _url_credentials(url)
        source = (self.basic_auth_credentials_source or "").upper() or None
        if self.bearer_auth_token is not None or self.bearer_auth_credentials_source:
            bearer_source = (self.bearer_auth_credentials_source or STATIC_TOKEN).upper()
            if bearer_source != STATIC_TOKEN:
                raise RegistrySettingsError(
                    f"bearer.auth.credentials.source={bearer_source} is not supported: use STATIC_TOKEN "
                    "with bearer.auth.token"
                )
            if self.bearer_auth_token is None:
                raise RegistrySettingsError(
                    "bearer.auth.credentials.source=STATIC_TOKEN needs bearer.auth.token"
                )
            if source or self.basic_auth_user_info is not None or in_url is not None:
                raise RegistrySettingsError("give HTTP Basic credentials or a bearer token, not both")
            return _Bearer(self.bearer_auth_token)
        if source is None:
            if self.basic_auth_user_info is not None and in_url is not None:
                raise RegistrySettingsError(
                    "credentials both in the URL and in basic.auth.user.info: "
                    "set basic.auth.credentials.source"
                )
            source = USER_INFO if self.basic_auth_user_info is not None else URL if in_url else None
        if source is None:
            return None
        if source == USER_INFO:
            if self.basic_auth_user_info is None:
                raise RegistrySettingsError(
                    "basic.auth.credentials.source=USER_INFO needs basic.auth.user.info"
                )
            return _Basic(*_split_user_info(self.basic_auth_user_info))
        if source == URL:
            if in_url is None:
                raise RegistrySettingsError(
                    "basic.auth.credentials.source=URL needs user:password@ in the registry URL"
                )
            return _Basic(*in_url)
        if source == SASL_INHERIT:
            if sasl_login is None:
                raise RegistrySettingsError(
                    "basic.auth.credentials.source=SASL_INHERIT needs a Kafka SASL PLAIN or SCRAM login"
                )
            return _Basic(*sasl_login)
        raise RegistrySettingsError(
            f"basic.auth.credentials.source={source} is not one of {USER_INFO}, {URL}, {SASL_INHERIT}"
        )

    def describe(self) -> str:
        """What a person may see of these settings: who authenticates how, and the TLS files (no secret)."""
        parts = []
        if self.basic_auth_user_info is not None:
            user = self.basic_auth_user_info.reveal().split(":", 1)[0]
            parts.append(f"HTTP Basic as {user!r} ({self.basic_auth_user_info})")
        elif self.bearer_auth_token is not None:
            parts.append(f"bearer token ({self.bearer_auth_token})")
        elif self.basic_auth_credentials_source:
            parts.append(f"HTTP Basic from {self.basic_auth_credentials_source}")
        for name in ("ssl_ca_location", "ssl_certificate_location", "ssl_key_location"):
            if getattr(self, name):
                parts.append(f"{name.replace('_', '.')}={getattr(self, name)}")
        return ", ".join(parts) or "anonymous"


def read_properties_file(path: str | Path) -> RegistryClientSettings:
    """Registry client settings from a ``key=value`` (or ``key: value``) file; ``#`` and ``!`` start
    comments."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RegistrySettingsError(f"cannot read registry properties {path}: {exc}") from exc
    properties: dict[str, str | Secret] = {}
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped[0] in "#!":
            continue
        match = re.match(r"([^=:\s]+)\s*[=:]\s*(.*)$", stripped)
        if not match:
            raise RegistrySettingsError(f"{path}:{number}: expected name=value")
        properties[match.group(1)] = match.group(2).strip()
    return RegistryClientSettings.from_properties(properties, f"file {path}")


def public_url(url: str) -> str:
    """The URL without user-info, so credentials never reach a message or a log."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def describe_refusal(status: int, body: str) -> str | None:
    """Why the registry refused, for 401 and 403 (None for other answers): authentication or authorization,
    with the registry's own message and what to check."""
    message = _error_message(body)
    if status == 401:
        return f"authentication failed (HTTP 401: {message}); check basic.auth.user.info or bearer.auth.token"
    if status == 403:
        return f"authorization refused (HTTP 403: {message}); the user lacks a permission the request needs"
    return None


def describe_tls_failure(exc: requests.RequestException) -> str | None:
    """A TLS failure (untrusted certificate, client certificate refused, not HTTPS) in a few words with the
    property to check; None when the failure is not about TLS."""
    text = str(exc)
    found = re.search(r"\[SSL: ([A-Z0-9_]+)\] ([^()']+)", text)
    if not isinstance(exc, requests.exceptions.SSLError) and not found:
        return None
    reason = found.group(2).strip() if found else text[:300]
    code = found.group(1) if found else ""
    if "CERTIFICATE_VERIFY_FAILED" in code:
        hint = "the registry's certificate is not signed by a CA in ssl.ca.location"
    elif any(alert in code for alert in ("CERTIFICATE_REQUIRED", "BAD_CERTIFICATE", "UNKNOWN_CA")):
        hint = "the registry did not accept the client certificate (ssl.certificate.location)"
    elif "WRONG_VERSION_NUMBER" in code or "RECORD_LAYER" in code:
        hint = "is the registry serving HTTPS on that port?"
    else:
        hint = "check ssl.ca.location, ssl.certificate.location and ssl.key.location"
    return f"TLS failed ({reason}): {hint}"


def _error_message(body: str) -> str:
    try:
        parsed = json.loads(body)
    except ValueError:
        return body.strip()[:200] or "no message"
    if isinstance(parsed, dict) and parsed.get("message"):
        return str(parsed["message"])[:200]
    return body.strip()[:200]


def _url_credentials(url: str) -> tuple[str, Secret] | None:
    parts = urlsplit(url)
    if parts.username is None:
        return None
    return unquote(parts.username), Secret(unquote(parts.password or ""), "the registry URL")


def _split_user_info(user_info: Secret) -> tuple[str, Secret]:
    user, colon, password = user_info.reveal().partition(":")
    if not colon or not user:
        raise RegistrySettingsError(f"basic.auth.user.info ({user_info.source}) must be user:password")
    return user, Secret(password, user_info.source)


class _Basic(requests.auth.AuthBase):
    """HTTP Basic whose password stays a ``Secret`` until the header is made."""

    def __init__(self, user: str, password: Secret) -> None:
        self.user, self.password = user, password

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        return requests.auth.HTTPBasicAuth(self.user, self.password.reveal())(request)

    def __repr__(self) -> str:
        return f"HTTP Basic as {self.user!r}"


class _Bearer(requests.auth.AuthBase):
    def __init__(self, token: Secret) -> None:
        self.token = token

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = f"Bearer {self.token.reveal()}"
        return request

    def __repr__(self) -> str:
        return "bearer token"


class _Session(requests.Session):
    """A session whose own CA file is not overridden by ``REQUESTS_CA_BUNDLE`` (requests lets the
    environment win over ``Session.verify`` unless each request names it)."""

    def merge_environment_settings(self, url, proxies, stream, verify, cert):  # type: ignore[no-untyped-def]
        if verify is None and self.verify is not True:
            verify = self.verify
        return super().merge_environment_settings(url, proxies, stream, verify, cert)


def settings_from(
    properties_file: str | Path | None, env_prefix: str, environ: Mapping[str, str] | None = None
) -> RegistryClientSettings:
    """The properties file (if any), with what the environment sets taken over it."""
    base = read_properties_file(properties_file) if properties_file else RegistryClientSettings()
    return base.overridden_by(RegistryClientSettings.from_environment(env_prefix, environ))
