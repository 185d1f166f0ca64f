"""Authentication through real HTTP: `registry users add` into the database, `registry serve --auth`
(gunicorn), then every endpoint as every kind of caller, the confluent-kafka client with
`basic.auth.user.info`, bearer tokens, and the throttle on repeated failures."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError

from tests.fixtures.registry_server import RegistryProcess, start_registry

pytestmark = pytest.mark.integration

PASSWORD = "s3cret-password"
SCHEMA = json.dumps({"type": "record", "name": "E", "fields": [{"name": "id", "type": "long"}]})
CT = {"Content-Type": "application/vnd.schemaregistry.v1+json"}
MINE, THEIRS, MISSING = "team-a.orders-value", "team-b.orders-value", "team-b.missing-value"


def users_cli(database_url: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "registry.cli", "users", *args, "--database-url", database_url],
        input=stdin, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


@dataclass
class AuthServer:
    server: RegistryProcess
    token: str

    @property
    def url(self) -> str:
        return self.server.url


@pytest.fixture(scope="module")
def auth_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, str]:
    """A database with one user per role, made with the CLI; returns its URL, a log dir and a token."""
    workdir = tmp_path_factory.mktemp("auth")
    url = f"sqlite:///{workdir / 'registry.db'}"
    subprocess.run([sys.executable, "-m", "registry.cli", "db", "upgrade", "--database-url", url], check=True)
    for name, role, extra in [
        ("reader", "read", []),
        ("writer", "write", ["--prefix", "team-a."]),
        ("admin", "admin", []),
    ]:
        done = users_cli(url, "add", name, "--role", role, *extra, "--password-stdin", stdin=PASSWORD + "\n")
        assert done.returncode == 0, done.stderr
    service = users_cli(url, "add", "ci-bot", "--role", "write", "--prefix", "team-a.", "--no-password")
    assert service.returncode == 0, service.stderr
    token = service.stdout.strip()
    assert token.count(".") == 1 and len(token) > 40
    return url, workdir, token


@pytest.fixture(scope="module")
def auth_server(auth_db: tuple[str, Path, str]) -> Iterator[AuthServer]:
    url, workdir, token = auth_db
    server = start_registry(url, workdir, extra_args=["--auth"])
    try:
        admin = ("admin", PASSWORD)
        for subject in (MINE, THEIRS):
            answer = requests.post(
                f"{server.url}/subjects/{subject}/versions", json={"schema": SCHEMA}, auth=admin
            )
            assert answer.status_code == 200, answer.text
        yield AuthServer(server, token)
    finally:
        server.stop()


S = "{s}"
# (method, path, body, what it needs): every route of the API; {s} is the subject under test.
ENDPOINTS: list[tuple[str, str, dict | None, str]] = [
    ("GET", "/", None, "public"),
    ("GET", "/health", None, "public"),
    ("GET", "/metrics", None, "public"),
    ("GET", "/openapi.json", None, "read"),
    ("GET", "/subjects", None, "read"),
    ("GET", f"/subjects/{S}/versions", None, "read"),
    ("GET", f"/subjects/{S}/versions/1", None, "read"),
    ("GET", f"/subjects/{S}/versions/latest/schema", None, "read"),
    ("GET", f"/subjects/{S}/versions/1/referencedby", None, "read"),
    ("POST", f"/subjects/{S}", {"schema": SCHEMA}, "read"),
    ("GET", "/schemas", None, "read"),
    ("GET", "/schemas/types", None, "read"),
    ("GET", "/schemas/ids/1", None, "read"),
    ("GET", "/schemas/ids/1/schema", None, "read"),
    ("GET", "/schemas/ids/1/subjects", None, "read"),
    ("GET", "/schemas/ids/1/versions", None, "read"),
    ("GET", "/schemas/guids/00000000-0000-8000-8000-000000000000", None, "read"),
    ("GET", "/schemas/guids/00000000-0000-8000-8000-000000000000/ids", None, "read"),
    ("GET", f"/subjects/{S}/metadata?key=owner&value=a", None, "read"),
    ("GET", "/contexts", None, "read"),
    ("POST", f"/compatibility/subjects/{S}/versions/latest", {"schema": SCHEMA}, "read"),
    ("POST", f"/compatibility/subjects/{S}/versions", {"schema": SCHEMA}, "read"),
    ("GET", "/config", None, "read"),
    ("GET", f"/config/{S}", None, "read"),
    ("GET", "/mode", None, "read"),
    ("GET", f"/mode/{S}", None, "read"),
    ("POST", f"/subjects/{S}/versions", {"schema": SCHEMA}, "write"),
    ("DELETE", f"/subjects/{S}/versions/99", None, "write"),
    ("DELETE", f"/subjects/{S}-gone", None, "write"),
    ("DELETE", f"/subjects/{S}/versions/99?permanent=true", None, "admin"),
    ("DELETE", f"/subjects/{S}-gone?permanent=true", None, "admin"),
    ("PUT", "/config", {"compatibility": "BACKWARD"}, "admin"),
    ("DELETE", "/config", None, "admin"),
    ("PUT", f"/config/{S}", {"compatibility": "BACKWARD"}, "admin"),
    ("DELETE", f"/config/{S}", None, "admin"),
    ("PUT", "/mode", {"mode": "READWRITE"}, "admin"),
    ("PUT", f"/mode/{S}", {"mode": "READWRITE"}, "admin"),
    ("DELETE", f"/mode/{S}", None, "admin"),
    ("GET", "/users", None, "admin"),
    ("POST", "/users", {"name": "matrix-user", "role": "read", "token": True}, "admin"),
    ("DELETE", "/users/matrix-user", None, "admin"),
]
# Who calls, on which subject, and which needs they meet.
CALLERS: dict[str, tuple[tuple[str, str] | None, str, set[str]]] = {
    "anonymous": (None, MINE, set()),
    "reader": (("reader", PASSWORD), MINE, {"read"}),
    "writer, own prefix": (("writer", PASSWORD), MINE, {"read", "write"}),
    "writer, other prefix": (("writer", PASSWORD), THEIRS, {"read"}),
    "admin": (("admin", PASSWORD), THEIRS, {"read", "write", "admin"}),
}


def call(base: str, method: str, path: str, body: dict | None, **kwargs: object) -> requests.Response:
    return requests.request(method, base + path, json=body, headers=CT, timeout=30, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("caller", list(CALLERS))
def test_every_endpoint_for_every_role(auth_server: AuthServer, caller: str) -> None:
    auth, subject, may = CALLERS[caller]
    wrong: list[str] = []
    for method, path, body, needs in ENDPOINTS:
        answer = call(auth_server.url, method, path.format(s=subject), body, auth=auth)
        if needs in may or needs == "public":
            ok = answer.status_code not in (401, 403)
        elif auth is None:
            ok = answer.status_code == 401 and answer.json()["error_code"] == 40101
            ok = ok and answer.headers.get("WWW-Authenticate", "").startswith("Basic")
        else:
            ok = answer.status_code == 403 and answer.json()["error_code"] == 40301
        if not ok:
            wrong.append(f"{method} {path} ({needs}) -> {answer.status_code} {answer.text[:120]}")
    assert not wrong, "\n".join(wrong)


def test_refusal_does_not_tell_whether_a_subject_exists(auth_server: AuthServer) -> None:
    auth = ("writer", PASSWORD)
    existing = call(auth_server.url, "POST", f"/subjects/{THEIRS}/versions", {"schema": SCHEMA}, auth=auth)
    missing = call(auth_server.url, "POST", f"/subjects/{MISSING}/versions", {"schema": SCHEMA}, auth=auth)
    assert existing.status_code == missing.status_code == 403
    assert existing.json()["message"].replace(THEIRS, "S") == missing.json()["message"].replace(MISSING, "S")


def test_wrong_password_unknown_user_and_bad_header_are_401(auth_server: AuthServer) -> None:
    for auth in (("reader", "wrong-password"), ("nobody", PASSWORD)):
        answer = call(auth_server.url, "GET", "/subjects", None, auth=auth)
        assert (answer.status_code, answer.json()["error_code"]) == (401, 40101)
        assert answer.json()["message"] == "Unauthorized: invalid credentials"  # same for both
    garbled = requests.get(auth_server.url + "/subjects", headers={"Authorization": "Basic ###"}, timeout=10)
    assert garbled.status_code == 401 and "base64" in garbled.json()["message"]


def test_bearer_token_of_a_service_user(auth_server: AuthServer) -> None:
    bearer = {"Authorization": f"Bearer {auth_server.token}", **CT}
    body = json.dumps({"schema": SCHEMA})
    mine = requests.post(f"{auth_server.url}/subjects/{MINE}/versions", data=body, headers=bearer, timeout=10)
    assert mine.status_code == 200, mine.text
    theirs = requests.post(
        f"{auth_server.url}/subjects/{THEIRS}/versions", data=body, headers=bearer, timeout=10
    )
    assert theirs.status_code == 403
    token_id = auth_server.token.split(".")[0]
    forged = {"Authorization": f"Bearer {token_id}.not-the-secret"}
    assert requests.get(f"{auth_server.url}/subjects", headers=forged, timeout=10).status_code == 401


def test_confluent_client_with_basic_auth_registers_under_its_prefix_only(auth_server: AuthServer) -> None:
    client = SchemaRegistryClient({"url": auth_server.url, "basic.auth.user.info": f"writer:{PASSWORD}"})
    schema = Schema(SCHEMA, "AVRO")
    schema_id = client.register_schema("team-a.client-value", schema)
    assert client.get_schema(schema_id).schema_str
    with pytest.raises(SchemaRegistryError) as refused:
        client.register_schema("team-b.client-value", schema)
    assert (refused.value.http_status_code, refused.value.error_code) == (403, 40301)
    anonymous = SchemaRegistryClient({"url": auth_server.url})
    with pytest.raises(SchemaRegistryError) as unauthenticated:
        anonymous.get_subjects()
    assert unauthenticated.value.http_status_code == 401


def test_users_list_shows_roles_and_never_secrets(auth_db: tuple[str, Path, str]) -> None:
    url, _, token = auth_db
    listed = users_cli(url, "list")
    assert listed.returncode == 0, listed.stderr
    for name in ("reader", "writer", "admin", "ci-bot"):
        assert name in listed.stdout
    assert "team-a." in listed.stdout
    assert PASSWORD not in listed.stdout and token.split(".")[1] not in listed.stdout


def test_users_cli_refuses_what_makes_no_sense(auth_db: tuple[str, Path, str]) -> None:
    url, _, _ = auth_db
    cases = [
        (["add", "w2", "--role", "write", "--password-stdin"], "needs at least one --prefix"),
        (["add", "r2", "--role", "read", "--prefix", "x", "--password-stdin"], "--prefix is for write users"),
        (["add", "reader", "--role", "read", "--password-stdin"], "exists already"),
        (["add", "bad name", "--role", "read", "--password-stdin"], "letters, digits"),
        (["remove", "nobody"], "no user 'nobody'"),
    ]
    for args, message in cases:
        done = users_cli(url, *args, stdin=PASSWORD + "\n")
        assert done.returncode == 1 and message in done.stderr, (args, done.stderr)
    short = users_cli(url, "add", "r3", "--role", "read", "--password-stdin", stdin="short\n")
    assert "at least 8 characters" in short.stderr


def test_anonymous_read_lets_anyone_read_and_no_one_write(
    auth_db: tuple[str, Path, str], registry_factory: Callable[..., RegistryProcess]
) -> None:
    url, _, _ = auth_db
    server = registry_factory(url, extra_args=["--auth", "--anonymous-read"], workers=1)
    assert requests.get(f"{server.url}/subjects", timeout=10).status_code == 200
    write = call(server.url, "POST", f"/subjects/{MINE}/versions", {"schema": SCHEMA})
    assert (write.status_code, write.json()["error_code"]) == (401, 40101)
    config = call(server.url, "PUT", "/config", {"compatibility": "NONE"})
    assert config.status_code == 401


def test_repeated_failures_are_throttled_and_logged(
    auth_db: tuple[str, Path, str],
    registry_factory: Callable[..., RegistryProcess],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, _, _ = auth_db
    monkeypatch.setenv("REGISTRY_AUTH_MAX_FAILURES", "3")
    server = registry_factory(url, extra_args=["--auth"], workers=1)
    statuses = [
        call(server.url, "GET", "/subjects", None, auth=("reader", f"guess-{n}")).status_code
        for n in range(4)
    ]
    assert statuses == [401, 401, 401, 429]
    blocked = call(server.url, "GET", "/subjects", None, auth=("reader", PASSWORD))
    assert blocked.status_code == 429 and int(blocked.headers["Retry-After"]) > 0  # even the right one
    assert blocked.json()["error_code"] == 42901
    other = call(server.url, "GET", "/subjects", None, auth=("admin", PASSWORD))
    assert other.status_code == 200  # another user name is not locked out
    log = server.output()
    assert log.count("authentication failed: user=reader client=127.0.0.1") == 3
    assert "guess-" not in log and PASSWORD not in log
