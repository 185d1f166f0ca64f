"""The page's HTML in-process: what each page shows, how bad input is answered, and what it never does."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from flask.testing import FlaskClient

from tests.registry.ui.helpers import (
    HOSTILE_DOC,
    HOSTILE_SUBJECT,
    SUBJECT,
    Markup,
    api,
    api_path,
    incompatible_with_latest,
    page_view,
    register,
    text,
)


def html(client: FlaskClient, path: str, status: int = 200, **kwargs: object) -> str:
    answer = client.get(path, **kwargs)  # type: ignore[arg-type]
    assert answer.status_code == status, answer.get_data(as_text=True)[:2000]
    assert answer.mimetype == "text/html"
    return answer.get_data(as_text=True)


def rows(page: str, table_id: str) -> list[list[str]]:
    """The cells of a table's body rows, as plain text."""
    table = page.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    body = table.split("<tbody>", 1)[1]
    found = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        found.append([unescape(" ".join(re.sub(r"<[^>]+>", " ", cell).split())) for cell in cells])
    return found


@pytest.fixture
def three_versions(client: FlaskClient) -> list[int]:
    return [register(client, SUBJECT, page_view(version)) for version in (1, 2, 3)]


# -- the subject list ---------------------------------------------------------------------------------
def test_the_list_shows_each_subject_with_its_latest_version_level_mode_and_last_registration(
    client: FlaskClient, three_versions: list[int]
) -> None:
    register(client, "orders-value", page_view(1))
    api(client, "PUT", "/config/orders-value", {"compatibility": "FULL"})
    api(client, "PUT", "/mode/orders-value", {"mode": "READONLY"})
    table = rows(html(client, "/ui/"), "subject-table")
    assert [row[:5] for row in table] == [
        ["orders-value", "1", "1", "FULL", "READONLY"],
        [SUBJECT, "3", "3", "BACKWARD (global)", "READWRITE (global)"],
    ]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", row[5]) for row in table)


def test_search_by_substring_or_prefix_ignores_case_and_takes_wildcards_literally(
    client: FlaskClient,
) -> None:
    for name in ("Orders-value", "team.orders-key", "payments-value", "a%b_c-value"):
        register(client, name, page_view(1))

    def listed(query: str) -> list[str]:
        return [row[0] for row in rows(html(client, "/ui/?" + query), "subject-table")]

    assert listed("q=ORDERS") == ["Orders-value", "team.orders-key"]
    assert listed("q=orders&match=prefix") == ["Orders-value"]
    assert listed("q=%25b_") == ["a%b_c-value"]
    assert "No subject matches “nothing-like-it”" in html(client, "/ui/?q=nothing-like-it")


def test_soft_deleted_subjects_show_only_behind_the_toggle(client: FlaskClient) -> None:
    register(client, "kept-value", page_view(1))
    register(client, "gone-value", page_view(1))
    api(client, "DELETE", "/subjects/gone-value")
    assert [row[0] for row in rows(html(client, "/ui/"), "subject-table")] == ["kept-value"]
    shown = rows(html(client, "/ui/?deleted=on"), "subject-table")
    assert [row[0] for row in shown] == ["gone-value soft-deleted", "kept-value"]
    assert shown[0][2] == "0", "no live version left"


def test_the_list_pages_through_many_subjects(client: FlaskClient) -> None:
    for n in range(120):
        register(client, f"topic-{n:03d}-value", page_view(1))
    first = html(client, "/ui/")
    assert "120 subjects, page 1 of 3" in first
    assert len(rows(first, "subject-table")) == 50
    assert 'href="/ui/?page=2"' in first and 'rel="prev"' not in first
    last = html(client, "/ui/?page=3")
    assert [row[0] for row in rows(last, "subject-table")] == [f"topic-{n}-value" for n in range(100, 120)]
    assert 'rel="next"' not in last
    filtered = html(client, "/ui/?q=TOPIC-0&match=prefix")
    assert "100 subjects matching “TOPIC-0”, page 1 of 2" in filtered
    assert 'href="/ui/?page=2&amp;q=TOPIC-0&amp;match=prefix"' in filtered, "the next page keeps the filter"
    beyond = html(client, "/ui/?page=9")  # past the end: the last page, with its rows
    assert "120 subjects, page 3 of 3" in beyond and "No subject" not in beyond
    assert rows(beyond, "subject-table") == rows(html(client, "/ui/?page=3"), "subject-table")


