"""Command line of the schema registry: `registry --help`.

The group ``main`` only wires commands together; each command is a thin layer over library calls.
Other command groups attach with one ``main.add_command(...)`` line at the bottom. Imports run one way:
this module imports the command modules, which share ``registry.cli_options`` and never import this one
(the command modules import only click at module level, so ``registry --help`` stays fast).
"""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

import click

from registry.auth.cli import users
from registry.backup_cli import export_command, import_command
from registry.cli_options import DATABASE_URL, require_server_packages
from registry.config import RegistryConfig
from registry.schema_check.cli import check, push

if TYPE_CHECKING:
    from registry.server_tls import ServerTls


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Avro schema registry (Confluent Schema Registry API) and schema checks."""


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8081, show_default=True, type=click.IntRange(1, 65535))
@DATABASE_URL
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 256), help="Processes.")
@click.option("--threads", default=4, show_default=True, type=click.IntRange(1, 256), help="Per process.")
@click.option("--max-body-bytes", type=click.IntRange(1), default=None, help="Largest request body.")
@click.option("--max-schema-chars", type=click.IntRange(1), default=None, help="Largest schema text.")
@click.option("--enable-bench-endpoint", is_flag=True, default=None, hidden=True)
@click.option(
    "--auth/--no-auth", "auth_enabled", default=None, help="Require credentials (users: `registry users`)."
)
@click.option("--anonymous-read", is_flag=True, default=None, help="With --auth, let anyone read.")
@click.option(
    "--metrics-public/--metrics-private",
    "metrics_public",
    default=None,
    help="With --auth, whether /metrics needs credentials (default: public).",
)
@click.option(
    "--trusted-proxy-hops",
    type=click.IntRange(0, 10),
    default=None,
    help="Reverse proxies whose X-Forwarded-* headers give the client's address and scheme.",
)
@click.option(
    "--forwarded-allow-ips",
    default=None,
    help="Addresses/networks of those proxies, comma-separated: other peers' headers are ignored.",
)
@click.option(
    "--log-format",
    type=click.Choice(["text", "json"]),
    envvar="REGISTRY_LOG_FORMAT",
    default=None,
    help="Log lines as text or JSON objects (default: text).",
)
@click.option(
    "--certfile",
    type=click.Path(dir_okay=False),
    envvar="REGISTRY_CERTFILE",
    help="Serve HTTPS with this PEM certificate (chain); needs --keyfile.",
)
@click.option("--keyfile", type=click.Path(dir_okay=False), envvar="REGISTRY_KEYFILE", help="Its PEM key.")
@click.option(
    "--ca-file",
    type=click.Path(dir_okay=False),
    envvar="REGISTRY_CA_FILE",
    help="With --certfile: verify client certificates against these CAs (PEM).",
)
@click.option(
    "--require-client-cert",
    is_flag=True,
    envvar="REGISTRY_REQUIRE_CLIENT_CERT",
    help="With --ca-file: refuse clients without a certificate signed by those CAs (mutual TLS).",
)
def serve(
    host: str,
    port: int,
    database_url: str | None,
    workers: int,
    threads: int,
    max_body_bytes: int | None,
    max_schema_chars: int | None,
    enable_bench_endpoint: bool | None,
    auth_enabled: bool | None,
    anonymous_read: bool | None,
    metrics_public: bool | None,
    trusted_proxy_hops: int | None,
    forwarded_allow_ips: str | None,
    log_format: str | None,
    certfile: str | None,
    keyfile: str | None,
    ca_file: str | None,
    require_client_cert: bool,
) -> None:
    """Serve the registry API with gunicorn (HTTPS with --certfile/--keyfile); an empty database is
    migrated first."""
    require_server_packages()
    tls = _server_tls(certfile, keyfile, ca_file, require_client_cert)
    metrics_dir = _prometheus_multiproc_dir()
    serving_pid = os.getpid()
    try:
        _serve(
            host,
            port,
            workers,
            threads,
            RegistryConfig.from_env(
                database_url=database_url,
                max_body_bytes=max_body_bytes,
                max_schema_chars=max_schema_chars,
                enable_bench_endpoint=enable_bench_endpoint,
                auth_enabled=auth_enabled,
                anonymous_read=anonymous_read,
                metrics_public=metrics_public,
                trusted_proxy_hops=trusted_proxy_hops,
                forwarded_allow_ips=forwarded_allow_ips,
                log_format=log_format,
            ),
            tls,
        )
    finally:
        # gunicorn's forked workers leave through this frame too (sys.exit): only the serving process
        # itself removes the directory, which its other workers may still be writing to.
        if metrics_dir is not None and os.getpid() == serving_pid:
            shutil.rmtree(metrics_dir, ignore_errors=True)


def _server_tls(
    certfile: str | None, keyfile: str | None, ca_file: str | None, require_client_cert: bool
) -> ServerTls | None:
    """The TLS files, loaded once to check them; None for plain HTTP. Stops with exit 2 on a problem."""
    from registry.server_tls import ServerTls, TlsSettingsError

    if not certfile:
        given = [name for name, value in (("--keyfile", keyfile), ("--ca-file", ca_file)) if value]
        if require_client_cert:
            given.append("--require-client-cert")
        if given:
            raise click.UsageError(f"{', '.join(given)} need(s) --certfile (the server's certificate)")
        return None
    if not keyfile:
        raise click.UsageError("--certfile needs --keyfile (the certificate's private key)")
    try:
        return ServerTls(certfile, keyfile, ca_file, require_client_cert).check()
    except TlsSettingsError as exc:
        raise click.UsageError(str(exc)) from exc


def _serve(
    host: str, port: int, workers: int, threads: int, cfg: RegistryConfig, tls: ServerTls | None = None
) -> None:
    """Checks the settings, migrates an empty database, runs gunicorn (after the metrics directory is set)."""
    from registry.api.proxy import parse_allowed
    from registry.server import serve as run_server
    from registry.storage import migrate

    try:
        parse_allowed(cfg.forwarded_allow_ips)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--forwarded-allow-ips") from exc
    try:
        if migrate.upgrade_if_empty(cfg.database_url):
            click.echo("registry: created the database schema", err=True)
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from exc
    on_network = host not in ("127.0.0.1", "::1", "localhost")
    if cfg.auth_enabled and tls is None and on_network and not cfg.trusted_proxy_hops:
        click.echo(
            "registry: warning: --auth over plain HTTP on a network address: passwords and tokens cross "
            "the network in clear; serve with --certfile/--keyfile or behind a TLS proxy",
            err=True,
        )
    scheme = "https" if tls else "http"
    click.echo(f"registry: serving on {scheme}://{host}:{port} with {workers} worker(s)", err=True)
    run_server(cfg, host, port, workers, threads, tls)


def _prometheus_multiproc_dir() -> str | None:
    """Workers share metrics through files in ``PROMETHEUS_MULTIPROC_DIR``; made (and removed) here if unset.

    It must be set before prometheus_client is first imported, hence here and not in the server module.
    Returns the directory when this process created it. An operator's directory is emptied of the previous
    run's files, which would otherwise be added to the new counts; the directories of registries that died
    without removing theirs (SIGKILL) are removed first.
    """
    from registry.metrics_dirs import clear_stale_metrics_dirs, make_metrics_dir

    for stale in clear_stale_metrics_dirs():
        click.echo(f"registry: removed {stale}, left by a registry that is no longer running", err=True)
    configured = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if configured:
        os.makedirs(configured, exist_ok=True)
        for name in os.listdir(configured):
            if name.endswith(".db"):
                os.remove(os.path.join(configured, name))
        return None
    created = make_metrics_dir()
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = created
    return created


@click.group()
def db() -> None:
    """Database schema management (Alembic migrations)."""
    require_server_packages()


@db.command()
@DATABASE_URL
@click.option("--revision", default="head", show_default=True)
def upgrade(database_url: str | None, revision: str) -> None:
    """Migrate the database up to REVISION."""
    from registry.storage import migrate

    url = RegistryConfig.from_env(database_url=database_url).database_url
    migrate.upgrade(url, revision)
    click.echo(f"registry: database at {revision}")


@db.command()
@DATABASE_URL
@click.argument("revision")
def downgrade(database_url: str | None, revision: str) -> None:
    """Migrate the database down to REVISION (``base`` removes every table)."""
    from registry.storage import migrate

    migrate.downgrade(RegistryConfig.from_env(database_url=database_url).database_url, revision)
    click.echo(f"registry: database at {revision}")


@db.command()
@DATABASE_URL
def current(database_url: str | None) -> None:
    """Print the database's revision and the code's head revision."""
    from registry.storage import migrate
    from registry.storage.db import Database

    database = Database(RegistryConfig.from_env(database_url=database_url).database_url)
    try:
        click.echo(f"current: {migrate.current_revision(database) or 'none'}")
        click.echo(f"head: {migrate.head_revision()}")
    finally:
        database.dispose()


main.add_command(serve)
main.add_command(db)
main.add_command(users)
main.add_command(check)
main.add_command(push)
main.add_command(export_command)
main.add_command(import_command)


if __name__ == "__main__":
    main()
