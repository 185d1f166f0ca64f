"""The page in Chromium at a phone's 360 px and a wide 1,400 px, light and dark, against a real
``registry serve`` holding references, data contracts and soft deletes; and the issue's flows end to end:
the check with references, search, admin actions, downloads.

Screenshots of every page visited are kept under ``.cache/ui-screenshots/`` (git-ignored), one folder per
width and colour scheme; the run's summary names the folder.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import requests
from playwright.sync_api import Browser, Page, expect

from tests.fixtures.registry_server import RegistryProcess, start_registry
from tests.registry.ui.conftest import SCREENSHOTS, Watched
from tests.registry.ui.helpers import CT, SUBJECT, page_view

pytestmark = pytest.mark.integration

SHOTS = SCREENSHOTS
LONG = "com.example.a-very-long-team-name.and-an-even-longer-topic-name-for-orders-events-value"
# Names without a dot or a dash to break at: 64 and 200 characters of camel case (after SUBJECT by name).
CAMEL = "shipmentLifecycleEventsEmittedByCheckoutForTheWarehouseIngestion"
CAMEL_LONG = ("veryLongCamelCaseSubjectNameWithoutAnyDotsOrDashes" * 4)[:200]
ADDRESS = {"type": "record", "name": "Address", "namespace": "com.example.common",
           "fields": [{"name": "street", "type": "string"}, {"name": "city", "type": "string"}]}  # fmt: skip
ADDRESS_REF = {"name": "com.example.common.Address", "subject": "common-address", "version": 1}
CHECKSUM = {"name": "checksum", "kind": "CONDITION", "mode": "WRITE", "type": "CEL",
            "expr": "size(message.card_last4) == 4", "tags": ["PCI"], "onFailure": "DLQ"}  # fmt: skip


def customer(email: str = "string") -> dict[str, Any]:
    return {"type": "record", "name": "Customer", "namespace": "com.example", "fields": [
        {"name": "id", "type": "long"}, {"name": "email", "type": email},
        {"name": "address", "type": "com.example.common.Address"}]}  # fmt: skip


def card(extra: bool = False) -> dict[str, Any]:
    fields: list[dict[str, Any]] = [
        {"name": "id", "type": "long", "doc": "The payment's id."},
        {"name": "card_last4", "type": "string", "doc": "Last four digits, never the number."},
    ]
    if extra:
        fields.append({"name": "issuer", "type": ["null", "string"], "default": None})
    return {"type": "record", "name": "CardPayment", "namespace": "com.acme.billing", "fields": fields}


def post(url: str, subject: str, schema: dict[str, Any], **extra: Any) -> int:
    body = {"schema": json.dumps(schema), **extra}
    answer = requests.post(f"{url}/subjects/{quote(subject, safe='')}/versions", data=json.dumps(body),
                           headers=CT, timeout=10)  # fmt: skip
    assert answer.status_code == 200, answer.text
    return int(answer.json()["id"])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RegistryProcess]:
    workdir = tmp_path_factory.mktemp("ui-layout")
    started = start_registry(f"sqlite:///{workdir / 'registry.db'}", workdir)
    url = started.url
    try:
        for version in (1, 2, 3):
            post(url, SUBJECT, page_view(version))
        for n in range(12):
            post(
                url,
                f"topic-{n:03d}-value",
                {"type": "record", "name": f"T{n}", "fields": [{"name": "id", "type": "long"}]},
            )
        post(url, LONG, page_view(1))
        for name in (CAMEL, CAMEL_LONG):
            post(url, name, page_view(1))
            post(url, name, page_view(2))
        post(url, "common-address", ADDRESS)
        post(url, "customers-value", customer(), references=[ADDRESS_REF])
        meta = {"properties": {"owner": "payments"}}
        post(url, "payments-value", card(), metadata=meta, ruleSet={"domainRules": [CHECKSUM]})
        upgrade = {
            **CHECKSUM,
            "name": "up",
            "mode": "UPGRADE",
            "kind": "TRANSFORM",
            "type": "JSONATA",
            "expr": "$",
        }
        tagged = {**meta, "tags": {"CardPayment.card_last4": ["PII"]}}
        rules = {"domainRules": [CHECKSUM], "migrationRules": [upgrade]}
        post(url, "payments-value", card(True), metadata=tagged, ruleSet=rules)
        config = {
            "compatibility": "FULL",
            "compatibilityGroup": "major",
            "defaultMetadata": {"properties": {"major": "1"}},
        }
        answer = requests.put(f"{url}/config/payments-value", data=json.dumps(config), headers=CT, timeout=10)
        answer.raise_for_status()
        requests.put(
            f"{url}/mode/topic-000-value", data=json.dumps({"mode": "READONLY"}), headers=CT, timeout=10
        )
        requests.delete(f"{url}/subjects/{SUBJECT}/versions/2", timeout=10).raise_for_status()
        yield started
    finally:
        started.stop()


def pages(url: str) -> list[tuple[str, str]]:
    return [
        ("subjects", "/ui/"),
        ("search", "/ui/?q=card_last4"),
        ("subject", f"/ui/subjects/{SUBJECT}"),
        ("subject-contracts", "/ui/subjects/payments-value"),
        ("subject-long-name", f"/ui/subjects/{quote(LONG, safe='')}"),
        ("subject-referenced", "/ui/subjects/common-address"),
        ("diff", f"/ui/subjects/{SUBJECT}/diff?old=1&new=3"),
        ("diff-contracts", "/ui/subjects/payments-value/diff"),
        ("check", "/ui/check?subject=customers-value"),
        ("schema", "/ui/schemas/6"),
        ("confirm-delete", f"/ui/subjects/{SUBJECT}/versions/3/delete"),
        ("confirm-delete-subject", f"/ui/subjects/{SUBJECT}/delete"),
        *(
            (f"{kind}-{len(name)}-characters", path.format(name))
            for name in (CAMEL, CAMEL_LONG)
            for kind, path in (
                ("subject", "/ui/subjects/{}"),
                ("diff", "/ui/subjects/{}/diff?old=1&new=2"),
                ("confirm-delete", "/ui/subjects/{}/versions/2/delete"),
                ("check", "/ui/check?subject={}"),
            )
        ),
    ]


ONE_LINE_CELLS = """
    [...document.querySelectorAll(SELECTOR)].filter(cell => {
        const text = cell.textContent.trim();
        if (!text || /\\s/.test(text)) return false;  // a word alone in its cell
        const range = document.createRange();
        range.selectNodeContents(cell);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        return lines.size > 1;
    }).map(cell => cell.textContent.trim())