@pytest.mark.parametrize("page", ["0", "-1", "two", ""])
def test_a_page_number_that_is_not_one_or_more_is_refused_on_a_page(client: FlaskClient, page: str) -> None:
    body = html(client, f"/ui/?page={page}", status=400)
    assert "page" in body and 'role="alert"' in body


# -- a subject ----------------------------------------------------------------------------------------
def test_a_subject_lists_every_version_with_its_id_date_and_state(
    client: FlaskClient, three_versions: list[int]
) -> None:
    api(client, "DELETE", f"/subjects/{SUBJECT}/versions/2")
    versions = rows(html(client, f"/ui/subjects/{SUBJECT}"), "versions")
    assert [row[:2] + row[3:] for row in versions] == [
        ["1", str(three_versions[0]), "live", "first version", "soft-delete…"],
        [
            "2",
            str(three_versions[1]),
            "soft-deleted",
            "+1 field (referrer), 1 type changed, 1 doc changed",
            "diff with previous delete permanently…",
        ],
        ["3", str(three_versions[2]), "live", "+1 field (country)", "diff with previous soft-delete…"],
    ]


def test_a_version_is_a_field_tree_with_types_defaults_docs_and_logical_types(
    client: FlaskClient, three_versions: list[int]
) -> None:
    page = html(client, f"/ui/subjects/{SUBJECT}?version=2")
    tree = rows(page, "field-tree")
    assert tree[0] == ["PageView", "record com.example.PageView", "", ""]
    assert ["id", "long", "", "Unique id of the view."] in tree
    assert ["viewed_at", "long (timestamp-millis)", "", ""] in tree
    assert ["age", "long", "0", ""] in tree
    assert ["referrer", "null | string", "null", "Came from."] in tree
    assert "country" not in [row[0] for row in tree], "version 2 has no country yet"
    assert 'class="depth-2"' in page, "user's fields sit one level below user"
    latest = rows(html(client, f"/ui/subjects/{SUBJECT}"), "field-tree")
    assert ["country", "string", '"unknown"', ""] in latest, "the newest version by default"


def test_references_and_referenced_by_are_links(client: FlaskClient) -> None:
    user = {
        "type": "record",
        "name": "User",
        "namespace": "com.example",
        "fields": [{"name": "n", "type": "string"}],
    }
    register(client, "user-value", user)
    view = {"type": "record", "name": "View", "fields": [{"name": "user", "type": "com.example.User"}]}
    view_id = register(
        client, "views-value", view, references=[{"name": "user", "subject": "user-value", "version": 1}]
    )
    referencing = html(client, "/ui/subjects/views-value")
    assert '<a href="/ui/subjects/user-value?version=1">user-value v1</a>' in referencing
    referenced = html(client, "/ui/subjects/user-value")
    link = '<a href="/ui/subjects/views-value?version=1">views-value v1</a>'
    assert f'{link} (schema id <a href="/ui/schemas/{view_id}">' in referenced


