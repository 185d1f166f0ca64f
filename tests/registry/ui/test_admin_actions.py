"""The page's admin actions: level and mode, soft then permanent deletes after a confirmation, each behind
the CSRF token, told on the next page and logged; with --auth only an admin sees or may use them."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from registry.api import create_app
from registry.auth.permissions import Role
from registry.auth.users import add_user
from registry.config import RegistryConfig
from tests.registry.ui.helpers import SUBJECT, api, page_view, register
from tests.registry.ui.test_page_auth import ADMIN, PASSWORD, READER, basic

SETTINGS = f"/ui/subjects/{SUBJECT}/settings"


def token_of(page: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found is not None, "the page carries a form with the token"
    return found.group(1)


def notice(client: FlaskClient, answer: object) -> str:
    """Follows an action's redirect; returns the notice the page shows (once)."""
    location = answer.headers["Location"]  # type: ignore[attr-defined]
    assert answer.status_code == 303  # type: ignore[attr-defined]
    page = client.get(location).get_data(as_text=True)
    found = re.search(r'<p class="notice (ok|error)" role="status" id="notice">(.*?)</p>', page, re.S)
    assert found is not None, page[:3000]
    assert 'id="notice"' not in client.get(location).get_data(as_text=True), "shown once"
    return f"{found.group(1)}: {unescape(found.group(2))}"


@pytest.fixture
def filled(client: FlaskClient) -> FlaskClient:
    for version in (1, 2, 3):
        register(client, SUBJECT, page_view(version))
    return client


