"""``registry export`` and ``registry import``: a thin layer over ``registry.storage.backup``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from registry.cli_options import DATABASE_URL, migrated_database
from registry.config import RegistryConfig


@click.command("export")
@DATABASE_URL
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="File (default: stdout).",
)
def export_command(database_url: str | None, output: Path | None) -> None:
    """Write every subject, version, schema id and setting to a versioned JSON document."""
    from registry.storage.backup import export_registry

    database = migrated_database(database_url)
    try:
        document = export_registry(database)
    finally:
        database.dispose()
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        tmp = output.with_name(output.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(output)
        versions = sum(len(s["versions"]) for s in document["subjects"])
        schemas, subjects = len(document["schemas"]), len(document["subjects"])
        click.echo(
            f"registry: exported {schemas} schema(s), {subjects} subject(s), {versions} version(s) "
            f"to {output}",
            err=True,
        )


@click.command("import")
@DATABASE_URL
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace the contents of a non-empty registry.")
def import_command(database_url: str | None, file: Path, force: bool) -> None:
    """Restore a document written by `registry export`, keeping every id (one transaction)."""
    from registry.storage import migrate
    from registry.storage.backup import BackupError, import_registry
    from registry.storage.db import Database

    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise click.ClickException(f"{file} is not a JSON document: {exc}") from exc
    url = RegistryConfig.from_env(database_url=database_url).database_url
    try:
        migrate.upgrade_if_empty(url)
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from exc
    database = Database(url)
    try:
        counts = import_registry(database, document, force=force)
    except BackupError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        database.dispose()
    click.echo(
        f"registry: imported {counts['schemas']} schema(s), {counts['subjects']} subject(s), "
        f"{counts['versions']} version(s)",
        err=True,
    )