def test_a_version_shows_its_data_contract_as_text(client: FlaskClient) -> None:
    rule = {
        "name": "hasUrl",
        "kind": "CONDITION",
        "mode": "WRITE",
        "type": "CEL",
        "expr": "size(message.url) > 0",
    }
    metadata = {"properties": {"owner": "<b>web</b>"}, "tags": {"PageView.url": ["PII"]}}
    schema_id = register(client, SUBJECT, page_view(1), metadata=metadata, ruleSet={"domainRules": [rule]})
    register(client, SUBJECT, page_view(2))  # carries the contract forward
    for path in (f"/ui/subjects/{SUBJECT}?version=2", f"/ui/schemas/{schema_id}"):
        page = html(client, path)
        shown = {
            match[0]: json.loads(unescape(match[1]))
            for match in re.findall(
                r"<h3>(Metadata|Rule set) .*?<pre id=\"contract-\d\">(.*?)</pre>", page, re.S
            )
        }
        assert shown == {
            "Metadata": {"properties": {"owner": "<b>web</b>"}, "tags": {"PageView.url": ["PII"]}},
            "Rule set": {"domainRules": [{**rule, "disabled": False}]},
        }
        assert "<b>web</b>" not in page, "markup in metadata is shown as text"
    register(client, "plain-value", page_view(1))
    assert 'id="contract-1"' not in html(client, "/ui/subjects/plain-value"), "no contract, no block"


def test_subject_names_with_slashes_and_spaces_round_trip_through_links(client: FlaskClient) -> None:
    name = "team a/orders?-value"
    register(client, name, page_view(1))
    link = f"/ui/subjects/{api_path(name)}"
    assert f'href="{link}"' in html(client, "/ui/")
    assert f'<h1 class="subject-name">{name}</h1>' in html(client, link)


@pytest.mark.parametrize(
    ("path", "status", "message"),
    [
        ("/ui/subjects/missing-value", 404, "Subject &#39;missing-value&#39; not found."),
        (f"/ui/subjects/{SUBJECT}?version=9", 404, "Version 9 not found"),
        (f"/ui/subjects/{SUBJECT}?version=x", 422, "is not a valid version id"),
        ("/ui/schemas/999", 404, "Schema 999 not found"),
        ("/ui/schemas/abc", 404, "Schema abc not found"),
        ("/ui/no/such/page", 404, "There is no page here."),
    ],
)
def test_errors_are_pages_with_the_registry_s_message(
    client: FlaskClient, three_versions: list[int], path: str, status: int, message: str
) -> None:
    body = html(client, path, status=status)
    assert message in body and 'role="alert"' in body


# -- diffs --------------------------------------------------------------------------------------------
def test_the_diff_compares_the_newest_version_with_the_one_before_by_default(
    client: FlaskClient, three_versions: list[int]
) -> None:
    page = html(client, f"/ui/subjects/{SUBJECT}/diff")
    assert rows(page, "changes") == [["field added", "PageView.country", "", 'string, default "unknown"']]
    assert "Compatible under BACKWARD" in page
    assert (
        '<span class="added">+      &#34;default&#34;: &#34;unknown&#34;,</span>' in page or "unknown" in page
    )


def test_the_diff_between_any_two_versions_finds_changes_at_any_depth(
    client: FlaskClient, three_versions: list[int]
) -> None:
    page = html(client, f"/ui/subjects/{SUBJECT}/diff?old=1&new=3")
    assert rows(page, "changes") == [
        ["doc changed", "PageView.url", "The page's address.", "The full URL."],
        ["type changed", "PageView.user.age", "int", "long"],
        ["field added", "PageView.referrer", "", "null | string, default null"],
        ["field added", "PageView.country", "", 'string, default "unknown"'],
    ]
    assert re.search(r'<span class="removed">-\s+&#34;type&#34;: &#34;int&#34;', page)
    assert re.search(r'<span class="added">\+\s+&#34;type&#34;: &#34;long&#34;', page)
    reversed_page = html(client, f"/ui/subjects/{SUBJECT}/diff?old=3&new=1")
    assert "Incompatible under BACKWARD" in reversed_page
    assert "READER_FIELD_MISSING_DEFAULT_VALUE" not in reversed_page, "removing defaulted fields is fine"
    assert "TYPE_MISMATCH" in reversed_page and "PageView.user.age" in reversed_page


