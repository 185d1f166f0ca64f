"""The commands that use the registry's tables, on a database that is not migrated: a message naming
`registry db upgrade`, exit status 1, no traceback, and nothing created in the database."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.registry_server import REPO_ROOT

COMMANDS = [
    ["users", "add", "alice", "--role", "admin", "--password-stdin"],
    ["users", "add", "svc", "--role", "read", "--no-password"],
    ["users", "list"],
    ["users", "remove", "alice"],
    ["export"],
]


def registry(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "registry.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
    )


def tables(database: Path) -> list[str]:
    with sqlite3.connect(database) as conn:
        return sorted(row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'"))


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_on_a_new_database_the_command_names_registry_db_upgrade(tmp_path: Path, command: list[str]) -> None:
    """A database without the registry's tables (an empty SQLite file), and a path with no database at
    all (a mistyped one): each named, and nothing made there."""
    database = tmp_path / "new.db"
    sqlite3.connect(database).close()  # an empty database file
    result = registry(*command, "--database-url", f"sqlite:///{database}", stdin="a password\n")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip() == (
        f"Error: the registry database sqlite:///{database} has no tables yet: run `registry db upgrade` "
        "first (with the same --database-url)"
    )
    assert result.stdout == ""
    assert tables(database) == []

    mistyped = tmp_path / "registy.db"
    result = registry(*command, "--database-url", f"sqlite:///{mistyped}", stdin="a password\n")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.strip() == (
        f"Error: there is no registry database at sqlite:///{mistyped}: check the path, or run `registry db "
        "upgrade` first to make one there (with the same --database-url)"
    )
    assert not mistyped.exists()


def test_an_outdated_database_is_named_with_its_revision_and_the_command_works_once_upgraded(
    tmp_path: Path,
) -> None:
    database = tmp_path / "old.db"
    url = f"sqlite:///{database}"
    first = registry("db", "upgrade", "--database-url", url, "--revision", "0001")
    assert first.returncode == 0, first.stderr
    outdated = registry("users", "add", "alice", "--role", "admin", "--password-stdin", "--database-url", url,
                        stdin="a long password\n")  # fmt: skip
    assert outdated.returncode == 1 and "Traceback" not in outdated.stderr
    assert "is at revision 0001_initial, this registry expects" in outdated.stderr
    assert "run `registry db upgrade` first" in outdated.stderr

    assert registry("db", "upgrade", "--database-url", url).returncode == 0
    added = registry("users", "add", "alice", "--role", "admin", "--password-stdin", "--database-url", url,
                     stdin="a long password\n")  # fmt: skip
    assert added.returncode == 0, added.stderr
    listed = registry("users", "list", "--database-url", url)
    assert listed.returncode == 0 and "alice" in listed.stdout


def test_a_database_that_cannot_be_opened_is_said_so_without_a_traceback(tmp_path: Path) -> None:
    database = tmp_path / "registry.db"
    database.write_text("not a database\n" * 100)
    url = f"sqlite:///{database}"
    result = registry("users", "list", "--database-url", url)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"Error: cannot open the registry database {url}: "), result.stderr
    assert "not a database" in result.stderr

    in_no_directory = f"sqlite:///{tmp_path / 'no-such-dir' / 'registry.db'}"
    result = registry("users", "list", "--database-url", in_no_directory)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"Error: there is no registry database at {in_no_directory}: ")
    assert not (tmp_path / "no-such-dir").exists()


def test_users_list_prints_a_user_s_prefixes_as_they_are_never_as_markup(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'registry.db'}"
    assert registry("db", "upgrade", "--database-url", url).returncode == 0
    # A subject prefix Rich would read as a style and a closing tag that matches nothing (a user's name
    # is letters, digits and . _ @ - only).
    added = registry("users", "add", "svc", "--role", "write", "--prefix", "[bold]a[/x]", "--no-password",
                     "--database-url", url)  # fmt: skip
    assert added.returncode == 0, added.stderr
    listed = registry("users", "list", "--database-url", url)
    assert listed.returncode == 0, listed.stderr
    assert "'[bold]a[/x]'" in listed.stdout
