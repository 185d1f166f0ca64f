"""Contract files beside schema files (``<topic>.meta.json``): validated like the registry validates them,
pointing into the file; offline checks honour a compatibility group; a changed contract alone is checked."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner, Result

from registry.cli import main
from registry.schema_check.contract_file import (
    Contract,
    ContractError,
    parse_contract,
    schema_path_of,
    sidecar_of,
)
from registry.schema_check.source_positions import Position
from tests.registry.schema_check import schemas
from tests.registry.schema_check.conftest import GitRepo

PAGE_VIEW = "schemas/page_view.avsc"
CONTRACT = "schemas/page_view.meta.json"
RULE = {
    "name": "hasUrl",
    "kind": "CONDITION",
    "mode": "WRITE",
    "type": "CEL",
    "expr": "size(message.url) > 0",
}


def contract(major: str, **extra: object) -> str:
    return json.dumps({"metadata": {"properties": {"owner": "web", "major": major}}, **extra}, indent=2)


def test_sidecar_names() -> None:
    assert sidecar_of(Path("s/page_view.avsc")) == Path("s/page_view.meta.json")
    assert sidecar_of(Path("s/page_view.key.avsc")) == Path("s/page_view.key.meta.json")
    assert schema_path_of(Path("s/page_view.key.meta.json")) == Path("s/page_view.key.avsc")
    assert schema_path_of(Path("s/page_view.avsc")) is None


def test_a_valid_contract_is_canonical() -> None:
    parsed = parse_contract(contract("1", ruleSet={"domainRules": [RULE]}), Path(CONTRACT))
    assert parsed.metadata == {"properties": {"major": "1", "owner": "web"}}
    assert parsed.rule_set == {"domainRules": [{**RULE, "disabled": False}]}
    assert Contract(metadata={}).body() == {"metadata": {}}, "given and empty: clears the metadata"
    assert parse_contract("{}", Path(CONTRACT)) == Contract()


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        (
            '{"metadata": {"properties": {"major": 2}}}',
            Position(1, 14),
            "metadata.properties.major must be a string",
        ),
        ('{\n  "ruleSet": {"domainRules": [{"name": "x"}]}\n}', Position(2, 14), "needs a string 'type'"),
        ('{\n  "rules": []\n}', Position(2, 12), "unknown key 'rules'"),
        ('{\n  "metadata": {,\n}', Position(2, 16), "not JSON"),
        ("[]", Position(1, 1), "a contract file is a JSON object"),
    ],
)
def test_an_invalid_contract_points_into_its_file(text: str, position: Position, message: str) -> None:
    with pytest.raises(ContractError) as refused:
        parse_contract(text, Path(CONTRACT))
    finding = refused.value.finding
    assert (finding.position, finding.rule, finding.path_display) == (position, "invalid-contract", CONTRACT)
    assert message in finding.message


@pytest.fixture
def repo(git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """page_view v1 with a contract of major version 1, committed; the working directory at the root."""
    git_repo.commit({PAGE_VIEW: schemas.PAGE_VIEW_V1, CONTRACT: contract("1")}, "page views")
    monkeypatch.chdir(git_repo.root)
    monkeypatch.delenv("REGISTRY_URL", raising=False)
    return git_repo


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", *args], catch_exceptions=False)


def test_offline_a_new_major_is_compared_only_with_its_own_group(repo: GitRepo) -> None:
    repo.write(PAGE_VIEW, schemas.URL_AS_INT)
    assert run("--against", "HEAD", PAGE_VIEW).exit_code == 1, "no group: an incompatible change"
    grouped = run("--against", "HEAD", "--compatibility-group", "major", PAGE_VIEW)
    assert grouped.exit_code == 1, "the contract still says major 1, carried from HEAD"
    repo.write(CONTRACT, contract("2"))
    result = run("--against", "HEAD", "--compatibility-group", "major", PAGE_VIEW)
    assert result.exit_code == 0, result.output
    assert "no version of page_view-value in compatibility group major=2" in result.output
    same_major = run("--against", "HEAD", "--compatibility-group", "owner", PAGE_VIEW)
    assert same_major.exit_code == 1 and "compatibility group" not in same_major.output.splitlines()[0]


def test_an_invalid_contract_fails_the_commit_at_its_line(repo: GitRepo) -> None:
    repo.write(CONTRACT, '{\n  "metadata": {"properties": {"major": 2}}\n}\n')
    result = run("--against", "HEAD", PAGE_VIEW)
    assert result.exit_code == 1, result.output
    first = result.output.splitlines()[0]
    assert first.startswith(f"{CONTRACT}:2:15: Invalid metadata: metadata.properties.major must be a string")
    assert first.endswith("[invalid-contract]")
    assert f"{PAGE_VIEW}: invalid (page_view-value)" in result.output


def test_a_changed_contract_alone_checks_its_schema(repo: GitRepo) -> None:
    repo.write(CONTRACT, contract("1", ruleSet={"domainRules": [RULE]}))
    result = run("--against", "HEAD", CONTRACT)
    assert result.exit_code == 0, result.output
    assert f"{PAGE_VIEW}: ok (page_view-value; compatible under BACKWARD" in result.output


def test_an_unreadable_contract_is_a_usage_error(repo: GitRepo) -> None:
    (repo.root / CONTRACT).write_bytes(b'{"metadata": "\xff"}')
    result = run("--against", "HEAD", PAGE_VIEW)
    assert result.exit_code == 2 and "cannot read schemas/page_view.meta.json" in result.output


@pytest.mark.integration
def test_push_registers_the_contract_and_check_follows_the_registrys_compatibility_group(
    registry_url: str, tmp_path: Path
) -> None:
    topic = f"contract-{uuid.uuid4().hex[:10]}"
    subject = f"{topic}-value"
    schema_path = tmp_path / "schemas" / f"{topic}.avsc"
    sidecar = sidecar_of(schema_path)
    schema_path.parent.mkdir()
    schema_path.write_text(schemas.PAGE_VIEW_V1)
    sidecar.write_text(contract("1", ruleSet={"domainRules": [RULE]}))

    def cli(command: str, *paths: Path) -> Result:
        args = [command, "--registry-url", registry_url, *(p.as_posix() for p in paths)]
        return CliRunner().invoke(main, args, catch_exceptions=False)

    def latest() -> dict:
        return requests.get(f"{registry_url}/subjects/{subject}/versions/latest", timeout=10).json()

    assert "registered version 1" in cli("push", schema_path).output
    assert latest()["metadata"] == {"properties": {"major": "1", "owner": "web"}}
    assert latest()["ruleSet"] == {"domainRules": [{**RULE, "disabled": False}]}
    assert "unchanged (version 1" in cli("push", schema_path).output
    sidecar.write_text(contract("1"))
    assert "unchanged (version 1" in cli("push", sidecar).output, "no ruleSet: carried forward"
    sidecar.write_text(contract("1", ruleSet={}))
    assert "registered version 2" in cli("push", sidecar).output, "a changed contract alone: a new version"
    assert "ruleSet" not in latest()

    config = requests.put(
        f"{registry_url}/config/{subject}", json={"compatibilityGroup": "major"}, timeout=10
    )
    assert config.status_code == 200
    schema_path.write_text(schemas.URL_AS_INT)
    same_major = cli("check", schema_path)
    assert same_major.exit_code == 1, same_major.output
    sidecar.write_text(contract("2"))
    next_major = cli("check", schema_path)
    assert next_major.exit_code == 0, next_major.output
    assert f"no version of {subject} in compatibility group major=2" in next_major.output
    assert "registered version 3" in cli("push", schema_path).output
    sidecar.unlink()  # from now on the contract is carried forward from version 3 (major 2)
    schema_path.write_text(schemas.PAGE_VIEW_V1)
    carried = cli("check", schema_path)
    assert carried.exit_code == 1, carried.output
    assert "data written with version 3" in carried.output and "version 1" not in carried.output
