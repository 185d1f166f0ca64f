"""``registry check`` and ``registry push`` against a real registry over HTTP, per compatibility level."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner, Result

from registry.cli import main
from tests.registry.schema_check import schemas

pytestmark = pytest.mark.integration

CT = {"Content-Type": "application/vnd.schemaregistry.v1+json"}
V1 = schemas.record("PageView", [{"name": "a", "type": "int"}])
V2 = schemas.record(
    "PageView", [{"name": "a", "type": "int"}, {"name": "b", "type": "string", "default": ""}]
)
B_WITHOUT_DEFAULT = schemas.record(
    "PageView", [{"name": "a", "type": "int"}, {"name": "b", "type": "string"}]
)
A_REMOVED = schemas.record("PageView", [{"name": "b", "type": "string", "default": ""}])


@pytest.fixture
def topic() -> str:
    """A topic (so a subject) no other test uses: the session's registry is shared."""
    return f"check-{uuid.uuid4().hex[:10]}"


def register(registry_url: str, subject: str, schema: str) -> int:
    response = requests.post(
        f"{registry_url}/subjects/{subject}/versions", json={"schema": schema}, headers=CT
    )
    response.raise_for_status()
    return int(response.json()["id"])


def set_level(registry_url: str, subject: str, level: str) -> None:
    response = requests.put(f"{registry_url}/config/{subject}", json={"compatibility": level}, headers=CT)
    response.raise_for_status()


def write(tmp_path: Path, topic: str, text: str) -> Path:
    path = tmp_path / "schemas" / f"{topic}.avsc"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize(
    ("level", "history", "new", "passes"),
    [
        ("BACKWARD", [V1], V2, True),
        ("BACKWARD", [V1], B_WITHOUT_DEFAULT, False),
        ("BACKWARD", [V1, V2], B_WITHOUT_DEFAULT, True),  # only the latest version counts
        ("BACKWARD_TRANSITIVE", [V1, V2], B_WITHOUT_DEFAULT, False),  # v1 data has no b
        ("BACKWARD", [V1], A_REMOVED, True),
        ("FORWARD", [V1], A_REMOVED, False),  # readers on v1 need a, which has no default
        ("FORWARD", [V1], B_WITHOUT_DEFAULT, True),
        ("FULL", [V1], B_WITHOUT_DEFAULT, False),
        ("FULL", [V1], V2, True),
        ("FORWARD", [B_WITHOUT_DEFAULT, V2], V1, True),
        ("FORWARD_TRANSITIVE", [B_WITHOUT_DEFAULT, V2], V1, False),  # readers on the first version need b
        ("FULL_TRANSITIVE", [V1, V2], A_REMOVED, False),
        ("NONE", [V1], schemas.record("PageView", [{"name": "a", "type": "string"}]), True),
    ],
)
def test_check_uses_the_subjects_level(
    registry_url: str, tmp_path: Path, topic: str, level: str, history: list[str], new: str, passes: bool
) -> None:
    subject = f"{topic}-value"
    set_level(registry_url, subject, level)
    for schema in history:
        register(registry_url, subject, schema)
    result = cli("check", "--registry-url", registry_url, str(write(tmp_path, topic, new)))
    assert result.exit_code == (0 if passes else 1), result.output
    if passes:
        assert f"compatible under {level}" in result.output or level == "NONE"
    else:
        assert f"{topic}.avsc:" in result.output.splitlines()[0]


def test_the_global_level_applies_without_a_subject_level(
    registry_url: str, tmp_path: Path, topic: str
) -> None:
    register(registry_url, f"{topic}-value", V1)
    result = cli("check", "--registry-url", registry_url, str(write(tmp_path, topic, B_WITHOUT_DEFAULT)))
    assert result.exit_code == 1, result.output
    assert "[READER_FIELD_MISSING_DEFAULT_VALUE]" in result.output


def test_line_numbers_point_into_the_file(registry_url: str, tmp_path: Path, topic: str) -> None:
    register(registry_url, f"{topic}-value", schemas.PAGE_VIEW_V1)
    path = write(tmp_path, topic, schemas.ADDED_WITHOUT_DEFAULT)
    result = cli("check", "--registry-url", registry_url, str(path))
    assert result.exit_code == 1
    assert result.output.startswith(f"{path.as_posix()}:{schemas.ADDED_WITHOUT_DEFAULT_LINE}:5: ")


def test_a_subject_the_registry_does_not_know_is_validated_only(
    registry_url: str, tmp_path: Path, topic: str
) -> None:
    result = cli("check", "--registry-url", registry_url, str(write(tmp_path, topic, V1)))
    assert result.exit_code == 0, result.output
    assert f"new subject {topic}-value" in result.output
    invalid = cli(
        "check", "--registry-url", registry_url, str(write(tmp_path, topic, schemas.INVALID_DEFAULT))
    )
    assert invalid.exit_code == 1