def test_an_incompatible_version_shows_the_rule_the_field_and_the_fix(client: FlaskClient) -> None:
    register(client, SUBJECT, page_view(3))
    api(client, "PUT", f"/config/{SUBJECT}", {"compatibility": "NONE"})
    register(client, SUBJECT, incompatible_with_latest())
    none_page = html(client, f"/ui/subjects/{SUBJECT}/diff")
    assert "Not checked: the subject's compatibility level is NONE" in none_page
    assert "Version 2 cannot read data written with version 1 (backward)" in none_page
    api(client, "PUT", f"/config/{SUBJECT}", {"compatibility": "FULL_TRANSITIVE"})
    page = html(client, f"/ui/subjects/{SUBJECT}/diff")
    assert "Incompatible under FULL_TRANSITIVE" in page
    assert "Version 2 cannot read data written with version 1 (backward)" in page
    assert "READER_FIELD_MISSING_DEFAULT_VALUE" in page and "PageView.session" in page
    assert "add &#34;default&#34;: null and make the type [&#34;null&#34;, &#34;string&#34;]" in page


def test_a_diff_that_cannot_be_made_says_why_and_offers_the_choice_again(
    client: FlaskClient, three_versions: list[int]
) -> None:
    first = html(client, f"/ui/subjects/{SUBJECT}/diff?new=1", status=404)
    assert "Version 1 is the first version of &#39;page-views-value&#39;" in first
    assert '<select name="old">' in first
    register(client, "single-value", page_view(1))
    single = html(client, "/ui/subjects/single-value/diff", status=404)
    assert "has one version only" in single


# -- safety -------------------------------------------------------------------------------------------
def test_names_and_docs_holding_markup_are_shown_as_text(client: FlaskClient) -> None:
    schema = page_view(1)
    schema["doc"] = HOSTILE_DOC
    schema["fields"][0]["doc"] = HOSTILE_DOC
    schema_id = register(client, HOSTILE_SUBJECT, schema)
    pages = [
        html(client, "/ui/"),
        html(client, f"/ui/subjects/{api_path(HOSTILE_SUBJECT)}"),
        html(client, f"/ui/schemas/{schema_id}"),
        html(client, f"/ui/check?subject={api_path(HOSTILE_SUBJECT)}"),
    ]
    for page in pages:
        markup = Markup(page)
        assert markup.script_bodies == [] and markup.inline == []
        assert [str(script.get("src")).split("?v=")[0] for script in markup.scripts] == ["/ui/static/ui.js"]
    assert "team/&lt;script&gt;window.pwned=1&lt;/script&gt;-value" in pages[1]
    assert "&lt;img src=x onerror=&#34;window.pwned=2&#34;&gt; &amp; &#34;quoted&#34;" in pages[1]


def test_every_answer_of_the_page_forbids_inline_script(
    client: FlaskClient, three_versions: list[int]
) -> None:
    for path in ("/ui/", f"/ui/subjects/{SUBJECT}", "/ui/check", "/ui/nowhere", "/ui/static/ui.js"):
        policy = client.get(path).headers["Content-Security-Policy"]
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
        assert directives["script-src"] == "'self'" and directives["default-src"] == "'none'"
        assert "unsafe-inline" not in policy


def test_the_only_writes_a_page_offers_are_the_admin_forms(
    client: FlaskClient, three_versions: list[int]
) -> None:
    """Without --auth everyone may change subjects (as the API allows): the subject page's settings form,
    and the delete links leading to a confirmation page, are the only writes (see test_admin_actions)."""
    pages = [
        html(client, "/ui/"),
        html(client, f"/ui/subjects/{SUBJECT}"),
        html(client, f"/ui/subjects/{SUBJECT}/diff"),
        html(client, "/ui/schemas/1"),
        html(client, "/ui/check"),
    ]
    forms = [form for page in pages for form in Markup(page).forms]
    assert {(form.get("method"), form.get("action")) for form in forms if form.get("method") != "get"} == {
        ("post", "/ui/check"),
        ("post", f"/ui/subjects/{SUBJECT}/settings"),
    }
    for method in ("POST", "PUT", "DELETE"):
        assert client.open(f"/ui/subjects/{SUBJECT}", method=method).status_code == 405


