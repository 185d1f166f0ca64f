"""Throw-away git repositories with history, for the offline check and the pre-commit hook."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

# A fixed identity and no user or system config, so the tests behave the same on every machine.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Schema Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Schema Author",
    "GIT_COMMITTER_EMAIL": "author@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


class GitRepo:
    """A repository in a temp directory; ``commit`` writes files and records them in one commit."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.env: dict[str, str] = {}  # more environment for git (and the hooks it runs)
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "--quiet", "--initial-branch=main")

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", *args],
            cwd=self.root,
            env={**os.environ, **GIT_ENV, **self.env},
            capture_output=True,
            text=True,
            check=check,
        )

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def commit(self, files: dict[str, str], message: str = "change schemas") -> str:
        for relative, text in files.items():
            self.write(relative, text)
        self.git("add", *files)
        self.git("commit", "--quiet", "-m", message)
        return self.git("rev-parse", "HEAD").stdout.strip()


@pytest.fixture
def git_repo(tmp_path: Path) -> GitRepo:
    return GitRepo(tmp_path / "repo")
