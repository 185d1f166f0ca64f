"""Settings of the registry service, passed into the app factory instead of read from globals.

One frozen dataclass so that tests build an app with exactly the limits they want, and the CLI, the
gunicorn entry point and the environment (``REGISTRY_*`` variables) all produce the same object.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

DEFAULT_SQLITE_FILE = "registry.db"


def default_database_url() -> str:
    """SQLite in the working directory: zero setup for a developer, one file to delete to start over."""
    return f"sqlite:///{Path.cwd() / DEFAULT_SQLITE_FILE}"


@dataclass(frozen=True)
class RegistryConfig:
    """Everything the service needs to know; every limit is here so that it can be tuned per deployment."""

    database_url: str = field(default_factory=default_database_url)
    #: Largest request body accepted, in bytes (answers 413 above it).
    max_body_bytes: int = 2 * 1024 * 1024
    #: Largest schema text accepted, in characters (answers 422 / 42209 above it).
    max_schema_chars: int = 1024 * 1024
    #: Deepest JSON nesting accepted in a body or a schema; Python's parser would otherwise recurse.
    max_json_depth: int = 64
    #: Longest subject name accepted.
    max_subject_length: int = 255
    #: Entries kept in the per-process cache of immutable lookups.
    cache_size: int = 10_000
    #: Exposes ``GET /_bench/empty`` (a bare endpoint returning {}): the ceiling the benchmark compares with.
    enable_bench_endpoint: bool = False
    #: Upgrade an empty database on start (``registry serve`` does; tests of migrations do not).
    auto_upgrade: bool = True
    #: Require credentials (HTTP Basic or a bearer token of a user from ``registry users``) and roles.
    auth_enabled: bool = False
    #: With auth on, let requests without credentials read (never write).
    anonymous_read: bool = False
    #: Failed authentications per user name and client address within the window before answering 429.
    auth_max_failures: int = 10
    auth_failure_window_s: int = 300
    #: With auth on, ``/metrics`` answers without credentials (``/health`` and ``/`` always do); false
    #: makes it need a user of any role, e.g. Prometheus with ``basic_auth`` in its scrape config.
    metrics_public: bool = True
    #: Reverse proxies in front of the server whose X-Forwarded-For/-Proto/-Host are believed (0: none).
    #: The client address then comes from the proxy's header: what failed logins are counted and logged by.
    trusted_proxy_hops: int = 0
    #: Comma-separated addresses or networks of those proxies: their headers count only when the TCP peer
    #: is one of them (empty: any peer). Also gunicorn's ``forwarded_allow_ips`` under ``registry serve``.
    forwarded_allow_ips: str = ""
    #: ``text`` or ``json`` (one JSON object per line) for the service's logs.
    log_format: str = "text"

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: object) -> RegistryConfig:
        """Reads ``REGISTRY_<FIELD>`` variables, then applies explicit overrides (CLI flags win)."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for f in fields(cls):
            raw = env.get(f"REGISTRY_{f.name.upper()}")
            if raw is None:
                continue
            if f.type in ("bool", bool):
                values[f.name] = raw.strip().lower() in ("1", "true", "yes", "on")
            elif f.type in ("int", int):
                values[f.name] = int(raw)
            else:
                values[f.name] = raw
        values.update({k: v for k, v in overrides.items() if v is not None})
        return replace(cls(), **values)  # type: ignore[arg-type]

    def to_env(self) -> dict[str, str]:
        """The inverse of :meth:`from_env`, to hand the config to gunicorn workers through the environment."""
        out: dict[str, str] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f"REGISTRY_{f.name.upper()}"] = str(value).lower() if isinstance(value, bool) else str(value)
        return out
