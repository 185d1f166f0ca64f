"""``/users`` for admins: add a user with a token, the token works at once, list, remove; bad requests
answer 400 with the reason; without authentication the routes do not exist."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from registry.api import create_app
from registry.auth.permissions import Role
from registry.auth.users import add_user
from registry.config import RegistryConfig
from tests.registry.api.helpers import body, record

ADMIN = {"Authorization": "Basic " + base64.b64encode(b"root:root-password").decode()}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[FlaskClient]:
    app = create_app(RegistryConfig(database_url=f"sqlite:///{tmp_path / 'r.db'}", auth_enabled=True))
    add_user(app.extensions["registry"].db, "root", Role.ADMIN, password="root-password")
    yield app.test_client()
    app.extensions["registry"].db.dispose()


def test_an_admin_adds_a_writer_whose_token_works_then_removes_it(client: FlaskClient) -> None:
    added = client.post(
        "/users", json={"name": "ci", "role": "write", "prefixes": ["team-a."], "token": True}, headers=ADMIN
    )
    assert added.status_code == 200, added.get_json()
    token = added.get_json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    assert (
        client.post("/subjects/team-a.x/versions", json=body(record(a="int")), headers=bearer).status_code
        == 200
    )
    assert (
        client.post("/subjects/team-b.x/versions", json=body(record(a="int")), headers=bearer).status_code
        == 403
    )

    listed = client.get("/users", headers=ADMIN).get_json()
    assert {
        "name": "ci",
        "role": "write",
        "prefixes": ["team-a."],
        "password": False,
        "token": True,
    } in listed
    assert token.split(".")[1] not in str(listed)

    assert client.delete("/users/ci", headers=ADMIN).get_json() == {"name": "ci"}
    assert [u["name"] for u in client.get("/users", headers=ADMIN).get_json()] == ["root"]


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ({"name": "w", "role": "write", "password": "long-enough"}, "needs at least one --prefix"),
        ({"name": "r", "role": "reader", "password": "long-enough"}, "'role' must be one of"),
        ({"name": "r", "role": "read", "password": "short"}, "at least 8 characters"),
        ({"name": "r", "role": "read"}, "a password, a token, or both"),
        ({"name": "root", "role": "read", "token": True}, "exists already"),
        ({"name": "bad name", "role": "read", "token": True}, "letters, digits"),
        ({"name": "r", "role": "write", "prefixes": "team-a.", "token": True}, "'prefixes' must be a list"),
    ],
)
def test_bad_requests_are_400_with_the_reason(client: FlaskClient, payload: dict, reason: str) -> None:
    answer = client.post("/users", json=payload, headers=ADMIN)
    assert (answer.status_code, answer.get_json()["error_code"]) == (400, 400)
    assert reason in answer.get_json()["message"]
    assert client.delete("/users/nobody", headers=ADMIN).status_code == 400


def test_without_authentication_there_are_no_user_routes(tmp_path: Path) -> None:
    app = create_app(RegistryConfig(database_url=f"sqlite:///{tmp_path / 'open.db'}"))
    try:
        client = app.test_client()
        assert client.get("/users").status_code == 404
        assert client.post("/users", json={"name": "x", "role": "admin", "token": True}).status_code == 404
    finally:
        app.extensions["registry"].db.dispose()
