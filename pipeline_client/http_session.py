"""The HTTP session to a schema registry: one kind for every client of ours.

``registry check`` and ``registry push`` (``registry.schema_check.registry_source``) and the loader's registry
client (``loader.reading.registry_client``) send their requests through a session made here: it asks for the
registry's JSON, authenticates with a password or token that stays a ``Secret`` until the header is made,
verifies the registry against the CA file it was given (which ``REQUESTS_CA_BUNDLE`` does not override), and
presents a client certificate. What a refusal or a TLS failure means is put into words here too, with the
client property to check; URLs are shown without their user-info. Which credentials and files to use follows
from Confluent's client properties (``pipeline_client.client_settings``).
"""

from __future__ import annotations

import json
import re
from urllib.parse import unquote, urlsplit, urlunsplit

import requests

from pipeline_client.secret_values import Secret

__all__ = [
    "ACCEPT",
    "CONTENT_TYPE",
    "BasicAuth",
    "BearerAuth",
    "describe_refusal",
    "describe_tls_failure",
    "public_url",
    "registry_session",
    "url_credentials",
]

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
ACCEPT = f"{CONTENT_TYPE}, application/json"


def registry_session(
    auth: requests.auth.AuthBase | None = None,
    ca_location: str | None = None,
    cert: str | tuple[str, str] | None = None,
) -> requests.Session:
    """A session that asks for the registry's JSON, authenticates with ``auth``, verifies the registry with
    the CA file ``ca_location`` (the system's CAs without one) and presents ``cert`` (a PEM file, or the
    certificate and key files)."""
    session = _Session()
    session.headers["Accept"] = ACCEPT
    session.auth = auth
    if ca_location:
        session.verify = ca_location
    if cert:
        session.cert = cert
    return session


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


def url_credentials(url: str) -> tuple[str, Secret] | None:
    """The user and password in ``https://user:password@host``, or None when the URL has none."""
    parts = urlsplit(url)
    if parts.username is None:
        return None
    return unquote(parts.username), Secret(unquote(parts.password or ""), "the registry URL")


class BasicAuth(requests.auth.AuthBase):
    """HTTP Basic whose password stays a ``Secret`` until the header is made."""

    def __init__(self, user: str, password: Secret) -> None:
        self.user, self.password = user, password

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        return requests.auth.HTTPBasicAuth(self.user, self.password.reveal())(request)

    def __repr__(self) -> str:
        return f"HTTP Basic as {self.user!r}"


class BearerAuth(requests.auth.AuthBase):
    """A bearer token that stays a ``Secret`` until the header is made."""

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