def test_level_and_mode_change_with_the_token_and_are_logged(
    filled: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    token = token_of(filled.get(f"/ui/subjects/{SUBJECT}").get_data(as_text=True))
    with caplog.at_level(logging.INFO, logger="registry.ui"):
        answer = filled.post(
            SETTINGS, data={"csrf_token": token, "compatibility": "FULL", "mode": "READONLY"}
        )
    assert notice(filled, answer) == (
        f"ok: Changed {SUBJECT}: compatibility level BACKWARD -> FULL; mode READWRITE -> READONLY."
    )
    assert api(filled, "GET", f"/config/{SUBJECT}") == {"compatibilityLevel": "FULL"}
    assert api(filled, "GET", f"/mode/{SUBJECT}") == {"mode": "READONLY"}
    assert [r.getMessage() for r in caplog.records if r.name == "registry.ui"] == [
        f"page admin action: subject '{SUBJECT}' compatibility level BACKWARD -> FULL; "
        "mode READWRITE -> READONLY, by anonymous (no --auth)"
    ]


def test_a_subject_goes_back_to_the_global_level_and_mode_which_the_list_shows(filled: FlaskClient) -> None:
    api(filled, "PUT", "/config", {"compatibility": "FORWARD"})
    listing = filled.get("/ui/").get_data(as_text=True)
    assert "compatibility\n  <strong>FORWARD</strong>, mode <strong>READWRITE</strong>" in listing
    page = filled.get(f"/ui/subjects/{SUBJECT}").get_data(as_text=True)
    assert '<option value="GLOBAL" selected>the global level</option>' in page
    # The global level chosen by name is a level of the subject's own.
    form = {"csrf_token": token_of(page), "compatibility": "FORWARD", "mode": "READONLY"}
    assert notice(filled, filled.post(SETTINGS, data=form)) == (
        f"ok: Changed {SUBJECT}: compatibility level FORWARD -> FORWARD; mode READWRITE -> READONLY."
    )
    assert api(filled, "GET", f"/config/{SUBJECT}") == {"compatibilityLevel": "FORWARD"}
    form = {"csrf_token": token_of(page), "compatibility": "GLOBAL", "mode": "GLOBAL"}
    assert notice(filled, filled.post(SETTINGS, data=form)) == (
        f"ok: Changed {SUBJECT}: compatibility level FORWARD -> the global level; "
        "mode READONLY -> the global mode."
    )
    assert filled.get(f"/config/{SUBJECT}").status_code == 404  # no level of its own, as DELETE leaves it
    assert filled.get(f"/mode/{SUBJECT}").status_code == 404
    assert api(filled, "GET", f"/config/{SUBJECT}?defaultToGlobal=true")["compatibilityLevel"] == "FORWARD"
    page = filled.get(f"/ui/subjects/{SUBJECT}").get_data(as_text=True)
    assert "(the global level)" in page and '<option value="GLOBAL" selected>the global mode</option>' in page
    again = filled.post(SETTINGS, data=form)
    assert notice(filled, again) == "ok: Nothing to change: the level and mode were already those."


@pytest.mark.parametrize(
    ("token", "headers"),
    [(None, {}), ("forged" * 8, {}), ("valid", {"Origin": "https://evil.example"})],
    ids=["no token", "another token", "another origin"],
)
def test_a_post_without_the_page_s_token_is_refused_and_changes_nothing(
    filled: FlaskClient, token: str | None, headers: dict[str, str]
) -> None:
    real = token_of(filled.get(f"/ui/subjects/{SUBJECT}").get_data(as_text=True))
    form = {"compatibility": "NONE", "mode": "READONLY"}
    if token is not None:
        form["csrf_token"] = real if token == "valid" else token
    for path, data in ((SETTINGS, form), (f"/ui/subjects/{SUBJECT}/versions/3/delete",
                                          {**form, "confirmed": "yes", "permanent": "false"})):  # fmt: skip
        answer = filled.post(path, data=data, headers=headers)
        assert answer.status_code == 403
        assert "CSRF token is missing or stale" in answer.get_data(as_text=True)
    assert api(filled, "GET", f"/config/{SUBJECT}?defaultToGlobal=true")["compatibilityLevel"] == "BACKWARD"
    assert api(filled, "GET", f"/subjects/{SUBJECT}/versions") == [1, 2, 3]


def test_a_version_is_soft_deleted_then_permanently_deleted_after_confirming_each(
    filled: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    path = f"/ui/subjects/{SUBJECT}/versions/2/delete"
    subject_page = filled.get(f"/ui/subjects/{SUBJECT}").get_data(as_text=True)
    assert f'href="{path}">soft-delete…</a>' in subject_page
    confirm = filled.get(path).get_data(as_text=True)
    assert "Soft-delete version 2 of" in confirm and "Soft-delete version 2</button>" in confirm
    token = token_of(confirm)

    unconfirmed = filled.post(path, data={"csrf_token": token, "permanent": "false"})
    assert unconfirmed.status_code == 303 and unconfirmed.headers["Location"].endswith(path)
    assert api(filled, "GET", f"/subjects/{SUBJECT}/versions") == [1, 2, 3], "nothing without confirming"

    early = filled.post(path, data={"csrf_token": token, "permanent": "true", "confirmed": "yes"})
    assert notice(filled, early).startswith("error: Version 2 not deleted: Subject 'page-views-value' "
                                            "Version 2 was not deleted first")  # fmt: skip

    with caplog.at_level(logging.INFO, logger="registry.ui"):
        soft = filled.post(path, data={"csrf_token": token, "permanent": "false", "confirmed": "yes"})
        assert notice(filled, soft) == f"ok: Version 2 of {SUBJECT} soft-deleted."
        assert api(filled, "GET", f"/subjects/{SUBJECT}/versions") == [1, 3]
        assert api(filled, "GET", f"/subjects/{SUBJECT}/versions?deleted=true") == [1, 2, 3]
        confirm = filled.get(path).get_data(as_text=True)
        assert "Delete permanently version 2" in confirm
        hard = filled.post(path, data={"csrf_token": token, "permanent": "true", "confirmed": "yes"})
        assert notice(filled, hard) == f"ok: Version 2 of {SUBJECT} permanently deleted."
    assert api(filled, "GET", f"/subjects/{SUBJECT}/versions?deleted=true") == [1, 3]
    assert [r.getMessage() for r in caplog.records if r.name == "registry.ui"][-2:] == [
        f"page admin action: subject '{SUBJECT}' version 2 soft-deleted, by anonymous (no --auth)",
        f"page admin action: subject '{SUBJECT}' version 2 permanently deleted, by anonymous (no --auth)",
    ]


def test_a_subject_is_soft_deleted_then_permanently_deleted_after_confirming_each(
    filled: FlaskClient,
) -> None:
    path = f"/ui/subjects/{SUBJECT}/delete"
    assert f'href="{path}">delete the subject…</a>' in filled.get(f"/ui/subjects/{SUBJECT}").get_data(
        as_text=True
    )
    confirm = filled.get(path).get_data(as_text=True)
    assert (
        "Its 3 live versions stop being served" in confirm and "Soft-delete the subject</button>" in confirm
    )
    token = token_of(confirm)
    unconfirmed = filled.post(path, data={"csrf_token": token, "permanent": "false"})
    assert unconfirmed.status_code == 303 and unconfirmed.headers["Location"].endswith(path)
    assert api(filled, "GET", "/subjects") == [SUBJECT], "nothing without confirming"
    early = filled.post(path, data={"csrf_token": token, "permanent": "true", "confirmed": "yes"})
    assert notice(filled, early).startswith(
        f"error: {SUBJECT} not deleted: Subject '{SUBJECT}' was not deleted first"
    )

    soft = filled.post(path, data={"csrf_token": token, "permanent": "false", "confirmed": "yes"})
    assert notice(filled, soft) == f"ok: Subject {SUBJECT} soft-deleted (versions 1, 2, 3)."
    assert api(filled, "GET", "/subjects") == [] and api(filled, "GET", "/subjects?deleted=true") == [SUBJECT]
    confirm = filled.get(path).get_data(as_text=True)
    assert "Every version of the subject is soft-deleted" in confirm
    hard = filled.post(path, data={"csrf_token": token, "permanent": "true", "confirmed": "yes"})
    assert notice(filled, hard) == f"ok: Subject {SUBJECT} permanently deleted (versions 1, 2, 3)."
    assert api(filled, "GET", "/subjects?deleted=true") == []


@pytest.fixture
def auth_client(tmp_path: Path) -> Iterator[FlaskClient]:
    app: Flask = create_app(
        RegistryConfig(database_url=f"sqlite:///{tmp_path / 'registry.db'}", auth_enabled=True)
    )
    database = app.extensions["registry"].db
    add_user(database, "admin", Role.ADMIN, password=PASSWORD)
    add_user(database, "reader", Role.READ, password=PASSWORD)
    add_user(database, "writer", Role.WRITE, ("page-",), password=PASSWORD)
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = ADMIN["Authorization"]
    register(client, SUBJECT, page_view(1))
    del client.environ_base["HTTP_AUTHORIZATION"]
    yield client
    database.dispose()


def test_with_auth_only_an_admin_sees_and_may_use_the_actions(auth_client: FlaskClient) -> None:
    for headers in (READER, basic("writer", PASSWORD)):  # a writer of the subject's prefix included
        page = auth_client.get(f"/ui/subjects/{SUBJECT}", headers=headers).get_data(as_text=True)
        assert "settings-form" not in page and "soft-delete…" not in page and "csrf_token" not in page
        refused = auth_client.post(
            SETTINGS, data={"csrf_token": "t" * 43, "mode": "READONLY"}, headers=headers
        )
        assert refused.status_code == 403
        assert refused.mimetype == "text/html", "a page, not the API's JSON"
        assert "may not" in refused.get_data(as_text=True)
        delete = f"/ui/subjects/{SUBJECT}/versions/1/delete"
        assert auth_client.get(delete, headers=headers).status_code == 403
        assert auth_client.post(delete, data={"confirmed": "yes"}, headers=headers).status_code == 403
        whole = f"/ui/subjects/{SUBJECT}/delete"
        assert auth_client.get(whole, headers=headers).status_code == 403
        assert auth_client.post(whole, data={"confirmed": "yes"}, headers=headers).status_code == 403
    assert api_mode(auth_client) == "READWRITE"

    page = auth_client.get(f"/ui/subjects/{SUBJECT}", headers=ADMIN).get_data(as_text=True)
    assert "settings-form" in page and "signed in as admin" in page
    answer = auth_client.post(
        SETTINGS, data={"csrf_token": token_of(page), "mode": "READONLY"}, headers=ADMIN
    )
    assert answer.status_code == 303
    assert api_mode(auth_client) == "READONLY"
    no_token = auth_client.post(SETTINGS, data={"mode": "READWRITE"}, headers=ADMIN)
    assert no_token.status_code == 403 and api_mode(auth_client) == "READONLY", "an admin needs the token too"


def api_mode(client: FlaskClient) -> str:
    answer = client.get(f"/mode/{SUBJECT}?defaultToGlobal=true", headers=ADMIN)
    return str(answer.get_json()["mode"])
