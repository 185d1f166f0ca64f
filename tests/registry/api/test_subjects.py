"""Subjects, versions, ids and deletes through the API, with every not-found and delete error code."""

from __future__ import annotations

import json

import pytest
from flask.testing import FlaskClient

from tests.registry.api.helpers import CT, body, record, without_guid

V1 = record(id="long")
V2 = record(id="long", referrer=(["null", "string"], None))


def register(client: FlaskClient, subject: str, schema: str) -> int:
    resp = client.post(f"/subjects/{subject}/versions", json=body(schema))
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["id"]


def error_code(resp) -> int:  # type: ignore[no-untyped-def]
    assert resp.content_type == CT
    return resp.get_json()["error_code"]


def test_register_returns_global_ids_and_dedupes_per_schema(client: FlaskClient) -> None:
    first = register(client, "page-views-value", V1)
    assert register(client, "page-views-value", V1) == first, "re-registering returns the same id"
    assert register(client, "other-value", V1) == first, "the same schema has one id in every subject"
    second = register(client, "page-views-value", V2)
    assert second == first + 1
    assert client.get("/subjects/page-views-value/versions").get_json() == [1, 2]
    assert client.get("/subjects/other-value/versions").get_json() == [1]
    assert client.get("/subjects").get_json() == ["other-value", "page-views-value"]


def test_same_schema_with_different_whitespace_gets_the_same_id(client: FlaskClient) -> None:
    schema_id = register(client, "s-value", V1)
    respaced = json.dumps(json.loads(V1), indent=4)
    assert register(client, "s-value", respaced) == schema_id
    assert client.get("/subjects/s-value/versions").get_json() == [1]


def test_get_version_latest_minus_one_and_schema_text(client: FlaskClient) -> None:
    register(client, "t-value", V1)
    schema_id = register(client, "t-value", V2)
    for version in ("2", "latest", "-1"):
        got = client.get(f"/subjects/t-value/versions/{version}").get_json()
        assert without_guid(got) == {"subject": "t-value", "version": 2, "id": schema_id, "schema": V2}
    raw = client.get("/subjects/t-value/versions/1/schema")
    assert raw.content_type == CT and json.loads(raw.get_data(as_text=True)) == json.loads(V1)


@pytest.mark.parametrize("subject", ["a/b", "team.topic-value", "ns:topic-value", "x%y", "ünï-value"])
def test_subject_names_with_special_characters_round_trip(client: FlaskClient, subject: str) -> None:
    from urllib.parse import quote

    encoded = quote(subject, safe="")
    resp = client.post(f"/subjects/{encoded}/versions", json=body(V1))
    assert resp.status_code == 200, resp.get_json()
    assert client.get("/subjects").get_json() == [subject]
    assert client.get(f"/subjects/{encoded}/versions/1").get_json()["subject"] == subject
    assert client.get(f"/schemas/ids/{resp.get_json()['id']}/subjects").get_json() == [subject]


def test_schema_by_id_endpoints(client: FlaskClient) -> None:
    schema_id = register(client, "a-value", V1)
    register(client, "b-value", V1)
    assert without_guid(client.get(f"/schemas/ids/{schema_id}").get_json()) == {"schema": V1}
    assert json.loads(client.get(f"/schemas/ids/{schema_id}/schema").get_data(as_text=True)) == json.loads(V1)
    assert client.get(f"/schemas/ids/{schema_id}/subjects").get_json() == ["a-value", "b-value"]
    assert client.get(f"/schemas/ids/{schema_id}/versions").get_json() == [
        {"subject": "a-value", "version": 1},
        {"subject": "b-value", "version": 1},
    ]
    assert error_code(client.get("/schemas/ids/999")) == 40403
    assert client.get("/schemas/types").get_json() == ["AVRO", "JSON", "PROTOBUF"]


def test_lookup_finds_registered_schema_and_reports_missing_ones(client: FlaskClient) -> None:
    schema_id = register(client, "l-value", V1)
    found = client.post("/subjects/l-value", json=body(V1))
    expected = {"subject": "l-value", "version": 1, "id": schema_id, "schema": V1}
    assert without_guid(found.get_json()) == expected
    assert error_code(client.post("/subjects/l-value", json=body(V2))) == 40403
    assert error_code(client.post("/subjects/nobody", json=body(V1))) == 40401


def test_not_found_codes(client: FlaskClient) -> None:
    assert error_code(client.get("/subjects/nobody/versions")) == 40401
    assert error_code(client.get("/subjects/nobody/versions/1")) == 40401
    register(client, "n-value", V1)
    assert error_code(client.get("/subjects/n-value/versions/7")) == 40402
    assert error_code(client.get("/subjects/n-value/versions/0")) == 42202
    assert error_code(client.get("/subjects/n-value/versions/abc")) == 42202