"""


@pytest.mark.parametrize("width", [360, 1280])
def test_rule_tables_keep_each_word_whole_and_the_check_s_reference_inputs_their_text(
    browser: Browser, server: RegistryProcess, width: int
) -> None:
    """A rule table's one-word cells (TRANSFORM, UPGRADE, CONDITION) are never broken inside the word;
    the check form's reference inputs are as wide as what they hold."""
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        page = context.new_page()
        page.goto(server.url + "/ui/subjects/payments-value")
        broken = page.evaluate(f"() => {ONE_LINE_CELLS.replace('SELECTOR', repr('table.rules td'))}")
        assert broken == [], f"words broken over lines at {width} px"
        page.goto(server.url + "/ui/check?subject=customers-value")
        widths = page.evaluate(
            "[...document.querySelectorAll('#reference-rows input')].filter(i => i.value)"
            ".map(i => [i.value, i.scrollWidth, i.clientWidth])"
        )
        assert widths and all(scroll <= client for _, scroll, client in widths), widths
    finally:
        context.close()


@pytest.mark.parametrize(
    ("width", "scheme"), [(360, "light"), (360, "dark"), (1400, "light"), (1400, "dark")]
)
def test_every_page_fits_the_width_without_sideways_scrolling(
    browser: Browser, server: RegistryProcess, width: int, scheme: str
) -> None:
    shots = SHOTS / f"{width}px-{scheme}"
    shots.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme)  # type: ignore[arg-type]
    try:
        watched = Watched(context, shots)
        page = watched.page
        wide = []
        for name, path in pages(server.url):
            page.goto(server.url + path)
            if name == "check":
                page.locator("textarea[name=schema]").fill(json.dumps(customer("int"), indent=2))
                page.get_by_role("button", name="Check").click()
                expect(page.locator("#verdict h2")).to_contain_text("Incompatible")
            scroll = page.evaluate("document.documentElement.scrollWidth")
            if scroll > width:
                wide.append((name, scroll))
            watched.shot(name)
        assert wide == [], f"pages wider than {width} px"
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == ("rgb(15, 20, 32)" if scheme == "dark" else "rgb(247, 248, 250)")
        assert watched.problems == []
    finally:
        context.close()


