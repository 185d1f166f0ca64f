"""HTTPS for ``registry serve``: the certificate, the key and, optionally, client certificates required.

With ``--auth`` over plain HTTP every password and token crosses the network in clear; gunicorn serves TLS
itself, so the registry needs no reverse proxy for it (as Confluent's and Karapace's listeners do). The files
are loaded once here, before gunicorn starts, so that a wrong path, a key that does not match its
certificate or a CA file that is not PEM stops ``serve`` with a message instead of failing every worker.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import Any


class TlsSettingsError(ValueError):
    """TLS files that cannot serve; the message names the file and the problem."""


@dataclass(frozen=True)
class ServerTls:
    """The server's certificate chain and key (PEM), and the CAs whose client certificates are accepted."""

    certfile: str
    keyfile: str
    ca_file: str | None = None
    require_client_cert: bool = False

    def check(self) -> ServerTls:
        """Loads every file as the server will; raises ``TlsSettingsError`` naming what is wrong."""
        if self.require_client_cert and not self.ca_file:
            raise TlsSettingsError(
                "--require-client-cert needs --ca-file (the CA that signs client certificates)"
            )
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        try:
            context.load_cert_chain(self.certfile, self.keyfile)
        except (OSError, ssl.SSLError) as exc:
            raise TlsSettingsError(
                f"cannot serve with certificate {self.certfile} and key {self.keyfile}: {_reason(exc)}"
            ) from exc
        if self.ca_file:
            try:
                context.load_verify_locations(cafile=self.ca_file)
            except (OSError, ssl.SSLError) as exc:
                raise TlsSettingsError(f"cannot read CA file {self.ca_file}: {_reason(exc)}") from exc
        return self

    def gunicorn_options(self) -> dict[str, Any]:
        """gunicorn's settings for these files: client certificates verified against ``ca_file`` when one
        is given (required, or checked only when presented)."""
        if self.require_client_cert:
            wanted = ssl.CERT_REQUIRED
        else:
            wanted = ssl.CERT_OPTIONAL if self.ca_file else ssl.CERT_NONE
        options: dict[str, Any] = {"certfile": self.certfile, "keyfile": self.keyfile, "cert_reqs": wanted}
        if self.ca_file:
            options["ca_certs"] = self.ca_file
        return options


def _reason(exc: OSError | ssl.SSLError) -> str:
    if isinstance(exc, ssl.SSLError):
        return exc.reason or str(exc)
    return exc.strerror or str(exc)
