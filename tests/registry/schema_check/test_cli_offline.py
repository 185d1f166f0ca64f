"""``registry check --against REV`` on throw-away git repositories with history; no registry anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from registry.cli import main
from tests.fixtures.ports import free_port
from tests.registry.schema_check import schemas
from tests.registry.schema_check.conftest import GitRepo

PAGE_VIEW = "schemas/page_view.avsc"


@pytest.fixture
def repo(git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """A repository whose first commit holds page_view v1, with the working directory at its root."""
    git_repo.commit({PAGE_VIEW: schemas.PAGE_VIEW_V1}, "page views")
    monkeypatch.chdir(git_repo.root)
    monkeypatch.delenv("REGISTRY_URL", raising=False)
    return git_repo


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", *args], catch_exceptions=False)


def test_compatible_edit_passes(repo: GitRepo) -> None:
    repo.write(PAGE_VIEW, schemas.ADDED_WITH_DEFAULT)
    result = run("--against", "HEAD", PAGE_VIEW)
    assert result.exit_code == 0, result.output
    assert (
        "schemas/page_view.avsc: ok (page_view-value; compatible under BACKWARD with the version at HEAD"
        in (result.output)
    )


def test_field_added_without_default_fails_at_its_line(repo: GitRepo) -> None:
    repo.write(PAGE_VIEW, schemas.ADDED_WITHOUT_DEFAULT)
    result = run("--against", "HEAD", PAGE_VIEW)
    assert result.exit_code == 1, result.output
    first = result.output.splitlines()[0]
    assert first.startswith(f"{PAGE_VIEW}:{schemas.ADDED_WITHOUT_DEFAULT_LINE}:5: ")
    assert "referrer" in first and first.endswith("[READER_FIELD_MISSING_DEFAULT_VALUE]")
    assert result.output.splitlines()[1].startswith("    fix: ")
    assert "1 schema file checked: 1 failed" in result.output


def test_invalid_default_fails(repo: GitRepo) -> None:
    repo.write(PAGE_VIEW, schemas.INVALID_DEFAULT)
    result = run("--against", "HEAD", PAGE_VIEW)
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"{PAGE_VIEW}:{schemas.INVALID_DEFAULT_LINE}:")
    assert "[invalid-schema]" in result.output


def test_against_an_older_revision(repo: GitRepo) -> None:
    repo.commit({PAGE_VIEW: schemas.ADDED_WITH_DEFAULT}, "add referrer")
    repo.write(PAGE_VIEW, schemas.URL_AS_INT)
    assert run("--against", "HEAD~1", PAGE_VIEW).exit_code == 1
    repo.write(PAGE_VIEW, schemas.ADDED_WITH_DEFAULT)
    result = run("--against", "HEAD~1", PAGE_VIEW)
    assert result.exit_code == 0, result.output
    assert "the version at HEAD~1 (git HEAD~1)" in result.output


def test_against_without_a_revision_means_head(repo: GitRepo) -> None:
    repo.write(PAGE_VIEW, schemas.ADDED_WITHOUT_DEFAULT)
    result = run("--against", "--level", "FORWARD", PAGE_VIEW)
    assert result.exit_code == 0, result.output
    assert "compatible under FORWARD with the version at HEAD (git HEAD)" in result.output
    assert run(PAGE_VIEW, "--against").exit_code == 1


def test_no_paths_checks_every_schema_file_and_new_files_are_only_validated(repo: GitRepo) -> None:
    repo.write("schemas/search/search.avsc", schemas.record("Search", [{"name": "q", "type": "string"}]))
    repo.write("schemas/search/search.key.avsc", '"string"')
    result = run("--against")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("schemas/page_view.avsc: ok (page_view-value")
    assert lines[1].startswith("schemas/search/search.avsc: ok (search-value; new subject search-value")
    assert lines[2].startswith("schemas/search/search.key.avsc: ok (search-key; new subject search-key")
    assert lines[3] == "3 schema files checked: all passed"


def test_policies_apply_offline(repo: GitRepo) -> None:
    repo.write(PAGE_VIEW, schemas.ADDED_WITHOUT_DEFAULT)
    result = run("--against", "--level", "NONE", "--require-defaults", "--require-docs", PAGE_VIEW)
    assert result.exit_code == 1
    assert (
        f"{PAGE_VIEW}:{schemas.ADDED_WITHOUT_DEFAULT_LINE}:5: field 'referrer' of PageView was added"
        in result.output
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--against", "HEAD", "schemas/missing.avsc"), "cannot read schemas/missing.avsc"),
        (("--against", "no-such-rev", PAGE_VIEW), "unknown git revision 'no-such-rev'"),
        (
            (PAGE_VIEW,),
            "no registry: give --registry-url or set REGISTRY_URL (or check offline with --against",
        ),
        (("--against", "HEAD", "schemas/notes.txt"), "a schema file is named <topic>.avsc"),
        (("--against", "--schemas-dir", "elsewhere"), "no elsewhere/ directory here"),
        (
            ("--against", "--level", "SIDEWAYS", PAGE_VIEW),
            "'SIDEWAYS' is not one of NONE, BACKWARD, BACKWARD_TRANSITIVE",
        ),
    ],
)
def test_usage_errors_exit_2(repo: GitRepo, args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_unreachable_registry_exits_2_without_passing(repo: GitRepo) -> None:
    result = run("--registry-url", f"http://user:secret@127.0.0.1:{free_port()}", "--timeout", "2", PAGE_VIEW)
    assert result.exit_code == 2, result.output
    assert "cannot reach the registry" in result.output
    assert "secret" not in result.output


def test_unreadable_file_exits_2(repo: GitRepo, tmp_path: Path) -> None:
    (repo.root / "schemas/binary.avsc").write_bytes(b"\xff\xfe\x00")
    result = run("--against", "HEAD", "schemas/binary.avsc")
    assert result.exit_code == 2
    assert "cannot read schemas/binary.avsc" in result.output


def test_outside_a_repository_against_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.avsc").write_text(schemas.PAGE_VIEW_V1)
    monkeypatch.chdir(tmp_path)
    result = run("--against", "HEAD", "a.avsc")
    assert result.exit_code == 2
    assert "not inside a git work tree" in result.output
