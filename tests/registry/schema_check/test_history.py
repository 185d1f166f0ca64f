"""A file's text at a git revision (the offline baseline)."""

from __future__ import annotations

from pathlib import Path

import pytest

from registry.schema_check.history import GitError, file_at_revision
from tests.registry.schema_check.conftest import GitRepo


def test_text_at_head_and_older_revisions(git_repo: GitRepo) -> None:
    git_repo.commit({"schemas/a.avsc": "v1"})
    git_repo.commit({"schemas/a.avsc": "v2"})
    path = git_repo.write("schemas/a.avsc", "working copy")
    assert file_at_revision(path, "HEAD") == "v2"
    assert file_at_revision(path, "HEAD~1") == "v1"


def test_a_file_new_since_the_revision_has_no_text(git_repo: GitRepo) -> None:
    git_repo.commit({"schemas/a.avsc": "v1"})
    assert file_at_revision(git_repo.write("schemas/b.avsc", "{}"), "HEAD") is None


def test_head_of_a_repository_without_commits_is_empty_not_an_error(git_repo: GitRepo) -> None:
    assert file_at_revision(git_repo.write("schemas/a.avsc", "{}"), "HEAD") is None


def test_unknown_revision_is_an_error(git_repo: GitRepo) -> None:
    git_repo.commit({"schemas/a.avsc": "v1"})
    with pytest.raises(GitError, match="unknown git revision 'HEAD~5'"):
        file_at_revision(git_repo.root / "schemas/a.avsc", "HEAD~5")


def test_a_path_outside_any_repository_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "loose" / "a.avsc"
    path.parent.mkdir()
    path.write_text("{}")
    with pytest.raises(GitError, match="not inside a git work tree"):
        file_at_revision(path, "HEAD")