def test_the_json_api_is_unchanged_beside_the_page(client: FlaskClient, three_versions: list[int]) -> None:
    assert client.get("/").get_json() == {}
    missing = client.get("/nowhere")
    assert missing.status_code == 404 and missing.get_json()["error_code"] == 404
    assert "Content-Security-Policy" not in missing.headers
    assert client.get("/subjects").get_json() == [SUBJECT]


# -- the check ----------------------------------------------------------------------------------------
def check(client: FlaskClient, status: int = 200, **form: object) -> str:
    answer = client.post("/ui/check", data=form, content_type="multipart/form-data")
    assert answer.status_code == status, answer.get_data(as_text=True)[:2000]
    return answer.get_data(as_text=True)


def test_a_failing_check_names_each_problem_s_line_rule_and_fix(
    client: FlaskClient, three_versions: list[int]
) -> None:
    page = check(client, subject=SUBJECT, schema=text(incompatible_with_latest()))
    assert "Incompatible:" in page
    findings = rows(page, "check-findings")
    assert [row[:2] for row in findings] == [
        ["35:21", "TYPE_MISMATCH"],
        ["55:5", "READER_FIELD_MISSING_DEFAULT_VALUE"],
    ]
    assert (
        "candidate.avsc:35:21: &#34;PageView.user.age&#34; is int in the reader but long in the writer"
        in page
    )
    assert "candidate.avsc: incompatible (page-views-value)" in page


def test_a_passing_check_says_what_it_was_compared_with(
    client: FlaskClient, three_versions: list[int]
) -> None:
    candidate = page_view(3)
    candidate["fields"].append({"name": "campaign", "type": ["null", "string"], "default": None})
    page = check(client, subject=SUBJECT, schema=text(candidate))
    assert "Passes:" in page
    assert "compatible under BACKWARD with version 3 (registry http://localhost)" in page
    assert "1 schema file checked: all passed" in page


def test_a_check_of_an_uploaded_file_reports_it_under_its_own_name(
    client: FlaskClient, three_versions: list[int]
) -> None:
    from io import BytesIO

    upload = (BytesIO(text(incompatible_with_latest()).encode()), "../../etc/page-views.avsc")
    page = check(client, subject=SUBJECT, schema="", schema_file=upload)
    assert "page-views.avsc:35:21:" in page and "etc/" not in page


def test_an_invalid_schema_is_reported_with_its_position(
    client: FlaskClient, three_versions: list[int]
) -> None:
    page = check(client, subject=SUBJECT, schema='{"type": "record", "name": "X",\n  "fields": [}')
    assert "Invalid:" in page and "candidate.avsc:2:14: the schema is not valid JSON" in page


def test_a_check_against_a_new_subject_only_validates(client: FlaskClient) -> None:
    page = check(client, subject="brand-new-value", schema=text(page_view(1)))
    assert "Not compared:" in page and "Passes:" not in page
    assert "new subject brand-new-value: nothing to be compatible with" in page


