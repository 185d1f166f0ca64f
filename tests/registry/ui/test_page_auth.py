"""With --auth the page needs a user of any role, says nothing to anyone else, and reads for a reader."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from registry.api import create_app
from registry.auth.permissions import Role
from registry.auth.users import add_user
from registry.config import RegistryConfig
from tests.registry.ui.helpers import SUBJECT, page_view, register, text

PASSWORD = "correct horse battery"


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


ADMIN = basic("admin", PASSWORD)
READER = basic("reader", PASSWORD)


@pytest.fixture
def auth_app(tmp_path: Path) -> Iterator[Flask]:
    app = create_app(RegistryConfig(database_url=f"sqlite:///{tmp_path / 'registry.db'}", auth_enabled=True))
    database = app.extensions["registry"].db
    add_user(database, "admin", Role.ADMIN, password=PASSWORD)
    add_user(database, "reader", Role.READ, password=PASSWORD)
    yield app
    database.dispose()


@pytest.fixture
def client(auth_app: Flask) -> FlaskClient:
    client = auth_app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = ADMIN["Authorization"]
    register(client, SUBJECT, page_view(1))
    del client.environ_base["HTTP_AUTHORIZATION"]
    return client


PATHS = ["/ui/", f"/ui/subjects/{SUBJECT}", "/ui/subjects/no-such-value", "/ui/schemas/1", "/ui/schemas/99"]


@pytest.mark.parametrize("headers", [{}, basic("reader", "wrong"), basic("nobody", PASSWORD)])
def test_without_valid_credentials_every_page_asks_for_them_and_tells_nothing(
    client: FlaskClient, headers: dict[str, str]
) -> None:
    answers = [client.get(path, headers=headers) for path in [*PATHS, "/ui/static/ui.css"]]
    answers.append(client.post("/ui/check", data={"subject": SUBJECT, "schema": "{}"}, headers=headers))
    assert {answer.status_code for answer in answers} == {401}
    assert {answer.headers["WWW-Authenticate"] for answer in answers} == {
        'Basic realm="schema-registry", charset="UTF-8"'
    }
    assert len({answer.get_data() for answer in answers}) == 1, "an existing and a missing subject look alike"
    assert SUBJECT.encode() not in answers[1].get_data()


def test_a_reader_sees_every_page_and_may_run_the_check(client: FlaskClient) -> None:
    for path in PATHS[:2] + PATHS[3:4]:
        answer = client.get(path, headers=READER)
        assert answer.status_code == 200
        assert "signed in as reader" in answer.get_data(as_text=True)
    checked = client.post(
        "/ui/check", data={"subject": SUBJECT, "schema": text(page_view(2))}, headers=READER
    )
    assert checked.status_code == 200 and "Passes:" in checked.get_data(as_text=True)
    assert client.get(f"/subjects/{SUBJECT}/versions", headers=READER).get_json() == [1]
