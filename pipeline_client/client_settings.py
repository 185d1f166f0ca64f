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
command line. They make the HTTP session (``pipeline_client.http_session``) that every client sends its
requests through. Only the core dependencies (requests) are used: the pre-commit hook installs nothing more.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests

from pipeline_client.http_session import BasicAuth, BearerAuth, public_url, registry_session, url_credentials
from pipeline_client.secret_values import Secret, secret_from_env

__all__ = ["RegistryClientSettings", "RegistrySettingsError", "read_properties_file", "settings_from"]

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
        cert = (
            (self.ssl_certificate_location, self.ssl_key_location)
            if self.ssl_certificate_location and self.ssl_key_location
            else self.ssl_certificate_location
        )
        return registry_session(self._auth(url, sasl_login), self.ssl_ca_location, cert)

    def _auth(self, url: str, sasl_login: tuple[str, Secret] | None) -> requests.auth.AuthBase | None:
        in_url = url_credentials(url)
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
            return BearerAuth(self.bearer_auth_token)
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
            return BasicAuth(*_split_user_info(self.basic_auth_user_info))
        if source == URL:
            if in_url is None:
                raise RegistrySettingsError(
                    "basic.auth.credentials.source=URL needs user:password@ in the registry URL"
                )
            return BasicAuth(*in_url)
        if source == SASL_INHERIT:
            if sasl_login is None:
                raise RegistrySettingsError(
                    "basic.auth.credentials.source=SASL_INHERIT needs a Kafka SASL PLAIN or SCRAM login"
                )
            return BasicAuth(*sasl_login)
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


def _split_user_info(user_info: Secret) -> tuple[str, Secret]:
    user, colon, password = user_info.reveal().partition(":")
    if not colon or not user:
        raise RegistrySettingsError(f"basic.auth.user.info ({user_info.source}) must be user:password")
    return user, Secret(password, user_info.source)


def settings_from(
    properties_file: str | Path | None, env_prefix: str, environ: Mapping[str, str] | None = None
) -> RegistryClientSettings:
    """The properties file (if any), with what the environment sets taken over it."""
    base = read_properties_file(properties_file) if properties_file else RegistryClientSettings()
    return base.overridden_by(RegistryClientSettings.from_environment(env_prefix, environ))