def test_at_360_px_lists_are_cards_and_levels_stay_on_one_line(
    browser: Browser, server: RegistryProcess
) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 800})
    try:
        page = context.new_page()
        page.goto(server.url + "/ui/?mode=READONLY")
        cell = page.locator("#subject-table tbody tr").first.locator("td[data-label=Mode]")
        expect(cell).to_contain_text("READONLY")
        line = page.evaluate("parseFloat(getComputedStyle(document.body).lineHeight)")
        assert cell.bounding_box()["height"] < 2 * line, "READONLY on one line"  # type: ignore[index]
        page.goto(server.url + f"/ui/subjects/{SUBJECT}")
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height < 4000, f"a three-version subject page is {height} px tall at 360 px"
    finally:
        context.close()


def test_the_check_with_references_answers_what_the_api_answers(
    watched: Watched, server: RegistryProcess
) -> None:
    page = watched.page
    page.goto(server.url + "/ui/check?subject=customers-value")
    expect(page.locator("input[name=ref_name]").first).to_have_value("com.example.common.Address")
    expect(page.locator("input[name=ref_subject]").first).to_have_value("common-address")
    lines = len(json.dumps(customer(), indent=2).splitlines())
    expect(page.locator("#schema-gutter")).to_have_text("\n".join(str(n) for n in range(1, lines + 1)))
    for email, verdict in (("int", False), ("string", True)):
        page.locator("textarea[name=schema]").fill(json.dumps(customer(email), indent=2))
        page.get_by_role("button", name="Check").click()
        heading = page.locator("#verdict h2")
        expect(heading).to_contain_text("Passes" if verdict else "Incompatible")
        body = {"schema": json.dumps(customer(email)), "references": [ADDRESS_REF]}
        api = requests.post(f"{server.url}/compatibility/subjects/customers-value/versions",
                            data=json.dumps(body), headers=CT, timeout=10).json()  # fmt: skip
        assert api == {"is_compatible": verdict}
    page.locator("input[name=ref_name]").first.fill("")
    page.locator("input[name=ref_subject]").first.fill("")
    page.locator("input[name=ref_version]").first.fill("")
    page.get_by_role("button", name="Check").click()
    expect(page.locator("#verdict h2")).to_contain_text("Invalid")
    page.locator("#check-findings a").first.click()
    assert re.search(r"#line-\d+$", page.url)
    watched.shot("check-without-reference")
    assert watched.problems == []


def test_search_filters_sort_used_by_and_download(
    watched: Watched, server: RegistryProcess, tmp_path: Path
) -> None:
    page = watched.page
    page.goto(server.url + "/ui/")
    page.locator("#subject-filter").press_sequentially("card_las", delay=20)
    expect(page.locator("#subject-table tbody tr")).to_have_count(1)
    expect(page.locator("#subject-table .hits")).to_contain_text("field CardPayment.card_last4")
    page.locator("#subject-filter").fill("")
    page.locator("#level-filter").select_option("FULL")
    expect(page.locator("#subject-table tbody tr")).to_have_count(1)
    expect(page.locator("#subject-table")).to_contain_text("payments-value")
    page.locator("#level-filter").select_option("")
    page.locator("#sort").select_option("versions")
    expect(page.locator("#subject-table tbody tr").first).to_contain_text(SUBJECT)

    page.goto(server.url + "/ui/subjects/payments-value")
    expect(page.locator("#versions tbody tr").nth(1)).to_contain_text("+1 field (issuer)")
    expect(page.locator("#field-tree tr", has_text="card_last4").locator(".badge.tag")).to_have_text("PII")
    expect(page.locator("#config-table")).to_contain_text("compatibilityGroup")
    expect(page.locator("#contract-rules tbody tr")).to_have_count(2)
    with page.expect_download() as download:
        page.locator("#download").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == "payments-value-v2.avsc" and json.loads(saved.read_text()) == card(True)

    page.goto(server.url + "/ui/subjects/common-address")
    expect(page.locator("#used-by-table tbody tr")).to_have_text(re.compile(r"customers-value v1\s+\d+\s+1"))
    page.locator("#used-by-table a", has_text="customers-value v1").click()
    page.locator("#shown-version h2").get_by_role("link").first.click()
    expect(page.locator("ul.refs a", has_text="common-address v1")).to_have_attribute(
        "href", "/ui/subjects/common-address?version=1"
    )
    watched.shot("schema-references")
    assert watched.problems == []


# A field without a default added: old records cannot be read with it (BACKWARD refuses it).
REQUIRED_FIELD_ADDED = {
    **page_view(3),
    "fields": [*page_view(3)["fields"], {"name": "region", "type": "string"}],
}