def test_soft_delete_hides_version_but_id_still_resolves(client: FlaskClient) -> None:
    schema_id = register(client, "d-value", V1)
    register(client, "d-value", V2)
    assert client.delete("/subjects/d-value/versions/1").get_json() == 1
    assert client.get("/subjects/d-value/versions").get_json() == [2]
    assert client.get("/subjects/d-value/versions?deleted=true").get_json() == [1, 2]
    assert client.get("/subjects/d-value/versions?deletedOnly=True").get_json() == [1]
    assert error_code(client.get("/subjects/d-value/versions/1")) == 40402
    assert client.get("/subjects/d-value/versions/1?deleted=True").get_json()["id"] == schema_id
    assert client.get(f"/schemas/ids/{schema_id}").status_code == 200
    assert error_code(client.delete("/subjects/d-value/versions/1")) == 40406
    assert error_code(client.delete("/subjects/d-value/versions/2?permanent=true")) == 40407
    assert client.delete("/subjects/d-value/versions/1?permanent=true").get_json() == 1
    assert client.get("/subjects/d-value/versions?deleted=true").get_json() == [2]
    assert client.get(f"/schemas/ids/{schema_id}").status_code == 200, "ids resolve forever"


def test_subject_delete_soft_then_permanent_and_versions_are_never_reused(client: FlaskClient) -> None:
    register(client, "e-value", V1)
    register(client, "e-value", V2)
    assert error_code(client.delete("/subjects/e-value?permanent=true")) == 40405
    assert client.delete("/subjects/e-value").get_json() == [1, 2]
    assert client.get("/subjects").get_json() == []
    assert client.get("/subjects?deleted=true").get_json() == ["e-value"]
    assert client.get("/subjects?deletedOnly=true").get_json() == ["e-value"]
    assert error_code(client.delete("/subjects/e-value")) == 40404
    assert error_code(client.get("/subjects/e-value/versions")) == 40401
    assert error_code(client.get("/subjects/e-value/versions/latest")) == 40401, "soft-deleted subject"
    assert client.get("/subjects/e-value/versions/latest?deleted=true").get_json()["version"] == 2
    assert client.delete("/subjects/e-value?permanent=True").get_json() == [1, 2]
    assert error_code(client.delete("/subjects/e-value")) == 40401
    register(client, "e-value", V1)
    assert client.get("/subjects/e-value/versions").get_json() == [3], "version numbers are never reused"


def test_reregistering_a_soft_deleted_schema_makes_a_new_version(client: FlaskClient) -> None:
    schema_id = register(client, "r-value", V1)
    client.delete("/subjects/r-value/versions/1")
    assert register(client, "r-value", V1) == schema_id
    assert client.get("/subjects/r-value/versions").get_json() == [2]


def test_pagination_and_prefix(client: FlaskClient) -> None:
    for name in ("a-1", "a-2", "b-1"):
        register(client, name, V1)
    assert client.get("/subjects?subjectPrefix=a-").get_json() == ["a-1", "a-2"]
    assert client.get("/subjects?offset=1&limit=1").get_json() == ["a-2"]
    listed = client.get("/schemas?subjectPrefix=a-&latestOnly=true").get_json()
    assert [(s["subject"], s["version"]) for s in listed] == [("a-1", 1), ("a-2", 1)]


def test_references_are_stored_returned_and_block_deletes(client: FlaskClient) -> None:
    address = json.dumps(
        {
            "type": "record",
            "name": "Address",
            "namespace": "com.example",
            "fields": [{"name": "city", "type": "string"}],
        }
    )
    register(client, "address-value", address)
    person = json.dumps(
        {
            "type": "record",
            "name": "Person",
            "namespace": "com.example",
            "fields": [{"name": "home", "type": "com.example.Address"}],
        }
    )
    refs = [{"name": "com.example.Address", "subject": "address-value", "version": 1}]
    resp = client.post("/subjects/person-value/versions", json=body(person, references=refs))
    assert resp.status_code == 200, resp.get_json()
    person_id = resp.get_json()["id"]
    assert client.get(f"/schemas/ids/{person_id}").get_json()["references"] == refs
    assert client.get("/subjects/address-value/versions/1/referencedby").get_json() == [person_id]
    assert error_code(client.delete("/subjects/address-value/versions/1")) == 42206
    missing = [{"name": "x.Y", "subject": "nobody", "version": 1}]
    assert (
        error_code(client.post("/subjects/p2-value/versions", json=body(person, references=missing))) == 42201
    )


def test_normalize_stores_the_normalized_form_and_still_dedupes(client: FlaskClient) -> None:
    spaced = '{ "type" : "record", "name": "A", "fields": [ {"name": "x", "type": "int", "doc": "d"} ] }'
    schema_id = client.post("/subjects/n-value/versions?normalize=true", json=body(spaced)).get_json()["id"]
    stored = client.get(f"/schemas/ids/{schema_id}").get_json()["schema"]
    assert stored != spaced and " " not in stored, "the normalized text is stored"
    assert json.loads(stored)["fields"][0]["doc"] == "d", "normalizing keeps docs"
    assert register(client, "m-value", spaced) == schema_id, "the raw text maps to the same id"