def test_key_schemas_check_against_the_key_subject(registry_url: str, tmp_path: Path, topic: str) -> None:
    register(registry_url, f"{topic}-key", '"long"')
    key_file = tmp_path / f"{topic}.key.avsc"
    key_file.write_text('"string"')
    result = cli("check", "--registry-url", registry_url, str(key_file))
    assert result.exit_code == 1, result.output
    assert f"({topic}-key)" in result.output


def test_push_registers_then_reports_unchanged_then_refuses(
    registry_url: str, tmp_path: Path, topic: str
) -> None:
    path = write(tmp_path, topic, schemas.PAGE_VIEW_V1)
    first = cli("push", "--registry-url", registry_url, str(path))
    assert first.exit_code == 0, first.output
    schema_id = requests.get(f"{registry_url}/subjects/{topic}-value/versions/1").json()["id"]
    assert first.output == f"{path.as_posix()}: {topic}-value registered version 1 (id {schema_id})\n"

    again = cli("push", "--registry-url", registry_url, str(path))
    assert again.output == f"{path.as_posix()}: {topic}-value unchanged (version 1, id {schema_id})\n"

    path.write_text(schemas.ADDED_WITH_DEFAULT)
    second = cli("push", "--registry-url", registry_url, str(path))
    assert second.exit_code == 0
    assert f"{topic}-value registered version 2" in second.output

    path.write_text(schemas.ADDED_WITHOUT_DEFAULT.replace('"referrer"', '"session"'))
    refused = cli("push", "--registry-url", registry_url, str(path))
    assert refused.exit_code == 1, refused.output
    lines = refused.output.splitlines()
    assert lines[0] == (
        f"{path.as_posix()}: {topic}-value refused: incompatible with the registered versions (HTTP 409)"
    )
    assert lines[1].startswith(f"{path.as_posix()}:{schemas.ADDED_WITHOUT_DEFAULT_LINE}:5: ")
    versions = requests.get(f"{registry_url}/subjects/{topic}-value/versions").json()
    assert versions == [1, 2]


def test_push_refuses_an_invalid_schema_without_registering(
    registry_url: str, tmp_path: Path, topic: str
) -> None:
    path = write(tmp_path, topic, schemas.INVALID_DEFAULT)
    result = cli("push", "--registry-url", registry_url, str(path))
    assert result.exit_code == 1
    assert f"{topic}-value refused: invalid schema" in result.output
    assert requests.get(f"{registry_url}/subjects/{topic}-value/versions").status_code == 404


def test_push_without_a_registry_is_a_usage_error(
    tmp_path: Path, topic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REGISTRY_URL", raising=False)
    result = cli("push", str(write(tmp_path, topic, V1)))
    assert result.exit_code == 2
    assert "no registry: give --registry-url or set REGISTRY_URL" in result.output


def test_push_registers_a_referenced_file_first_and_the_importing_one_with_its_reference(
    registry_url: str, tmp_path: Path, topic: str
) -> None:
    folder = tmp_path / "schemas"
    folder.mkdir()
    customer, orders = f"{topic}-customer", f"{topic}-orders"
    (folder / f"{customer}.proto").write_text(schemas.CUSTOMER_PROTO)
    importing = schemas.ORDER_PROTO_V1.replace('"customer.proto"', f'"{customer}.proto"')
    (folder / f"{orders}.proto").write_text(importing)
    pushed = cli("push", str(folder / f"{orders}.proto"), "--registry-url", registry_url)
    assert pushed.exit_code == 0, pushed.output
    first, second = pushed.output.splitlines()  # the imported file first, though not named
    assert re.fullmatch(rf".*/{customer}\.proto: {customer}-value registered version 1 \(id \d+\)", first)
    assert re.fullmatch(rf".*/{orders}\.proto: {orders}-value registered version 1 \(id \d+\)", second)
    stored = requests.get(f"{registry_url}/subjects/{orders}-value/versions/1", timeout=10).json()
    assert stored["schemaType"] == "PROTOBUF"
    assert stored["references"] == [
        {"name": f"{customer}.proto", "subject": f"{customer}-value", "version": 1}
    ]

    retyped = importing.replace("int64 total_cents = 3;", "string total_cents = 3;")
    (folder / f"{orders}.proto").write_text(retyped)
    checked = cli("check", str(folder / f"{orders}.proto"), "--registry-url", registry_url)
    assert checked.exit_code == 1, checked.output
    assert "[FIELD_SCALAR_KIND_CHANGED]" in checked.output
    assert "the new schema cannot read data written with version 1" in checked.output
