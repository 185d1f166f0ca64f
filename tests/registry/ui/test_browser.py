"""The page in a real browser (Chromium via Playwright) against a real ``registry serve``.

Each test saves screenshots of the pages it visits under its temporary directory. Console errors and
uncaught page errors fail a test: a Content-Security-Policy violation by the page itself shows up there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
import requests
from playwright.sync_api import Browser, Page, expect

from tests.fixtures.registry_server import REPO_ROOT, RegistryProcess, start_registry
from tests.registry.schema_check import schemas
from tests.registry.ui.conftest import Watched
from tests.registry.ui.helpers import (
    CT,
    HOSTILE_DOC,
    HOSTILE_SUBJECT,
    SUBJECT,
    incompatible_with_latest,
    page_view,
    text,
)

pytestmark = pytest.mark.integration

PASSWORD = "correct horse battery"
TOPICS = 60


def post(
    url: str,
    subject: str,
    schema: dict[str, Any] | str,
    auth: tuple[str, str] | None = None,
    **extra: Any,
) -> int:
    text = schema if isinstance(schema, str) else json.dumps(schema)
    answer = requests.post(
        f"{url}/subjects/{quote(subject, safe='')}/versions",
        data=json.dumps({"schema": text, **extra}),
        headers=CT,
        auth=auth,
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    return int(answer.json()["id"])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RegistryProcess]:
    """A registry with a three-version subject, many small ones, one whose name and doc hold markup, and a
    Protobuf subject importing another."""
    workdir = tmp_path_factory.mktemp("ui-browser")
    started = start_registry(f"sqlite:///{workdir / 'registry.db'}", workdir)
    try:
        for version in (1, 2, 3):
            post(started.url, SUBJECT, page_view(version))
        for n in range(TOPICS):
            topic = {"type": "record", "name": f"Topic{n}", "fields": [{"name": "id", "type": "long"}]}
            post(started.url, f"topic-{n:03d}-value", topic)
        hostile = page_view(1)
        hostile["fields"][0]["doc"] = HOSTILE_DOC
        post(started.url, HOSTILE_SUBJECT, hostile)
        post(started.url, "customer-value", schemas.CUSTOMER_PROTO, schemaType="PROTOBUF")
        reference = {"name": "customer.proto", "subject": "customer-value", "version": 1}
        post(
            started.url, "orders-value", schemas.ORDER_PROTO_V1, schemaType="PROTOBUF", references=[reference]
        )
        yield started
    finally:
        started.stop()


def table_texts(page: Page, selector: str) -> list[str]:
    return [" ".join(row.split()) for row in page.locator(selector).all_inner_texts()]


def test_from_the_list_to_a_subject_to_a_diff_and_a_schema(watched: Watched, server: RegistryProcess) -> None:
    page = watched.page
    page.goto(server.url + "/ui/")
    expect(page.locator(".count")).to_have_text(f"{TOPICS + 4} subjects, page 1 of 2")
    watched.shot("subjects")

    page.locator("#subject-filter").press_sequentially("PAGE-vi", delay=30)  # filtered as you type
    expect(page.locator("#subject-table tbody tr")).to_have_count(1)
    # The filter is in the address (as the script writes it, or as the form submits it with its empty
    # level, mode and sort).
    query = parse_qs(urlsplit(page.url).query)
    assert urlsplit(page.url).path == "/ui/" and query["q"] == ["PAGE-vi"] and query["match"] == ["contains"]

    page.get_by_role("link", name=SUBJECT).click()
    expect(page.locator("h1")).to_have_text(SUBJECT)
    expect(page.locator("#versions tbody tr")).to_have_count(3)
    expect(page.locator("#field-tree")).to_contain_text("long (timestamp-millis)")
    expect(page.locator("#field-tree tbody tr", has_text="country")).to_contain_text('"unknown"')
    page.locator(".tree-filter").fill("user")  # the tree's own filter (JavaScript)
    assert table_texts(page, "#field-tree tbody tr:not(.hidden-by-filter) td.name") == ["user", "name", "age"]
    page.locator(".tree-filter").fill("")
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    watched.shot("subject")

    page.locator("#versions tbody tr").nth(2).get_by_role("link", name="diff with previous").click()
    expect(page.locator("#verdict h2")).to_have_text("Compatible under BACKWARD")
    assert table_texts(page, "#changes tbody tr") == [
        'field added PageView.country string, default "unknown"'
    ]
    page.locator("select[name=old]").select_option("1")
    page.get_by_role("button", name="Compare").click()
    expect(page.locator("#changes")).to_contain_text("PageView.user.age")
    expect(page.locator("#text-diff .removed").first).to_be_visible()
    watched.shot("diff")

    page.get_by_role("link", name=SUBJECT).click()
    page.locator("#shown-version h2").get_by_role("link").first.click()
    expect(page.locator("h1")).to_contain_text("Schema id 3")
    expect(page.locator("ul.refs").first).to_contain_text(f"{SUBJECT} v3")
    watched.shot("schema")

    page.goto(server.url + "/ui/subjects/orders-value")  # a Protobuf subject: its type's field tree
    expect(page.locator("#field-tree tbody tr", has_text="total_cents")).to_contain_text("int64")
    expect(page.locator("#field-tree tbody tr", has_text="customer").first).to_contain_text("Customer")
    expect(page.locator("#shown-version ul.refs")).to_contain_text("customer.proto")
    expect(page.locator("#download")).to_have_text("Download version 1 as .proto")
    watched.shot("protobuf-subject")
    assert watched.problems == [] and watched.dialogs == []


def registry_check(
    workdir: Path, schema: dict[str, Any], registry_url: str
) -> subprocess.CompletedProcess[str]:
    """``registry check`` itself on ``page-views.avsc`` (subject page-views-value) against the server."""
    (workdir / "page-views.avsc").write_text(text(schema), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "registry.cli", "check", "page-views.avsc", "--registry-url", registry_url],
        cwd=workdir,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_failing_and_a_passing_check_read_exactly_as_registry_check(
    watched: Watched, server: RegistryProcess, tmp_path: Path
) -> None:
    page = watched.page
    failing = registry_check(tmp_path, incompatible_with_latest(), server.url)
    assert failing.returncode == 1, failing.stderr
    page.goto(server.url + f"/ui/check?subject={SUBJECT}")
    expect(page.locator("textarea[name=schema]")).to_have_value(text(page_view(3)))  # the latest, to start
    page.locator("textarea[name=schema]").fill("")
    page.locator("input[name=schema_file]").set_input_files(str(tmp_path / "page-views.avsc"))
    page.get_by_role("button", name="Check").click()
    expect(page.locator("#verdict h2")).to_contain_text("Incompatible: page-views.avsc for")
    assert page.locator("#check-report").inner_text() == failing.stdout.rstrip("\n")
    assert table_texts(page, "#check-findings tbody tr td:nth-child(2)") == [
        "TYPE_MISMATCH",
        "READER_FIELD_MISSING_DEFAULT_VALUE",
    ]
    watched.shot("check-failing")

    candidate = page_view(3)
    candidate["fields"].append({"name": "campaign", "type": ["null", "string"], "default": None})
    passing = registry_check(tmp_path, candidate, server.url)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    page.locator("textarea[name=schema]").fill(text(candidate))  # the upload came back in the text box
    page.get_by_role("button", name="Check").click()
    expect(page.locator("#verdict h2")).to_contain_text("Passes: candidate.avsc for")
    report = page.locator("#check-report").inner_text()
    assert report == passing.stdout.rstrip("\n").replace("page-views.avsc", "candidate.avsc")
    watched.shot("check-passing")

    versions = requests.get(f"{server.url}/subjects/{SUBJECT}/versions", timeout=10).json()
    assert versions == [1, 2, 3], "checking registers nothing"
    assert watched.problems == []


def test_markup_in_names_and_docs_stays_text_and_inline_script_is_refused(
    watched: Watched, server: RegistryProcess
) -> None:
    page = watched.page
    page.goto(server.url + "/ui/?q=pwned")
    link = page.locator("#subject-table a")
    expect(link).to_have_text(HOSTILE_SUBJECT)
    link.click()
    expect(page.locator("h1")).to_have_text(HOSTILE_SUBJECT)
    expect(page.locator("#field-tree tbody tr", has_text="id").first).to_contain_text(HOSTILE_DOC)
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.locator("#field-tree img").count() == 0
    watched.shot("escaping")

    with pytest.raises(Exception, match=r"Content Security Policy|script"):
        page.add_script_tag(content="window.inlineRan = true")
    assert page.evaluate("typeof window.inlineRan") == "undefined"
    assert any("Content Security Policy" in problem for problem in watched.problems)
    assert watched.dialogs == []


def test_every_page_works_with_javascript_off(
    browser: Browser, server: RegistryProcess, tmp_path: Path
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    try:
        watched = Watched(context, tmp_path)
        page = watched.page
        page.goto(server.url + "/ui/")
        page.locator("#subject-filter").fill("topic-0")
        page.get_by_role("button", name="Search").click()
        expect(page.locator(".count")).to_have_text("60 subjects matching “topic-0”, page 1 of 2")
        page.get_by_role("link", name="next →").click()
        expect(page.locator("#subject-table tbody tr")).to_have_count(10)
        watched.shot("nojs-subjects")

        page.goto(server.url + f"/ui/subjects/{SUBJECT}")
        expect(page.locator("#field-tree")).to_be_visible()
        expect(page.locator("button.copy")).to_be_hidden()
        expect(page.locator(".tree-tools")).to_be_hidden()
        page.get_by_role("link", name="Compare versions").click()
        page.locator("select[name=old]").select_option("1")
        page.locator("select[name=new]").select_option("2")
        page.get_by_role("button", name="Compare").click()
        expect(page.locator("#changes")).to_contain_text("PageView.referrer")
        watched.shot("nojs-diff")

        page.get_by_role("link", name="Check a schema").click()
        page.locator("input[name=subject]").fill(SUBJECT)
        page.locator("textarea[name=schema]").fill(text(incompatible_with_latest()))
        page.get_by_role("button", name="Check").click()
        expect(page.locator("#verdict h2")).to_contain_text("Incompatible")
        watched.shot("nojs-check")
        assert watched.problems == []
    finally:
        context.close()


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RegistryProcess]:
    """``registry serve --auth`` with an admin and a reader made by ``registry users add``."""
    workdir = tmp_path_factory.mktemp("ui-auth")
    url = f"sqlite:///{workdir / 'registry.db'}"
    cli = [sys.executable, "-m", "registry.cli"]
    subprocess.run([*cli, "db", "upgrade", "--database-url", url], check=True, capture_output=True)
    for name, role in (("admin", "admin"), ("reader", "read")):
        subprocess.run(
            [*cli, "users", "add", name, "--role", role, "--password-stdin", "--database-url", url],
            input=PASSWORD + "\n", check=True, capture_output=True, text=True,
        )  # fmt: skip
    started = start_registry(url, workdir, extra_args=["--auth"])
    try:
        post(started.url, SUBJECT, page_view(1), auth=("admin", PASSWORD))
        yield started
    finally:
        started.stop()


def test_the_page_asks_for_credentials_like_the_api(
    browser: Browser, auth_server: RegistryProcess, tmp_path: Path
) -> None:
    anonymous = browser.new_context()
    try:
        page = anonymous.new_page()
        challenges: list[tuple[str, int, str]] = []
        page.on("response", lambda r: challenges.append((r.url, r.status, r.headers["www-authenticate"])))
        for path in (f"/ui/subjects/{SUBJECT}", "/ui/subjects/no-such-value"):
            # A person's browser shows its login prompt here; headless Chromium has none to show and
            # gives up on the navigation instead, after the same challenge.
            with pytest.raises(Exception, match="ERR_INVALID_AUTH_CREDENTIALS"):
                page.goto(auth_server.url + path)
        assert [(status, header) for _, status, header in challenges] == [
            (401, 'Basic realm="schema-registry", charset="UTF-8"')
        ] * 2, "an existing and a missing subject get the same challenge"
    finally:
        anonymous.close()

    wrong = browser.new_context(http_credentials={"username": "reader", "password": "not it"})
    try:
        answer = wrong.new_page().goto(auth_server.url + "/ui/")
        assert answer is not None and answer.status == 401
    finally:
        wrong.close()

    reader = browser.new_context(
        http_credentials={"username": "reader", "password": PASSWORD}, viewport={"width": 1280, "height": 900}
    )
    try:
        watched = Watched(reader, tmp_path)
        answer = watched.page.goto(auth_server.url + "/ui/")
        assert answer is not None and answer.status == 200
        expect(watched.page.locator(".user")).to_have_text("signed in as reader")
        watched.page.get_by_role("link", name=SUBJECT).click()
        expect(watched.page.locator("#field-tree")).to_contain_text("timestamp-millis")
        watched.shot("signed-in")
        assert watched.problems == []
    finally:
        reader.close()