def test_a_file_chosen_on_the_check_form_as_it_opens_is_checked(
    watched: Watched, server: RegistryProcess, tmp_path: Path
) -> None:
    """The form opens filled with the subject's latest version; a file chosen without clearing it is the
    candidate, and so is the next file chosen after that check."""
    page = watched.page
    page.goto(server.url + f"/ui/check?subject={SUBJECT}")
    expect(page.locator("textarea[name=schema]")).not_to_have_value("")
    for name, schema, verdict in (
        ("page-views-v4.avsc", REQUIRED_FIELD_ADDED, "Incompatible"),
        ("page-views-v3.avsc", page_view(3), "Passes"),
    ):
        chosen = tmp_path / name
        chosen.write_text(json.dumps(schema, indent=2))
        page.locator("input[name=schema_file]").set_input_files(str(chosen))
        page.get_by_role("button", name="Check").click()
        expect(page.locator("#verdict h2")).to_contain_text(verdict)
        expect(page.locator("[role=alert]")).to_have_count(0)
    watched.shot("check-uploads")
    assert watched.problems == []


def test_an_admin_changes_the_level_and_deletes_a_version_in_two_steps(
    browser: Browser, tmp_path: Path
) -> None:
    started = start_registry(f"sqlite:///{tmp_path / 'admin.db'}", tmp_path)
    try:
        for version in (1, 2, 3):
            post(started.url, SUBJECT, page_view(version))
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        watched = Watched(context, tmp_path)
        page: Page = watched.page
        page.goto(started.url + f"/ui/subjects/{SUBJECT}")
        page.locator("#settings-form select[name=compatibility]").select_option("FORWARD")
        page.get_by_role("button", name="Save level and mode").click()
        expect(page.locator("#notice")).to_have_text(
            f"Changed {SUBJECT}: compatibility level BACKWARD -> FORWARD."
        )
        page.locator("#versions tbody tr").nth(2).get_by_role("link", name="soft-delete…").click()
        expect(page.locator("h1")).to_contain_text("Soft-delete version 3 of")
        page.get_by_role("button", name="Soft-delete version 3").click()
        expect(page.locator("#notice")).to_have_text(f"Version 3 of {SUBJECT} soft-deleted.")
        page.locator("#versions tbody tr").nth(2).get_by_role("link", name="delete permanently…").click()
        page.get_by_role("button", name="Delete version 3 permanently").click()
        expect(page.locator("#notice")).to_have_text(f"Version 3 of {SUBJECT} permanently deleted.")
        page.reload()
        expect(page.locator("#notice")).to_have_count(0)
        watched.shot("admin-after-delete")
        versions = requests.get(f"{started.url}/subjects/{SUBJECT}/versions?deleted=true", timeout=10).json()
        assert versions == [1, 2]
        # Back to the global level, which the list of subjects shows.
        page.locator("#settings-form select[name=compatibility]").select_option(label="the global level")
        page.get_by_role("button", name="Save level and mode").click()
        expect(page.locator("#notice")).to_have_text(
            f"Changed {SUBJECT}: compatibility level FORWARD -> the global level."
        )
        expect(page.locator("dl")).to_contain_text("BACKWARD (the global level)")
        page.goto(started.url + "/ui/")
        expect(page.locator("#global-settings")).to_contain_text("compatibility BACKWARD, mode READWRITE")
        # The whole subject: soft, then permanently, each confirmed.
        page.goto(started.url + f"/ui/subjects/{SUBJECT}")
        for step, button in (("soft-deleted", "Soft-delete the subject"), ("permanently deleted", None)):
            page.get_by_role("link", name="delete the subject…").click()
            page.get_by_role("button", name=button or "Delete the subject permanently").click()
            expect(page.locator("#notice")).to_have_text(f"Subject {SUBJECT} {step} (versions 1, 2).")
            if step == "soft-deleted":
                page.goto(started.url + f"/ui/subjects/{SUBJECT}")
        assert requests.get(f"{started.url}/subjects?deleted=true", timeout=10).json() == []
        forged = requests.post(
            f"{started.url}/ui/subjects/{SUBJECT}/settings", data={"mode": "READONLY"}, timeout=10
        )
        assert forged.status_code == 403
        assert watched.problems == []
        context.close()
    finally:
        started.stop()
    log = started.output()
    assert f"page admin action: subject '{SUBJECT}' compatibility level BACKWARD -> FORWARD" in log
    assert f"page admin action: subject '{SUBJECT}' version 3 permanently deleted" in log
    assert f"page admin action: subject '{SUBJECT}' permanently deleted (versions [1, 2])" in log
    assert "page admin action refused: no valid CSRF token" in log
