"""The page's check and the API's ``POST /compatibility/subjects/{s}/versions`` agree on every candidate,
references included: the page says "passes" only where the API says compatible after comparing versions."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from registry.ui.candidate import Verdict
from tests.registry.ui.helpers import CT, api, api_path, register

ADDRESS = {
    "type": "record",
    "name": "Address",
    "namespace": "com.example.common",
    "fields": [{"name": "street", "type": "string"}, {"name": "city", "type": "string"}],
}
ADDRESS_REF = {"name": "com.example.common.Address", "subject": "common-address", "version": 1}


def customer(email: str = "string", extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    fields = [
        {"name": "id", "type": "long"},
        {"name": "email", "type": email},
        {"name": "address", "type": "com.example.common.Address"},
    ]
    return {
        "type": "record",
        "name": "Customer",
        "namespace": "com.example",
        "fields": fields + (extra or []),
    }


def inlined_customer() -> dict[str, Any]:
    schema = customer()
    schema["fields"][2]["type"] = ADDRESS
    return schema


def simple(*fields: tuple[str, str], default: bool = False) -> dict[str, Any]:
    body = [{"name": n, "type": t, **({"default": 0} if default and t == "int" else {})} for n, t in fields]
    return {"type": "record", "name": "Simple", "fields": body}


@pytest.fixture
def registry(client: FlaskClient) -> FlaskClient:
    register(client, "common-address", ADDRESS)
    register(client, "customers-value", customer(), references=[ADDRESS_REF])
    register(client, "loose-value", simple(("a", "long")))
    api(client, "PUT", "/config/loose-value", {"compatibility": "NONE"})
    register(client, "strict-value", simple(("a", "long")))
    api(client, "PUT", "/config/strict-value", {"compatibility": "FULL_TRANSITIVE"})
    register(client, "strict-value", simple(("a", "long"), ("b", "int"), default=True))
    return client


CANDIDATES: list[tuple[str, str, dict[str, Any], list[dict[str, Any]], Verdict]] = [
    ("email string to int, with its reference", "customers-value", customer("int"), [ADDRESS_REF],
     Verdict.INCOMPATIBLE),
    ("an optional field added, with its reference", "customers-value",
     customer(extra=[{"name": "phone", "type": ["null", "string"], "default": None}]), [ADDRESS_REF],
     Verdict.PASSES),
    ("a required field added, with its reference", "customers-value",
     customer(extra=[{"name": "phone", "type": "string"}]), [ADDRESS_REF], Verdict.INCOMPATIBLE),
    ("the registered schema itself, with its reference", "customers-value", customer(), [ADDRESS_REF],
     Verdict.PASSES),
    ("the referenced type inlined instead", "customers-value", inlined_customer(), [], Verdict.PASSES),
    ("email to int with the type inlined", "customers-value",
     {**inlined_customer(), "fields": [{"name": "id", "type": "long"}, {"name": "email", "type": "int"},
                                      {"name": "address", "type": ADDRESS}]}, [], Verdict.INCOMPATIBLE),
    ("the reference left out", "customers-value", customer(), [], Verdict.INVALID),
    ("a reference to a version that does not exist", "customers-value", customer(),
     [{**ADDRESS_REF, "version": 7}], Verdict.INVALID),
    ("a new subject", "brand-new-value", simple(("a", "long")), [], Verdict.NOT_COMPARED),
    ("a new subject with a reference", "brand-new-value", customer(), [ADDRESS_REF], Verdict.NOT_COMPARED),
    ("level NONE, a breaking change", "loose-value", simple(("a", "string")), [], Verdict.NOT_COMPARED),
    ("FULL_TRANSITIVE, fits the latest but not the first", "strict-value",
     simple(("a", "long"), ("b", "int")), [], Verdict.INCOMPATIBLE),
    ("FULL_TRANSITIVE, fits both", "strict-value", simple(("a", "long"), ("b", "int"), default=True), [],
     Verdict.PASSES),
]  # fmt: skip


def api_answer(client: FlaskClient, subject: str, schema: dict[str, Any], refs: list[dict[str, Any]]) -> Any:
    body = {"schema": json.dumps(schema), "references": refs}
    answer = client.post(
        f"/compatibility/subjects/{api_path(subject)}/versions", data=json.dumps(body), headers=CT
    )
    if answer.status_code == 422:
        return None
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return answer.get_json()["is_compatible"]


def page_verdict(
    client: FlaskClient, subject: str, schema: dict[str, Any], refs: list[dict[str, Any]]
) -> str:
    form: dict[str, Any] = {
        "subject": subject,
        "schema": json.dumps(schema, indent=2),
        "ref_name": [r["name"] for r in refs] + ["", ""],
        "ref_subject": [r["subject"] for r in refs] + ["", ""],
        "ref_version": [str(r["version"]) for r in refs] + ["", ""],
    }
    answer = client.post("/ui/check", data=form, content_type="multipart/form-data")
    assert answer.status_code == 200, answer.get_data(as_text=True)[:3000]
    found = re.search(r'id="verdict" data-verdict="([a-z ]+)"', answer.get_data(as_text=True))
    assert found is not None
    return found.group(1)


@pytest.mark.parametrize(
    ("subject", "schema", "refs", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in CANDIDATES],
)
def test_the_page_s_verdict_is_the_api_s(
    registry: FlaskClient, subject: str, schema: dict[str, Any], refs: list[dict[str, Any]], expected: Verdict
) -> None:
    verdict = Verdict(page_verdict(registry, subject, schema, refs))
    assert verdict is expected
    assert verdict.api_compatible == api_answer(registry, subject, schema, refs)


def test_the_false_pass_of_a_version_with_references_is_gone(registry: FlaskClient) -> None:
    """The issue's case: email from string to int under a subject whose versions use a reference."""
    form = {
        "subject": "customers-value",
        "schema": json.dumps(customer("int"), indent=2),
        "ref_name": [ADDRESS_REF["name"]],
        "ref_subject": ["common-address"],
        "ref_version": ["1"],
    }
    page = registry.post("/ui/check", data=form, content_type="multipart/form-data").get_data(as_text=True)
    assert "Passes" not in page and "not compared" not in page
    assert "Incompatible:" in page and "TYPE_MISMATCH" in page
    assert 'href="#line-' in page and 'id="line-12" class="marked"' in page  # the email field's type


def test_the_form_starts_from_the_latest_version_and_its_references(registry: FlaskClient) -> None:
    page = registry.get("/ui/check?subject=customers-value").get_data(as_text=True)
    assert "&#34;name&#34;: &#34;Customer&#34;" in page or "&quot;name&quot;: &quot;Customer&quot;" in page
    assert 'name="ref_name" value="com.example.common.Address"' in page
    assert 'name="ref_subject" value="common-address"' in page
    assert 'name="ref_version" value="1"' in page
    assert page.count('name="ref_name"') == 3  # the filled row and two blank ones
    blank = registry.get("/ui/check?subject=no-such-value").get_data(as_text=True)
    assert "</textarea>" in blank and 'spellcheck="false"></textarea>' in blank


def test_an_incomplete_reference_row_is_sent_back_with_the_reason(registry: FlaskClient) -> None:
    form = {"subject": "customers-value", "schema": json.dumps(customer()), "ref_name": ["x.Y"],
            "ref_subject": [""], "ref_version": ["1"]}  # fmt: skip
    answer = registry.post("/ui/check", data=form, content_type="multipart/form-data")
    assert answer.status_code == 422
    assert "Reference 1: fill in its name, subject and version" in answer.get_data(as_text=True)
    assert 'name="ref_name" value="x.Y"' in answer.get_data(as_text=True)
