"""The page with Protobuf and JSON Schema subjects: the field tree their type gives, the type's diff, their
references, downloads with the type's suffix and media type, and the candidate check."""

from __future__ import annotations

import io
from html import unescape

import pytest
from flask.testing import FlaskClient

from tests.registry.schema_check import schemas
from tests.registry.ui.helpers import api, register
from tests.registry.ui.test_pages import check, html, rows

ORDERS, CUSTOMER = "orders-value", "customer-value"
PAYMENTS, ADDRESS = "payments-value", "address-value"
CUSTOMER_REF = {"name": "customer.proto", "subject": CUSTOMER, "version": 1}
ADDRESS_REF = {"name": "address.json", "subject": ADDRESS, "version": 1}


@pytest.fixture
def protobuf(client: FlaskClient) -> None:
    """orders-value: two versions importing customer.proto (customer-value), a field added."""
    register(client, CUSTOMER, schemas.CUSTOMER_PROTO, schemaType="PROTOBUF")
    for text in (schemas.ORDER_PROTO_V1, schemas.ORDER_PROTO_ADDED):
        register(client, ORDERS, text, schemaType="PROTOBUF", references=[CUSTOMER_REF])


@pytest.fixture
def json_schema(client: FlaskClient) -> None:
    """payments-value: two versions referring to address.json (address-value), amount retyped at NONE."""
    register(client, ADDRESS, schemas.ADDRESS_JSON, schemaType="JSON")
    api(client, "PUT", f"/config/{PAYMENTS}", {"compatibility": "NONE"})
    for text in (schemas.PAYMENT_JSON_V1, schemas.PAYMENT_JSON_RETYPED):
        register(client, PAYMENTS, text, schemaType="JSON", references=[ADDRESS_REF])


def tree_names(page: str) -> list[str]:
    return [row[0] for row in rows(page, "field-tree")]


def test_a_protobuf_subject_shows_its_tree_references_change_and_text(
    client: FlaskClient, protobuf: None
) -> None:
    page = html(client, f"/ui/subjects/{ORDERS}")
    assert tree_names(page)[:1] == ["Order"]
    assert {"id", "customer", "total_cents", "note"} <= set(tree_names(page))
    assert "+1 field (note (field 4))" in page  # the version's line, from the type's diff
    assert f'<code>customer.proto</code> → <a href="/ui/subjects/{CUSTOMER}?version=1"' in page
    assert "Schema (.proto)" in page and "int64 total_cents = 3;" in unescape(page)
    assert "Download version 2 as .proto" in page


def test_a_protobuf_version_downloads_as_a_proto_file(client: FlaskClient, protobuf: None) -> None:
    assert f'href="/ui/subjects/{ORDERS}/versions/2/schema.proto" download' in html(
        client, f"/ui/subjects/{ORDERS}"
    )
    answer = client.get(f"/ui/subjects/{ORDERS}/versions/2/schema.proto")
    assert answer.status_code == 200 and answer.mimetype == "text/x-protobuf"
    assert answer.headers["Content-Disposition"] == 'attachment; filename="orders-value-v2.proto"'
    assert answer.get_data(as_text=True) == schemas.ORDER_PROTO_ADDED
    assert client.get(f"/ui/subjects/{ORDERS}/versions/2/schema.avsc").status_code == 404


def test_a_protobuf_diff_is_the_type_s_structural_diff(client: FlaskClient, protobuf: None) -> None:
    page = html(client, f"/ui/subjects/{ORDERS}/diff")
    assert "Compatible under BACKWARD" in page
    assert [row[:2] for row in rows(page, "changes")] == [["field added", "Order.note (field 4)"]]
    assert "+  string note = 4;" in unescape(page)  # the text diff of the canonical .proto texts


