"""`registry users add|remove|list`: a thin layer over `registry.auth.users`."""

from __future__ import annotations

import sys

import click

from registry.cli_options import DATABASE_URL, migrated_database, require_server_packages


@click.group()
def users() -> None:
    """Users of the API when it runs with --auth (roles: read, write on subject prefixes, admin)."""
    require_server_packages()


@users.command()
@DATABASE_URL
@click.argument("name")
@click.option("--role", type=click.Choice(["read", "write", "admin"]), required=True)
@click.option("--prefix", "prefixes", multiple=True, help="Subject prefix a write user may write under.")
@click.option("--token", "with_token", is_flag=True, help="Also issue a bearer token (printed once).")
@click.option("--no-password", is_flag=True, help="Token only (services); implies --token.")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def add(
    database_url: str | None,
    name: str,
    role: str,
    prefixes: tuple[str, ...],
    with_token: bool,
    no_password: bool,
    password_stdin: bool,
) -> None:
    """Add user NAME. Only argon2 hashes of the password and token are stored."""
    from registry.auth.credentials import token_text
    from registry.auth.permissions import Role
    from registry.auth.users import UserError, add_user

    database = migrated_database(database_url)  # before asking for a password it could not store
    password: str | None = None
    try:
        if not no_password:
            if password_stdin:
                password = sys.stdin.readline().rstrip("\n")
            else:
                password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
        token = add_user(database, name, Role(role), prefixes, password, with_token or no_password)
    except UserError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        database.dispose()
    click.echo(f"registry: added user {name} ({role})", err=True)
    if token is not None:
        click.echo("bearer token (shown only now; keep it in a secret store):", err=True)
        click.echo(token_text(token))


@users.command()
@DATABASE_URL
@click.argument("name")
def remove(database_url: str | None, name: str) -> None:
    """Remove user NAME (running servers forget it within seconds)."""
    from registry.auth.users import UserError, remove_user

    database = migrated_database(database_url)
    try:
        remove_user(database, name)
    except UserError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        database.dispose()
    click.echo(f"registry: removed user {name}", err=True)


@users.command(name="list")
@DATABASE_URL
def list_command(database_url: str | None) -> None:
    """List users, their roles and prefixes, and which credentials they have."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from registry.auth.users import list_users

    database = migrated_database(database_url)
    try:
        found = list_users(database)
    finally:
        database.dispose()
    table = Table("user", "role", "write prefixes", "password", "token")
    for user in found:
        p = user.principal
        prefixes = ", ".join(repr(x) for x in p.write_prefixes) or "-"
        table.add_row(
            escape(p.name),
            p.role.value,
            escape(prefixes),
            "yes" if user.password_hash else "no",
            "yes" if user.has_token else "no",
        )
    Console().print(table)
