"""A schema file's text at a git revision: the offline baseline when no registry is reachable.

On a laptop on a train, or in CI without credentials, the last committed version is the best stand-in for
"what production has": ``--against HEAD`` in a pre-commit hook compares what is being committed with what
was committed before. Only ``git`` itself is used (no library), run in the file's own directory so the
file may live in any repository, including a sub-module.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["GitError", "file_at_revision"]


class GitError(RuntimeError):
    """git could not answer (no repository, unknown revision, git missing); the message says which."""


def _git(directory: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=directory, capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise GitError("git is not installed (needed for --against)") from exc
    except OSError as exc:  # the directory vanished or is not one
        raise GitError(f"cannot run git in {directory}: {exc}") from exc


def file_at_revision(path: Path, revision: str) -> str | None:
    """The text of ``path`` at ``revision``, or ``None`` when the file did not exist there yet.

    ``None`` is the normal answer for a new schema (nothing to be compatible with); an unknown revision or
    a path outside any repository is an error, because silently passing would hide a typo in ``--against``.
    """
    directory = path.resolve().parent
    inside = _git(directory, "rev-parse", "--is-inside-work-tree")
    if inside.returncode != 0 or inside.stdout.strip() != b"true":
        raise GitError(f"{path.as_posix()} is not inside a git work tree (needed for --against)")
    commit = _git(directory, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    if commit.returncode != 0:
        if revision == "HEAD" and _git(directory, "symbolic-ref", "--quiet", "HEAD").returncode == 0:
            return None  # a repository's first commit: HEAD names a branch with no commits yet
        raise GitError(f"unknown git revision {revision!r}")
    # "<rev>:./<name>" is resolved relative to the working directory, so no repository root is needed.
    blob = _git(directory, "rev-parse", "--verify", "--quiet", f"{revision}:./{path.name}")
    if blob.returncode != 0:
        return None
    shown = _git(directory, "cat-file", "blob", blob.stdout.decode().strip())
    if shown.returncode != 0:
        raise GitError(f"git cannot read {path.as_posix()} at {revision}: {shown.stderr.decode().strip()}")
    try:
        return shown.stdout.decode("utf-8-sig")  # as the working copy is read: a BOM is not JSON
    except UnicodeDecodeError as exc:
        raise GitError(f"{path.as_posix()} at {revision} is not UTF-8 text") from exc
