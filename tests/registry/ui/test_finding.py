"""Finding things on the page: search in names and schemas, level/mode filters and sorting, change
summaries, "used by" across versions, schema ids' references as links, .avsc downloads, cached assets."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from registry.schema_types import schema_type
from registry.service.search import Digest, Hit, digest_hits, mentions, searchable
from registry.ui.contract_diff import ContractChange
from registry.ui.version_summary import FieldChange, field_changes, summary_line
from tests.registry.ui.helpers import SUBJECT, api, page_view, register
from tests.registry.ui.test_pages import html, rows

CARD = {
    "type": "record",
    "name": "CardPayment",
    "namespace": "com.acme.billing",
    "doc": "A payment by card.",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "card_last4", "type": "string", "doc": "Last four digits, never the number."},
        {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["AUTHORIZED", "SETTLED"]}},
    ],
}
ADDRESS = {"type": "record", "name": "Address", "namespace": "com.acme.common",
           "fields": [{"name": "city", "type": "string"}]}  # fmt: skip


def customer(extra: bool = False) -> dict[str, Any]:
    fields: list[dict[str, Any]] = [
        {"name": "id", "type": "long"},
        {"name": "home", "type": "com.acme.common.Address"},
    ]
    if extra:
        fields.append({"name": "note", "type": ["null", "string"], "default": None})
    return {"type": "record", "name": "Customer", "namespace": "com.acme", "fields": fields}


def listed(client: FlaskClient, query: str) -> list[str]:
    return [row[0].split(" matches ")[0] for row in rows(html(client, "/ui/?" + query), "subject-table")]


# -- pure parts -----------------------------------------------------------------------------------
def digest(text: str, type_name: str = "AVRO") -> Digest:
    kind = schema_type(type_name)
    return searchable(kind.search_entries(kind.parse(text)))


def schema_hits(text: str, wanted: str) -> list[Hit]:
    return digest_hits(digest(text), wanted)


def test_schema_hits_are_in_names_namespaces_symbols_and_docs_not_in_types() -> None:
    text = json.dumps(CARD)
    assert schema_hits(text, "CARD_LAST4") == [Hit("field", "CardPayment.card_last4")]
    assert schema_hits(text, "acme.billing") == [Hit("namespace", "com.acme.billing")]
    assert schema_hits(text, "four digits") == [Hit("doc", "CardPayment.card_last4")]
    assert schema_hits(text, "settled") == [Hit("symbol", "com.acme.billing.Status.SETTLED")]
    assert schema_hits(text, "status")[:2] == [
        Hit("field", "CardPayment.status"),
        Hit("enum", "com.acme.billing.Status"),
    ]
    assert schema_hits(text, "string") == [] and schema_hits(text, "long") == []
    assert schema_hits(text, "  ") == []


PROTO = """syntax = "proto3";
package acme.billing;

