"""Settings of the registry, declared once: each field's type, default and `Setting` give its flag of
`registry serve` (and of the other commands that take it), its ``REGISTRY_*`` environment variable, its
bounds and its row of the manual's table (docs/registry.md), as the loader's settings do
(`declared_settings`).

`RegistryConfig` is what the app factory is given instead of globals: tests build an app with exactly the
limits they want, and the command line, the gunicorn entry point and the environment all produce the same
object. `ServerSettings` is what only `registry serve` uses: where to listen, how many processes, TLS.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Annotated, Any, Literal, get_type_hints

from declared_settings import fields as declaration
from declared_settings.fields import Declared, declared, with_tables

DEFAULT_SQLITE_FILE = "registry.db"
ENV_PREFIX = "REGISTRY_"
SERVE = ("serve",)
# The commands that open the registry's database.
DATABASE = ("serve", "db upgrade", "db downgrade", "db current", "users", "export", "import")


@dataclass(frozen=True)
class Setting(declaration.Setting):
    """A registry setting: `registry serve` takes it unless `commands` says more."""

    commands: tuple[str, ...] = SERVE


def default_database_url() -> str:
    """SQLite in the working directory: zero setup for a developer, one file to delete to start over."""
    return f"sqlite:///{Path.cwd() / DEFAULT_SQLITE_FILE}"


@functools.cache
def _declared_of(cls: type) -> list[Declared]:
    return declared(cls, prefix=ENV_PREFIX)


def _checked(settings: object) -> None:
    """Raises ValueError for a value outside its declared bounds or choices."""
    for setting in _declared_of(type(settings)):
        value = getattr(settings, setting.name)
        setting.setting.check(setting.flag, value)
        if setting.choices and value not in setting.choices:
            raise ValueError(f"{setting.flag} must be one of {', '.join(setting.choices)}, not {value!r}")


@dataclass(frozen=True)
class RegistryConfig:
    """Everything the service needs to know; every limit is here so that it can be tuned per deployment."""

    database_url: Annotated[
        str,
        Setting(
            "SQLAlchemy URL of the registry's database.",
            DATABASE,
            shown_default="SQLite file registry.db in the working directory",
        ),
    ] = field(default_factory=default_database_url)
    max_body_bytes: Annotated[
        int,
        Setting(
            "Largest request body, in bytes (larger answer 413).", minimum=1, shown_default="2097152 (2 MiB)"
        ),
    ] = 2 * 1024 * 1024
    max_schema_chars: Annotated[
        int,
        Setting(
            "Largest schema text, in characters (larger answer 422 / 42209).",
            minimum=1,
            shown_default="1048576 (1 Mi)",
        ),
    ] = 1024 * 1024
    max_json_depth: Annotated[
        int,
        Setting(
            "Deepest JSON nesting accepted in a body or a schema (Python's parser would recurse).", minimum=1
        ),
    ] = 64
    max_subject_length: Annotated[int, Setting("Longest subject name accepted.", minimum=1)] = 255
    cache_size: Annotated[
        int, Setting("Entries kept in each process's cache of immutable lookups.", minimum=0)
    ] = 10_000
    enable_bench_endpoint: Annotated[
        bool,
        Setting("Exposes GET /_bench/empty, the bare endpoint the benchmark compares with.", hidden=True),
    ] = False
    #: Upgrade an empty database on start (``registry serve`` does; tests of migrations do not).
    auto_upgrade: bool = True
    auth_enabled: Annotated[
        bool,
        Setting(
            "Require credentials (HTTP Basic or a bearer token of a user of `registry users`) and roles.",
            flag_name="auth",
            off_flag="no-auth",
        ),
    ] = False
    anonymous_read: Annotated[
        bool, Setting("With --auth, let requests without credentials read (never write).")
    ] = False
    auth_max_failures: Annotated[
        int,
        Setting(
            "Failed authentications per user name and client address within the window before answering 429.",
            minimum=1,
        ),
    ] = 10
    auth_failure_window_s: Annotated[
        int, Setting("The window of those failed authentications, in seconds.", minimum=1)
    ] = 300
    metrics_public: Annotated[
        bool,
        Setting(
            "With --auth, /metrics answers without credentials (/health and / always do); "
            "--metrics-private makes it need a user of any role (Prometheus with basic_auth).",
            off_flag="metrics-private",
        ),
    ] = True
    trusted_proxy_hops: Annotated[
        int,
        Setting(
            "Reverse proxies in front of the server whose X-Forwarded-For/-Proto/-Host give the client's "
            "address and scheme (0: none); failed logins are counted and logged by that address.",
            minimum=0,
            maximum=10,
        ),
    ] = 0
    forwarded_allow_ips: Annotated[
        str,
        Setting(
            "Addresses or networks of those proxies, comma-separated: their headers count only when the TCP "
            "peer is one of them (empty: any peer). Also gunicorn's forwarded_allow_ips.",
            shown_default="(any)",
        ),
    ] = ""
    log_format: Annotated[
        Literal["text", "json"], Setting("The service's log lines: text, or one JSON object per line.")
    ] = "text"

    def __post_init__(self) -> None:
        _checked(self)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> RegistryConfig:
        """Reads ``REGISTRY_<FIELD>`` variables, then applies explicit overrides (CLI flags win)."""
        values = from_environment(cls, os.environ if environ is None else environ)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return replace(cls(), **values)

    def to_env(self) -> dict[str, str]:
        """The inverse of :meth:`from_env`, to hand the config to gunicorn workers through the environment."""
        out: dict[str, str] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f"{ENV_PREFIX}{f.name.upper()}"] = (
                str(value).lower() if isinstance(value, bool) else str(value)
            )
        return out


@dataclass(frozen=True)
class ServerSettings:
    """What only `registry serve` uses: where it listens, its processes, and TLS."""

    host: Annotated[str, Setting("Address to listen on.")] = "127.0.0.1"
    port: Annotated[int, Setting("Port to listen on.", minimum=1, maximum=65535)] = 8081
    workers: Annotated[int, Setting("gunicorn worker processes.", minimum=1, maximum=256)] = 2
    threads: Annotated[int, Setting("Threads per worker process.", minimum=1, maximum=256)] = 4
    certfile: Annotated[
        str | None,
        Setting(
            "Serve HTTPS with this PEM certificate (chain); needs --keyfile.",
            file=True,
            shown_default="plain HTTP",
        ),
    ] = None
    keyfile: Annotated[str | None, Setting("The certificate's PEM private key.", file=True)] = None
    ca_file: Annotated[
        str | None,
        Setting("With --certfile: verify client certificates against these CAs (PEM).", file=True),
    ] = None
    require_client_cert: Annotated[
        bool,
        Setting("With --ca-file: refuse clients without a certificate signed by those CAs (mutual TLS)."),
    ] = False

    def __post_init__(self) -> None:
        _checked(self)


def from_environment(cls: type, environ: Mapping[str, str]) -> dict[str, Any]:
    """The values of `cls`'s fields that ``REGISTRY_<FIELD>`` variables give, read as their types."""
    values: dict[str, Any] = {}
    hints = get_type_hints(cls)
    for f in fields(cls):
        raw = environ.get(f"{ENV_PREFIX}{f.name.upper()}")
        if raw is None:
            continue
        kind = hints[f.name]
        if kind is bool:
            values[f.name] = raw.strip().lower() in ("1", "true", "yes", "on")
        elif kind is int:
            try:
                values[f.name] = int(raw)
            except ValueError:
                raise ValueError(
                    f"{ENV_PREFIX}{f.name.upper()} must be a whole number, not {raw!r}"
                ) from None
        else:
            values[f.name] = raw
    return values


DECLARED: list[Declared] = _declared_of(ServerSettings) + _declared_of(RegistryConfig)
SETTINGS = {setting.name: setting for setting in DECLARED}


def manual_tables() -> dict[str, str]:
    """The tables of docs/registry.md that list settings, by the name their marker gives."""
    return {"registry": declaration.manual_table(DECLARED, every_command=())}


if __name__ == "__main__":  # python -m registry.config docs/registry.md: writes the manual's settings table
    for name in sys.argv[1:]:
        manual = Path(name)
        manual.write_text(with_tables(manual.read_text(), manual_tables()))
