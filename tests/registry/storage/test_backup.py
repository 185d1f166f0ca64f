"""``registry export`` / ``registry import``: a round trip SQLite -> PostgreSQL -> SQLite keeps every id,
version, soft delete, setting and data contract; documents of the first format still import; bad files
and non-empty targets are refused without writing anything."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from click.testing import CliRunner, Result
from confluent_kafka.schema_registry import SchemaRegistryClient
from flask.testing import FlaskClient

from registry.api import create_app
from registry.cli import main
from registry.config import RegistryConfig
from tests.fixtures.registry_server import RegistryProcess
from tests.registry.api.helpers import body, record

V1 = record(a="int")
V2 = record(a="int", b=("string", "x"))
RULES = {
    "domainRules": [
        {"name": "a", "kind": "CONDITION", "mode": "WRITE", "type": "CEL", "expr": "true", "disabled": False}
    ]
}
PATHS = [
    "/subjects",
    "/subjects?deleted=true",
    "/subjects/a-value/versions",
    "/subjects/a-value/versions?deleted=true",
    "/subjects/a-value/versions/2",
    "/subjects/a-value/versions/1?deleted=true",
    "/subjects/c-value/versions?deleted=true",
    "/subjects/d-value/versions/1",
    "/subjects/d-value/metadata?key=owner&value=team-d",
    "/schemas?deleted=true",
    "/config",
    "/config/b-value",
    "/mode",
    "/mode/b-value",
]


def _cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def source(tmp_path: Path) -> Iterator[tuple[str, FlaskClient]]:
    """A SQLite registry with soft deletes, a shared schema, per-subject and global settings."""
    url = f"sqlite:///{tmp_path / 'source.db'}"
    app = create_app(RegistryConfig(database_url=url))
    client = app.test_client()
    for subject, schema in (("a-value", V1), ("a-value", V2), ("b-value", V2), ("c-value", V1)):
        assert client.post(f"/subjects/{subject}/versions", json=body(schema)).status_code == 200
    assert client.delete("/subjects/a-value/versions/1").status_code == 200
    assert client.delete("/subjects/c-value").status_code == 200
    contract = {"metadata": {"properties": {"owner": "team-d"}}, "ruleSet": RULES}
    assert client.post("/subjects/d-value/versions", json=body(V1, **contract)).status_code == 200
    subject_config = {"compatibility": "NONE", "compatibilityGroup": "major", "defaultRuleSet": RULES}
    assert client.put("/config/b-value", json=subject_config).status_code == 200
    assert client.put("/mode/b-value", json={"mode": "READONLY"}).status_code == 200
    global_config = {"compatibility": "FORWARD", "overrideMetadata": {"properties": {"env": "prod"}}}
    assert client.put("/config", json=global_config).status_code == 200
    yield url, client
    app.extensions["registry"].db.dispose()


def _without_times(document: dict[str, Any]) -> dict[str, Any]:
    """The content of a backup, without the moments it was taken (timestamps' formats differ per database)."""
    out = json.loads(json.dumps(document))
    out.pop("exported_at")
    for schema in out["schemas"]:
        schema.pop("created_at")
    for subject in out["subjects"]:
        for version in subject["versions"]:
            version.pop("created_at")
    return out


@pytest.mark.integration
def test_round_trip_sqlite_postgres_sqlite_keeps_everything(
    source: tuple[str, FlaskClient],
    fresh_postgres_url: str,
    registry_factory: Callable[..., RegistryProcess],
    tmp_path: Path,
) -> None:
    source_url, client = source
    backup = tmp_path / "backup.json"
    assert _cli("export", "--database-url", source_url, "-o", str(backup)).exit_code == 0
    document = json.loads(backup.read_text())
    assert document["format_version"] == 2 and len(document["schemas"]) == 3
    assert _cli("import", "--database-url", fresh_postgres_url, str(backup)).exit_code == 0

    server = registry_factory(fresh_postgres_url, workers=1, threads=2)
    for path in PATHS:
        expected = client.get(path)
        got = requests.get(server.url + path, timeout=10)
        assert (got.status_code, got.json()) == (expected.status_code, expected.get_json()), path
    confluent = SchemaRegistryClient({"url": server.url})
    for schema in document["schemas"]:
        assert confluent.get_schema(schema["id"]).schema_str == schema["schema"]
    newer = requests.post(
        f"{server.url}/subjects/a-value/versions", json=body(record(a="int", b=("string", "x"), c=("int", 0)))
    )
    assert newer.json()["id"] == 4, "new ids continue after the imported ones"
    assert newer.json()["metadata"] == {"properties": {"env": "prod"}}, "the imported override applies"

    again = tmp_path / "again.json"
    assert _cli("export", "--database-url", fresh_postgres_url, "-o", str(again)).exit_code == 0
    back = f"sqlite:///{tmp_path / 'back.db'}"
    assert _cli("import", "--database-url", back, str(again)).exit_code == 0
    assert _cli("export", "--database-url", back, "-o", str(tmp_path / "back.json")).exit_code == 0
    assert _without_times(json.loads((tmp_path / "back.json").read_text())) == _without_times(
        json.loads(again.read_text())
    )


def test_a_first_format_document_imports_with_guids_and_no_contracts(tmp_path: Path) -> None:
    """What `registry export` wrote before data contracts: no GUIDs, metadata, rules or contract config."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    app = create_app(RegistryConfig(database_url=url))
    client = app.test_client()
    first = client.post("/subjects/a-value/versions", json=body(V1)).get_json()
    app.extensions["registry"].db.dispose()
    backup = tmp_path / "v1.json"
    _cli("export", "--database-url", url, "-o", str(backup))
    document = json.loads(backup.read_text())
    document["format_version"] = 1
    for schema in document["schemas"]:
        for key in ("guid", "metadata", "rule_set"):
            del schema[key]
    for holder in (document["config"], *document["subjects"]):
        for key in ("compatibility_group", "default_metadata", "override_metadata", "default_rule_set",
                    "override_rule_set"):  # fmt: skip
            del holder[key]
    backup.write_text(json.dumps(document))
    target = f"sqlite:///{tmp_path / 'target.db'}"
    assert _cli("import", "--database-url", target, str(backup)).exit_code == 0
    restored = create_app(RegistryConfig(database_url=target))
    try:
        got = restored.test_client().get("/subjects/a-value/versions/1").get_json()
        assert (got["id"], got["guid"]) == (first["id"], first["guid"]), "the GUID the registry derives"
        assert "metadata" not in got and "ruleSet" not in got
        assert restored.test_client().get(f"/schemas/guids/{first['guid']}").status_code == 200
    finally:
        restored.extensions["registry"].db.dispose()


def _subjects(url: str) -> list[str]:
    app = create_app(RegistryConfig(database_url=url))
    try:
        return app.test_client().get("/subjects?deleted=true").get_json()
    finally:
        app.extensions["registry"].db.dispose()


def test_non_empty_target_needs_force(source: tuple[str, FlaskClient], tmp_path: Path) -> None:
    source_url, _ = source
    backup = tmp_path / "backup.json"
    _cli("export", "--database-url", source_url, "-o", str(backup))
    target = f"sqlite:///{tmp_path / 'target.db'}"
    create_app(RegistryConfig(database_url=target)).test_client().post(
        "/subjects/other-value/versions", json=body(V1)
    )
    refused = _cli("import", "--database-url", target, str(backup))
    assert refused.exit_code == 1 and "not empty" in refused.output
    assert _subjects(target) == ["other-value"]
    assert _cli("import", "--database-url", target, "--force", str(backup)).exit_code == 0
    assert _subjects(target) == ["a-value", "b-value", "c-value", "d-value"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: "{not json", "not a JSON document"),
        (lambda d: {**d, "format_version": 99}, "unsupported backup format_version 99"),
        (lambda d: {**d, "format": "something-else"}, "not a registry backup"),
        (lambda d: {k: v for k, v in d.items() if k != "schemas"}, "malformed backup"),
        (lambda d: _edit(d, lambda x: x["subjects"][0]["versions"][0].update(schema_id=77)),
         "unknown schema id 77"),
        (lambda d: _edit(d, lambda x: x["schemas"][1].update(identity_hash=x["schemas"][0]["identity_hash"])),
         "contradicts itself"),
        (lambda d: _edit(d, lambda x: x["config"].update(compatibility="SIDEWAYS")),
         "config compatibility 'SIDEWAYS' is not one of NONE, BACKWARD"),
        (lambda d: _edit(d, lambda x: x["subjects"][1].update(mode="READ-ONLY")),
         "subject 'b-value': mode 'READ-ONLY' is not one of READWRITE"),
        (lambda d: _edit(d, lambda x: x["subjects"][0].update(last_version=1)),
         "subject 'a-value': last_version must be an integer, at least its highest version"),
        (lambda d: _edit(d, lambda x: x["schemas"][2].update(metadata={"properties": {"owner": 1}})),
         "schema 3: metadata.properties.owner must be a string"),
        (lambda d: _edit(d, lambda x: x["schemas"][2].update(rule_set={"domainRules": [{"name": "a"}]})),
         "schema 3: rule_set.domainRules[0] (a) needs a string 'type'"),
        (lambda d: _edit(d, lambda x: x["schemas"][2].update(guid="42")),
         "schema 3: guid '42' is not a UUID"),
        (lambda d: _edit(d, lambda x: x["schemas"][1].update(guid=x["schemas"][0]["guid"])),
         "contradicts itself"),
        (lambda d: _edit(d, lambda x: x["subjects"][1].update(default_rule_set={"rules": []})),
         "subject 'b-value': default_rule_set has unknown field 'rules'"),
        (lambda d: _edit(d, lambda x: x["config"].update(compatibility_group="")),
         "config compatibility_group must be a name"),
        (lambda d: _edit(d, lambda x: x["config"].update(override_metadata={"sensitive": ["b", "a"]})),
         "config override_metadata is not in canonical form"),
    ],
)  # fmt: skip
def test_bad_files_are_refused_and_nothing_is_written(
    source: tuple[str, FlaskClient], tmp_path: Path, change: Callable[[Any], Any], message: str
) -> None:
    source_url, _ = source
    backup = tmp_path / "backup.json"
    _cli("export", "--database-url", source_url, "-o", str(backup))
    changed = change(json.loads(backup.read_text()))
    backup.write_text(changed if isinstance(changed, str) else json.dumps(changed))
    target = f"sqlite:///{tmp_path / 'target.db'}"
    refused = _cli("import", "--database-url", target, str(backup))
    assert refused.exit_code == 1 and message in refused.output
    assert _subjects(target) == []


def _edit(document: dict[str, Any], edit: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    edit(document)
    return document
