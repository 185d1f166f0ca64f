"""The real pre-commit framework installs this repository's hooks and runs them on commits.

pre-commit installs a hook repository at a revision into its own environment, so the hook source here is a
one-commit snapshot of this working tree (what is being tested, committed or not). PRE_COMMIT_HOME is one
temp directory for the session, so that environment is built once (about a quarter minute, pip's cache
helps) and every commit after that takes a second.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import requests

from tests.registry.schema_check import schemas
from tests.registry.schema_check.conftest import GitRepo

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[3]
PAGE_VIEW = "schemas/page_view.avsc"


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="session")
def hook_source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This working tree (tracked and untracked, minus what git ignores) as a repository and its commit."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    snapshot = GitRepo(tmp_path_factory.mktemp("hook-source") / "repo")
    for relative in filter(None, listed.split("\0")):
        source = REPO_ROOT / relative
        if source.is_file():
            target = snapshot.root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    snapshot.git("add", "--all")
    snapshot.git("commit", "--quiet", "-m", "snapshot")
    return snapshot.root, snapshot.git("rev-parse", "HEAD").stdout.strip()


def with_hook(git_repo: GitRepo, hook_source: tuple[Path, str], pre_commit_home: Path, hook: str) -> GitRepo:
    """``git_repo`` with a .pre-commit-config.yaml naming ``hook`` (YAML flow mapping), hooks installed."""
    path, rev = hook_source
    git_repo.env["PRE_COMMIT_HOME"] = str(pre_commit_home)
    git_repo.write(
        ".pre-commit-config.yaml", f"repos:\n  - repo: {path}\n    rev: {rev}\n    hooks:\n      - {hook}\n"
    )
    git_repo.git("add", ".pre-commit-config.yaml")
    installed = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"],
        cwd=git_repo.root,
        env={**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home)},
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return git_repo


def commit(repo: GitRepo, text: str, message: str) -> subprocess.CompletedProcess[str]:
    """Stages the page_view schema and commits it through the installed hook."""
    repo.write(PAGE_VIEW, text)
    repo.git("add", PAGE_VIEW)
    return repo.git("commit", "-m", message, check=False)


def head(repo: GitRepo) -> str:
    return repo.git("rev-parse", "--verify", "--quiet", "HEAD", check=False).stdout.strip()


def assert_blocked_then_passed(repo: GitRepo) -> None:
    before = head(repo)
    blocked = commit(repo, schemas.ADDED_WITHOUT_DEFAULT, "add referrer without a default")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert f"{PAGE_VIEW}:{schemas.ADDED_WITHOUT_DEFAULT_LINE}:5: " in output
    assert "[READER_FIELD_MISSING_DEFAULT_VALUE]" in output
    assert head(repo) == before

    passed = commit(repo, schemas.ADDED_WITH_DEFAULT, "add referrer with a default")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert head(repo) != before
    assert repo.git("show", f"HEAD:{PAGE_VIEW}").stdout == schemas.ADDED_WITH_DEFAULT


def commit_files(repo: GitRepo, files: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    """Stages ``files`` and commits them through the installed hook."""
    for relative, text in files.items():
        repo.write(relative, text)
    repo.git("add", *files)
    return repo.git("commit", "-m", message, check=False)


def test_offline_hook_blocks_the_bad_commit_and_passes_the_good_one(
    git_repo: GitRepo, hook_source: tuple[Path, str], pre_commit_home: Path
) -> None:
    repo = with_hook(git_repo, hook_source, pre_commit_home, "{id: avro-schema-check-offline}")
    first = commit(repo, schemas.PAGE_VIEW_V1, "first schema")  # no HEAD yet: validated only
    assert first.returncode == 0, first.stdout + first.stderr
    assert_blocked_then_passed(repo)

    # A Protobuf file importing another, and a JSON schema with a $ref to another file, the same way.
    orders, payments = "schemas/orders.proto", "schemas/payments.json"
    added = commit_files(
        repo,
        {
            "schemas/customer.proto": schemas.CUSTOMER_PROTO,
            orders: schemas.ORDER_PROTO_V1,
            "schemas/address.json": schemas.ADDRESS_JSON,
            payments: schemas.PAYMENT_JSON_V1,
        },
        "Protobuf and JSON schemas",
    )
    assert added.returncode == 0, added.stdout + added.stderr
    before = head(repo)
    retyped = {orders: schemas.ORDER_PROTO_RETYPED, payments: schemas.PAYMENT_JSON_RETYPED}
    blocked = commit_files(repo, retyped, "retype total_cents and amount")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert f'{orders}:9:3: "Order.total_cents (field 3)" is string in the reader' in output
    assert "[FIELD_SCALAR_KIND_CHANGED]" in output
    line, column = schemas.PAYMENT_JSON_RETYPED_AT
    assert f"{payments}:{line}:{column}: " in output and "[TYPE_CHANGED]" in output
    assert head(repo) == before
    extended = {orders: schemas.ORDER_PROTO_ADDED, payments: schemas.PAYMENT_JSON_ADDED}
    passed = commit_files(repo, extended, "add a note to each")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert head(repo) != before


def test_offline_hook_blocks_an_invalid_schema_in_the_first_commit(
    git_repo: GitRepo, hook_source: tuple[Path, str], pre_commit_home: Path
) -> None:
    repo = with_hook(git_repo, hook_source, pre_commit_home, "{id: avro-schema-check-offline}")
    blocked = commit(repo, schemas.INVALID_DEFAULT, "invalid default")
    assert blocked.returncode != 0
    assert f"{PAGE_VIEW}:{schemas.INVALID_DEFAULT_LINE}:" in blocked.stdout + blocked.stderr
    assert head(repo) == ""


def test_registry_hook_checks_against_the_registry(
    git_repo: GitRepo, hook_source: tuple[Path, str], pre_commit_home: Path, registry_url: str
) -> None:
    topic = f"hook-{uuid.uuid4().hex[:10]}"
    page_view = f"schemas/{topic}.avsc"
    response = requests.post(
        f"{registry_url}/subjects/{topic}-value/versions",
        json={"schema": schemas.PAGE_VIEW_V1},
        headers={"Content-Type": "application/vnd.schemaregistry.v1+json"},
    )
    response.raise_for_status()
    repo = with_hook(
        git_repo,
        hook_source,
        pre_commit_home,
        f"{{id: avro-schema-check, args: [--registry-url, '{registry_url}']}}",
    )
    repo.write(page_view, schemas.ADDED_WITHOUT_DEFAULT)
    repo.git("add", page_view)
    blocked = repo.git("commit", "-m", "bad", check=False)
    assert blocked.returncode != 0
    assert f"{page_view}:{schemas.ADDED_WITHOUT_DEFAULT_LINE}:5: " in blocked.stdout + blocked.stderr
    assert "the new schema cannot read data written with version 1" in blocked.stdout + blocked.stderr

    repo.write(page_view, schemas.ADDED_WITH_DEFAULT)
    repo.git("add", page_view)
    passed = repo.git("commit", "-m", "good", check=False)
    assert passed.returncode == 0, passed.stdout + passed.stderr