def test_the_check_never_registers_anything(client: FlaskClient, three_versions: list[int]) -> None:
    candidate = page_view(3)
    candidate["fields"].append({"name": "campaign", "type": ["null", "string"], "default": None})
    check(client, subject=SUBJECT, schema=text(candidate))
    check(client, subject="brand-new-value", schema=text(page_view(1)))
    assert api(client, "GET", f"/subjects/{SUBJECT}/versions") == [1, 2, 3]
    assert api(client, "GET", "/subjects") == [SUBJECT]


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"subject": "", "schema": "{}"}, "Choose a subject: The subject name must not be empty."),
        (
            {"subject": SUBJECT, "schema": "  "},
            "Paste a schema (the contents of a .avsc, .json, .proto file) or upload one.",
        ),
        ({"subject": SUBJECT, "schema": "x" * 16385}, "The schema has 16385 characters; the limit is 16384."),
        ({"subject": SUBJECT, "schema": "[" * 40 + "]" * 40}, "The schema is nested deeper than 32 levels."),
        ({"subject": "bad\u0007name", "schema": "{}"}, "contains control characters"),
    ],
)
def test_a_form_that_cannot_be_checked_comes_back_filled_in_with_the_reason(
    client: FlaskClient, form: dict[str, str], message: str
) -> None:
    page = check(client, status=422, **form)
    assert message in page
    if form["schema"].strip() and len(form["schema"]) < 1000:
        assert f">{form['schema']}</textarea>" in page, "the pasted text is kept"


def test_pasting_and_uploading_at_once_is_refused_keeping_both(client: FlaskClient) -> None:
    from io import BytesIO

    pasted = text(page_view(1))
    page = check(client, 422, subject=SUBJECT, schema=pasted, schema_file=(BytesIO(b"{}"), "x.avsc"))
    assert "Paste a schema or upload a file, not both" in page
    kept = page.split('spellcheck="false">', 1)[1].split("</textarea>", 1)[0]
    assert json.loads(unescape(kept)) == page_view(1)


def test_a_file_uploaded_over_the_form_s_own_prefill_is_the_candidate(
    client: FlaskClient, three_versions: list[int]
) -> None:
    """The form opens filled with the latest version: a file chosen without touching that text is checked
    (the browser sends the text back with CRLF line ends), and so is the next file after it."""
    from io import BytesIO

    opened = client.get(f"/ui/check?subject={SUBJECT}").get_data(as_text=True)
    shown = opened.split('name="shown" value="', 1)[1].split('"', 1)[0]
    prefill = unescape(opened.split('spellcheck="false">', 1)[1].split("</textarea>", 1)[0])
    assert json.loads(prefill) == api(client, "GET", f"/subjects/{SUBJECT}/versions/latest/schema")
    upload = (BytesIO(text(incompatible_with_latest()).encode()), "page-views.avsc")
    page = check(
        client, subject=SUBJECT, schema=prefill.replace("\n", "\r\n"), shown=shown, schema_file=upload
    )
    assert "page-views.avsc:35:21:" in page, "the file was checked"
    # The form now shows that file's text: the next file uploaded over it is checked in its turn.
    again = page.split('name="shown" value="', 1)[1].split('"', 1)[0]
    kept = unescape(page.split('spellcheck="false">', 1)[1].split("</textarea>", 1)[0])
    compatible = (BytesIO(text(page_view(3)).encode()), "v3.avsc")
    assert "Passes:" in check(client, subject=SUBJECT, schema=kept, shown=again, schema_file=compatible)
    # A text changed by hand beside a file is still refused: which one was meant is not known.
    edited = kept.replace("PageView", "PageViewed", 1)
    other = (BytesIO(b"{}"), "x.avsc")
    refused = check(client, 422, subject=SUBJECT, schema=edited, shown=again, schema_file=other)
    assert "Paste a schema or upload a file, not both" in refused


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"\xff\xfe{}", "The file is not UTF-8 text (byte 0)."), (b"  \n", "The file e.avsc is empty.")],
)
def test_an_unreadable_upload_is_refused(client: FlaskClient, content: bytes, message: str) -> None:
    from io import BytesIO

    page = check(client, 422, subject=SUBJECT, schema="", schema_file=(BytesIO(content), "e.avsc"))
    assert message in page


def test_a_request_larger_than_the_limit_is_a_page_too(client: FlaskClient) -> None:
    page = check(client, 413, subject=SUBJECT, schema="x" * (70 * 1024))
    assert "larger than the registry accepts (65536 bytes)" in page
