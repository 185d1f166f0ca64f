"""Command line of the schema registry: `registry --help`.

The group ``main`` only wires commands together; each command is a thin layer over library calls.
Other command groups attach with one ``main.add_command(...)`` line at the bottom. Imports run one way:
this module imports the command modules, which share ``registry.cli_options`` and never import this one
(the command modules import only click at module level, so ``registry --help`` stays fast).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import click

from declared_settings.fields import options
from registry.auth.cli import users
from registry.backup_cli import export_command, import_command
from registry.cli_options import DATABASE_URL, require_server_packages
from registry.config import DECLARED, RegistryConfig, ServerSettings
from registry.schema_check.cli import check, push

if TYPE_CHECKING:
    from registry.server_tls import ServerTls


SERVER_SETTINGS = [f.name for f in fields(ServerSettings)]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Avro schema registry (Confluent Schema Registry API) and schema checks."""


@click.command()
@options(DECLARED, "serve")
def serve(**given: Any) -> None:
    """Serve the registry API with gunicorn (HTTPS with --certfile/--keyfile); an empty database is
    migrated first. Every option may also be given as its REGISTRY_* variable (docs/registry.md)."""
    require_server_packages()
    server_values = {name: given.pop(name) for name in SERVER_SETTINGS}
    try:
        server = ServerSettings(**{name: value for name, value in server_values.items() if value is not None})
        cfg = RegistryConfig.from_env(**given)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    tls = _server_tls(server)
    metrics_dir = _prometheus_multiproc_dir()
    serving_pid = os.getpid()
    try:
        _serve(server.host, server.port, server.workers, server.threads, cfg, tls)
    finally:
        # gunicorn's forked workers leave through this frame too (sys.exit): only the serving process
        # itself removes the directory, which its other workers may still be writing to.
        if metrics_dir is not None and os.getpid() == serving_pid:
            shutil.rmtree(metrics_dir, ignore_errors=True)


def _server_tls(server: ServerSettings) -> ServerTls | None:
    """The TLS files, loaded once to check them; None for plain HTTP. Stops with exit 2 on a problem."""
    from registry.server_tls import ServerTls, TlsSettingsError

    if not server.certfile:
        given = [
            name for name, value in (("--keyfile", server.keyfile), ("--ca-file", server.ca_file)) if value
        ]
        if server.require_client_cert:
            given.append("--require-client-cert")
        if given:
            raise click.UsageError(f"{', '.join(given)} need(s) --certfile (the server's certificate)")
        return None
    if not server.keyfile:
        raise click.UsageError("--certfile needs --keyfile (the certificate's private key)")
    try:
        return ServerTls(server.certfile, server.keyfile, server.ca_file, server.require_client_cert).check()
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