def test_a_json_schema_subject_diff_and_download(client: FlaskClient, json_schema: None) -> None:
    page = html(client, f"/ui/subjects/{PAYMENTS}")
    assert tree_names(page)[:1] == ["Payment"]
    assert {"id", "amount", "billing"} <= set(tree_names(page))
    assert f'<code>address.json</code> → <a href="/ui/subjects/{ADDRESS}?version=1"' in page
    assert "Schema JSON" in page and "1 type changed" in page

    diff = html(client, f"/ui/subjects/{PAYMENTS}/diff")
    assert "Not checked: the subject's compatibility level is NONE" in diff
    assert "Version 2 cannot read data written with version 1 (backward)" in diff
    assert [row[:2] for row in rows(diff, "changes")] == [["type changed", "Payment.amount"]]

    answer = client.get(f"/ui/subjects/{PAYMENTS}/versions/1/schema.json")
    assert answer.status_code == 200 and answer.mimetype == "application/schema+json"
    assert answer.headers["Content-Disposition"] == 'attachment; filename="payments-value-v1.json"'


def test_the_check_takes_a_protobuf_candidate_with_its_references(
    client: FlaskClient, protobuf: None
) -> None:
    opened = html(client, f"/ui/check?subject={ORDERS}")
    assert '<option value="PROTOBUF" selected>' in opened and "string note = 4;" in unescape(opened)
    refs = {"ref_name": "customer.proto", "ref_subject": CUSTOMER, "ref_version": "1"}
    page = check(client, subject=ORDERS, schema_type="PROTOBUF", schema=schemas.ORDER_PROTO_RETYPED, **refs)
    assert "Incompatible:" in page
    assert [row[:2] for row in rows(page, "check-findings")] == [["9:3", "FIELD_SCALAR_KIND_CHANGED"]]
    assert "candidate.proto:9:3: &#34;Order.total_cents (field 3)&#34; is string in the reader" in page

    invalid = check(
        client, subject=ORDERS, schema_type="PROTOBUF", schema=schemas.ORDER_PROTO_INVALID, **refs
    )
    assert "Invalid:" in invalid
    line, column = schemas.ORDER_PROTO_INVALID_AT
    assert [row[0] for row in rows(invalid, "check-findings")] == [f"{line}:{column}"]


def test_the_check_takes_a_json_schema_upload_by_its_suffix(client: FlaskClient, json_schema: None) -> None:
    upload = (io.BytesIO(schemas.PAYMENT_JSON_INVALID.encode()), "payments.json")
    refs = {"ref_name": "address.json", "ref_subject": ADDRESS, "ref_version": "1"}
    page = check(client, subject=PAYMENTS, schema_type="AVRO", schema_file=upload, **refs)
    line, column = schemas.PAYMENT_JSON_INVALID_AT
    assert "Invalid:" in page and '<option value="JSON" selected>' in page
    assert [row[:2] for row in rows(page, "check-findings")] == [[f"{line}:{column}", "invalid-schema"]]
    assert f"payments.json:{line}:{column}: not valid draft-07" in page

    passing = check(client, subject=PAYMENTS, schema_type="JSON", schema=schemas.PAYMENT_JSON_RETYPED, **refs)
    assert "Not compared:" in passing  # level NONE


def test_the_list_finds_protobuf_and_json_subjects_by_their_fields(
    client: FlaskClient, protobuf: None, json_schema: None
) -> None:
    """Searched in each type's own names (its field tree), not only in Avro's: a field's name, or its
    place as the hits name it."""
    page = html(client, "/ui/?q=total_cents")
    assert [row[0].split(" matches ")[0] for row in rows(page, "subject-table")] == [ORDERS]
    assert 'matches <span class="hit">field Order.total_cents</span>' in page
    page = html(client, "/ui/?q=Payment.amount")
    assert [row[0].split(" matches ")[0] for row in rows(page, "subject-table")] == [PAYMENTS]
    assert 'matches <span class="hit">field Payment.amount</span>' in page
    # A type's name is in every schema's text, but is not what a person searching for it means.
    assert "No subject matches “int64”." in html(client, "/ui/?q=int64")