message CardPayment {
  int64 id = 1;
  string card_last4 = 2;
  message Refund { string reason = 1; }
  repeated Refund refunds = 3;
}
"""
PAYMENT_JSON = json.dumps({
    "title": "CardPayment",
    "type": "object",
    "properties": {
        "card_last4": {"type": "string", "description": "Last four digits, never the number."},
        "refunds": {
            "type": "array", "items": {"type": "object", "properties": {"reason": {"type": "string"}}}
        },
    },
})  # fmt: skip


def test_protobuf_and_json_schemas_are_searched_in_their_messages_objects_fields_and_docs() -> None:
    proto = digest(PROTO, "PROTOBUF")
    assert digest_hits(proto, "card_LAST4") == [Hit("field", "CardPayment.card_last4")]
    assert digest_hits(proto, "reason") == [Hit("field", "CardPayment.refunds[].reason")]
    assert digest_hits(proto, "cardpayment")[0] == Hit("message", "CardPayment")
    assert digest_hits(proto, "acme.billing") == [Hit("namespace", "acme.billing")]
    assert digest_hits(proto, "string") == [] and digest_hits(proto, "int64") == []
    json_schema = digest(PAYMENT_JSON, "JSON")
    assert digest_hits(json_schema, "never the number") == [Hit("doc", "CardPayment.card_last4")]
    assert digest_hits(json_schema, "refunds[].reason") == [Hit("field", "CardPayment.refunds[].reason")]
    assert digest_hits(json_schema, "cardpayment")[0] == Hit("object", "CardPayment")
    assert not mentions(json_schema, "array") and not mentions(json_schema, "properties")


def test_a_summary_line_counts_and_names_what_changed() -> None:
    changes = [FieldChange("added", "A.b"), FieldChange("added", "A.c"), FieldChange("added", "A.d"),
               FieldChange("type", "A.e")]  # fmt: skip
    contract = [ContractChange("added", "migration rule", "up"), ContractChange("added", "tag", "A.b")]
    assert summary_line(changes, contract) == "+3 fields (b, c, …), 1 type changed, +1 migration rule, +1 tag"
    assert summary_line([], []) == "no change"
    properties = [ContractChange("added", "property", "owner"), ContractChange("added", "property", "team")]
    sensitive = [ContractChange("removed", "sensitive", "A.ssn")]
    assert summary_line([], properties + sensitive) == "+2 properties, -1 sensitive name"


def test_field_changes_compare_fields_per_record_with_named_types_by_full_name() -> None:
    inline = {"type": "record", "name": "A", "namespace": "x", "fields": [
        {"name": "b", "type": {"type": "record", "name": "B", "fields": [{"name": "c", "type": "int"}]}},
        {"name": "d", "type": "string", "doc": "old"},
        {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["P", "Q"]}},
    ]}  # fmt: skip
    later = json.loads(json.dumps(inline))
    later["fields"][0]["type"]["fields"].append({"name": "f", "type": "long", "default": 0})
    later["fields"][1].update(doc="new", type=["null", "string"], default=None)
    later["fields"][2]["type"]["symbols"].append("R")
    later["fields"].append({"name": "g", "type": "x.B"})
    assert sorted(field_changes(json.dumps(inline), json.dumps(later)), key=str) == sorted([
        FieldChange("added", "B.f"), FieldChange("type", "A.d"), FieldChange("default", "A.d"),
        FieldChange("doc", "A.d"), FieldChange("symbols", "E"), FieldChange("added", "A.g"),
    ], key=str)  # fmt: skip
    assert field_changes(json.dumps(inline), json.dumps(inline)) == []


# -- the list --------------------------------------------------------------------------------------
def test_search_finds_field_names_record_names_namespaces_and_docs(client: FlaskClient) -> None:
    register(client, "payments-value", CARD)
    register(client, "orders-value", page_view(1))
    register(client, "card-events-value", page_view(1))
    assert listed(client, "q=card_last4") == ["payments-value"]
    page = html(client, "/ui/?q=card_last4")
    assert 'matches <span class="hit">field CardPayment.card_last4</span>' in page
    # A place as the hits name it: the record's name and the field's, as one dotted path.
    assert listed(client, "q=CardPayment.card_last4") == ["payments-value"]
    assert 'matches <span class="hit">field CardPayment.card_last4</span>' in html(
        client, "/ui/?q=cardpayment.CARD_LAST4"
    )
    assert "No subject matches" in html(client, "/ui/?q=OtherRecord.card_last4")
    assert listed(client, "q=CardPayment") == ["payments-value"]
    assert listed(client, "q=com.acme.billing") == ["payments-value"]
    assert listed(client, "q=never+the+number") == ["payments-value"]
    assert listed(client, "q=card") == ["card-events-value", "payments-value"]  # a name, and a schema
    assert listed(client, "q=card&match=prefix") == ["card-events-value"], "starts with: names only"
    assert "No subject matches “string”" in html(client, "/ui/?q=string"), "a type is not a name"


def test_the_list_filters_by_level_and_mode_and_sorts(client: FlaskClient) -> None:
    for name in ("a-value", "b-value", "c-value"):
        register(client, name, page_view(1))
    register(client, "b-value", page_view(2))
    register(client, "b-value", page_view(3))
    register(client, "c-value", page_view(2))
    api(client, "PUT", "/config/a-value", {"compatibility": "FULL"})
    api(client, "PUT", "/mode/c-value", {"mode": "READONLY"})
    assert listed(client, "level=FULL") == ["a-value"]
    assert listed(client, "level=BACKWARD") == ["b-value", "c-value"]
    assert listed(client, "mode=READONLY") == ["c-value"]
    assert listed(client, "mode=READWRITE&level=BACKWARD") == ["b-value"]
    assert listed(client, "sort=versions") == ["b-value", "c-value", "a-value"]
    assert listed(client, "sort=recent") == ["c-value", "b-value", "a-value"]
    assert "at level FULL" in html(client, "/ui/?level=FULL")
    assert "level must be one of" in html(client, "/ui/?level=SOMETIMES", status=400)
    assert "sort must be one of" in html(client, "/ui/?sort=size", status=400)


# -- a subject -------------------------------------------------------------------------------------
def test_used_by_lists_the_referrers_of_every_version_with_the_version_each_uses(client: FlaskClient) -> None:
    register(client, "address-value", ADDRESS)
    zipped = {**ADDRESS, "fields": [*ADDRESS["fields"], {"name": "zip", "type": "string", "default": ""}]}
    register(client, "address-value", zipped)
    ref = {"name": "com.acme.common.Address", "subject": "address-value"}
    register(client, "customers-value", customer(), references=[{**ref, "version": 1}])
    register(client, "customers-value", customer(extra=True), references=[{**ref, "version": 2}])
    register(client, "shops-value", {**customer(), "name": "Shop"}, references=[{**ref, "version": 1}])
    for shown in ("", "?version=1"):
        used = rows(html(client, f"/ui/subjects/address-value{shown}"), "used-by-table")
        assert used == [
            ["customers-value v1", "3", "1"],
            ["shops-value v1", "5", "1"],
            ["customers-value v2", "4", "2"],
        ]

    schema = html(client, "/ui/schemas/4")
    assert 'href="/ui/subjects/address-value?version=2">address-value v2</a>' in schema
    assert "<code>com.acme.common.Address</code>" in schema


def test_a_version_downloads_as_an_avsc_file(client: FlaskClient) -> None:
    register(client, SUBJECT, page_view(1))
    register(client, SUBJECT, page_view(2))
    page = html(client, f"/ui/subjects/{SUBJECT}?version=1")
    assert f'href="/ui/subjects/{SUBJECT}/versions/1/schema.avsc" download' in page
    answer = client.get(f"/ui/subjects/{SUBJECT}/versions/1/schema.avsc")
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    assert answer.headers["Content-Disposition"] == f'attachment; filename="{SUBJECT}-v1.avsc"'
    assert json.loads(answer.get_data(as_text=True)) == page_view(1)
    assert client.get(f"/ui/subjects/{SUBJECT}/versions/9/schema.avsc").status_code == 404
    register(client, "team/odd name-value", page_view(1))
    odd = client.get("/ui/subjects/team%2Fodd%20name-value/versions/1/schema.avsc")
    assert odd.headers["Content-Disposition"] == 'attachment; filename="team_odd_name-value-v1.avsc"'


@pytest.mark.parametrize("asset", ["ui.css", "ui.js", "favicon.svg"])
def test_static_files_carry_their_hash_and_are_cached_for_a_year(client: FlaskClient, asset: str) -> None:
    page = html(client, "/ui/")
    found = re.search(rf'"(/ui/static/{re.escape(asset)}\?v=([0-9a-f]{{12}}))"', page)
    assert found is not None
    cached = client.get(found.group(1))
    assert cached.status_code == 200
    policy = cached.headers["Cache-Control"]
    assert "max-age=31536000" in policy and "immutable" in policy and "no-cache" not in policy
    stale = client.get(f"/ui/static/{asset}?v=000000000000")
    assert "no-cache" in stale.headers["Cache-Control"], "an old hash is revalidated"


def test_a_search_digest_holds_names_namespaces_symbols_and_docs_one_per_line() -> None:
    card = digest(json.dumps(CARD))
    assert mentions(card, "Card_Last4") and mentions(card, "never the number")
    assert mentions(card, "settled") and mentions(card, "acme.billing")
    assert not mentions(card, "string") and not mentions(card, "")
    assert not mentions(card, "payment.\nid"), "one name or doc at a time"
    assert searchable(()).text == ""
