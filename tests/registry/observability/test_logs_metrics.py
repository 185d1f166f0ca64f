"""Request ids, log lines, /health and /metrics, in process (the real-HTTP checks are in test_http)."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from prometheus_client import REGISTRY

from registry.api import create_app
from registry.config import RegistryConfig
from registry.observability import logs
from tests.registry.api.helpers import body, record


@pytest.fixture
def client(tmp_path: Path) -> Iterator[FlaskClient]:
    app = create_app(RegistryConfig(database_url=f"sqlite:///{tmp_path / 'registry.db'}"))
    yield app.test_client()
    app.extensions["registry"].db.dispose()


@pytest.fixture
def json_lines() -> Iterator[object]:
    """Switches the registry loggers to JSON into a buffer; yields a reader of the parsed lines."""
    buffer = io.StringIO()
    logs.configure("json", stream=buffer)

    def read() -> list[dict[str, object]]:
        return [json.loads(line) for line in buffer.getvalue().splitlines()]

    yield read
    logs.configure("text")


def _sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_request_id_is_kept_when_safe_and_generated_otherwise(client: FlaskClient) -> None:
    assert (
        client.get("/subjects", headers={"X-Request-ID": "abc-123.x"}).headers["X-Request-ID"] == "abc-123.x"
    )
    for bad in ("has space", "x" * 129, 'quote"s', "caf\u00e9", ""):
        rid = client.get("/subjects", headers={"X-Request-ID": bad}).headers["X-Request-ID"]
        assert rid != bad and len(rid) == 32
    first, second = (client.get("/subjects").headers["X-Request-ID"] for _ in range(2))
    assert first != second


def test_json_access_line_has_the_request_fields(client: FlaskClient, json_lines) -> None:  # type: ignore[no-untyped-def]
    client.get("/subjects", headers={"X-Request-ID": "req-1"})
    (line,) = [entry for entry in json_lines() if entry.get("request_id") == "req-1"]
    assert line["level"] == "INFO" and line["method"] == "GET" and line["path"] == "/subjects"
    assert line["status"] == 200 and isinstance(line["duration_ms"], float)
    assert line["timestamp"].endswith("+00:00") and "GET /subjects 200" in line["message"]


def test_refused_registrations_are_warnings_with_subject_and_reason(client: FlaskClient, json_lines) -> None:  # type: ignore[no-untyped-def]
    refused = {"incompatible": 0.0, "invalid": 0.0}
    before = {k: _sample("registry_schema_refusals_total", reason=k) for k in refused}
    assert client.post("/subjects/w-value/versions", json=body(record(a="int"))).status_code == 200
    assert client.post("/subjects/w-value/versions", json=body(record(a="string"))).status_code == 409
    assert client.post("/subjects/w-value/versions", json=body('{"type": "nope"}')).status_code == 422
    warnings = [entry for entry in json_lines() if entry["level"] == "WARNING"]
    assert [w["subject"] for w in warnings] == ["w-value", "w-value"]
    assert "incompatible" in warnings[0]["message"] and warnings[0]["status"] == 409
    assert "invalid" in warnings[1]["message"] and warnings[1]["reason"]
    for kind in refused:
        assert _sample("registry_schema_refusals_total", reason=kind) == before[kind] + 1


def test_text_format_names_the_request_id(client: FlaskClient) -> None:
    buffer = io.StringIO()
    logs.configure("text", stream=buffer)
    client.get("/subjects", headers={"X-Request-ID": "req-text"})
    assert "GET /subjects 200 [request_id=req-text]" in buffer.getvalue()
    logs.configure("text")
    with pytest.raises(ValueError, match="log format"):
        logs.configure("xml")


def test_metrics_label_routes_not_paths_and_count_registrations_and_cache(client: FlaskClient) -> None:
    rule = "/subjects/<subject>/versions"
    before = _sample("registry_http_requests_total", endpoint=rule, method="POST", status="200")
    registered = _sample("registry_schema_registrations_total")
    hits = _sample("registry_cache_lookups_total", cache="schema", result="hit")
    for subject in ("m1-value", "m2-value"):
        assert client.post(f"/subjects/{subject}/versions", json=body(record(b="int"))).status_code == 200
    assert client.post("/subjects/m1-value/versions", json=body(record(b="int"))).status_code == 200
    schema_id = client.get("/subjects/m1-value/versions/1").get_json()["id"]
    for _ in range(2):
        assert client.get(f"/schemas/ids/{schema_id}").status_code == 200
    client.get("/no/such/path")

    text = client.get("/metrics").get_data(as_text=True)
    assert "m1-value" not in text and "/no/such/path" not in text
    assert 'endpoint="<unmatched>"' in text
    assert _sample("registry_http_requests_total", endpoint=rule, method="POST", status="200") == before + 3
    assert _sample("registry_schema_registrations_total") == registered + 2, "a re-registration is not new"
    assert _sample("registry_cache_lookups_total", cache="schema", result="hit") >= hits + 1
    assert _sample("registry_http_request_duration_seconds_count", endpoint=rule, method="POST") >= 3


def test_health_checks_the_database(client: FlaskClient, tmp_path: Path) -> None:
    ok = client.get("/health")
    assert ok.status_code == 200 and ok.get_json() == {"status": "ok"}
    gone = RegistryConfig(database_url=f"sqlite:///{tmp_path / 'missing' / 'x.db'}", auto_upgrade=False)
    app = create_app(gone)
    down = app.test_client().get("/health")
    assert down.status_code == 503 and down.get_json()["status"] == "unavailable"


def test_health_and_metrics_need_no_credentials_when_auth_is_on(tmp_path: Path) -> None:
    cfg = RegistryConfig(database_url=f"sqlite:///{tmp_path / 'auth.db'}", auth_enabled=True)
    app = create_app(cfg)
    client = app.test_client()
    try:
        assert client.get("/subjects").status_code == 401
        assert client.get("/health").status_code == 200
        metrics = client.get("/metrics")
        assert metrics.status_code == 200 and b"registry_http_requests_total" in metrics.data
    finally:
        app.extensions["registry"].db.dispose()


def test_private_metrics_need_a_user_of_any_role(tmp_path: Path) -> None:
    from registry.auth.permissions import Role
    from registry.auth.users import add_user

    cfg = RegistryConfig(
        database_url=f"sqlite:///{tmp_path / 'auth.db'}", auth_enabled=True, metrics_public=False
    )
    app = create_app(cfg)
    client = app.test_client()
    add_user(app.extensions["registry"].db, "prometheus", Role.READ, password="scrape-password")
    reader = {"Authorization": "Basic " + base64.b64encode(b"prometheus:scrape-password").decode()}
    try:
        anonymous = client.get("/metrics")
        assert (anonymous.status_code, anonymous.get_json()["error_code"]) == (401, 40101)
        assert client.get("/metrics", headers=reader).status_code == 200
        assert client.get("/health").status_code == 200
    finally:
        app.extensions["registry"].db.dispose()


def test_every_refused_registration_is_logged_and_counted_whoever_refuses(tmp_path: Path, json_lines) -> None:  # type: ignore[no-untyped-def]
    """Refusals by role, by mode and by path validation are registrations refused too, not only 409/422."""
    from registry.auth.permissions import Role
    from registry.auth.users import add_user

    app = create_app(RegistryConfig(database_url=f"sqlite:///{tmp_path / 'r.db'}", auth_enabled=True))
    client = app.test_client()
    add_user(app.extensions["registry"].db, "w", Role.WRITE, ("team-a.",), password="password-w")
    add_user(app.extensions["registry"].db, "boss", Role.ADMIN, password="password-boss")
    writer = {"Authorization": "Basic " + base64.b64encode(b"w:password-w").decode()}
    boss = {"Authorization": "Basic " + base64.b64encode(b"boss:password-boss").decode()}
    kinds = ("unauthenticated", "forbidden", "not_permitted", "invalid")
    before = {k: _sample("registry_schema_refusals_total", reason=k) for k in kinds}
    try:
        schema = body(record(a="int"))
        assert client.post("/subjects/team-a.x/versions", json=schema).status_code == 401
        assert client.post("/subjects/team-b.x/versions", json=schema, headers=writer).status_code == 403
        assert client.put("/mode/team-a.ro", json={"mode": "READONLY"}, headers=boss).status_code == 200
        assert client.post("/subjects/team-a.ro/versions", json=schema, headers=writer).status_code == 422
        assert client.post("/subjects/team-a.%01/versions", json=schema, headers=writer).status_code == 422
    finally:
        app.extensions["registry"].db.dispose()
    refusals = [line for line in json_lines() if line["message"].startswith("registration refused")]
    assert [(r["subject"], r["status"]) for r in refusals] == [
        ("team-a.x", 401),
        ("team-b.x", 403),
        ("team-a.ro", 422),
        ("team-a.\x01", 422),
    ]
    assert "read-only" in refusals[2]["reason"] and "(not_permitted)" in refusals[2]["message"]
    for kind in kinds:
        assert _sample("registry_schema_refusals_total", reason=kind) == before[kind] + 1, kind


def test_every_line_of_a_request_carries_its_id_even_when_the_path_is_refused(
    tmp_path: Path, json_lines
) -> None:  # type: ignore[no-untyped-def]
    app = create_app(RegistryConfig(database_url=f"sqlite:///{tmp_path / 'r.db'}", auth_enabled=True))
    client = app.test_client()
    try:
        bad_auth = {"Authorization": "Basic " + base64.b64encode(b"nobody:wrong-password").decode()}
        assert client.get("/subjects", headers={**bad_auth, "X-Request-ID": "auth-1"}).status_code == 401
        refused = client.post("/subjects/a%01/versions", json={}, headers={"X-Request-ID": "path-1"})
        assert refused.status_code == 422 and refused.headers["X-Request-ID"] == "path-1"
    finally:
        app.extensions["registry"].db.dispose()
    lines = json_lines()
    failed = [line for line in lines if line["message"].startswith("authentication failed")]
    assert [line.get("request_id") for line in failed] == ["auth-1"], "logged by registry.auth, not by us"
    assert {line.get("request_id") for line in lines if line.get("path") == "/subjects/a\x01/versions"} == {
        "path-1"
    }


def test_text_lines_escape_control_characters_of_client_input(client: FlaskClient) -> None:
    buffer = io.StringIO()
    logs.configure("text", stream=buffer)
    try:
        forged = "x%0A2026-01-01 00:00:00,000 INFO registry.requests: forged"
        client.post(
            f"/subjects/{forged}/versions", json=body(record(a="int")), headers={"X-Request-ID": "r9"}
        )
    finally:
        logs.configure("text")
    lines = buffer.getvalue().splitlines()
    assert len(lines) == 2, lines  # the refusal warning and the access line, one line each
    assert all("[request_id=r9]" in line for line in lines)
    assert "x\\n2026-01-01" in lines[0] and not any(line.startswith("2026-01-01") for line in lines)
