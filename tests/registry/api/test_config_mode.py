"""Compatibility levels and modes: global and per subject, defaults, and the errors they produce."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.registry.api.helpers import body, record

V1 = record(id="long")
V2_NO_DEFAULT = record(id="long", country="string")


def test_global_config_get_put_delete(client: FlaskClient) -> None:
    assert client.get("/config").get_json() == {"compatibilityLevel": "BACKWARD"}
    assert client.put("/config", json={"compatibility": "full"}).get_json() == {"compatibility": "FULL"}
    assert client.get("/config").get_json() == {"compatibilityLevel": "FULL"}
    assert client.delete("/config").get_json() == {"compatibilityLevel": "FULL"}
    assert client.get("/config").get_json() == {"compatibilityLevel": "BACKWARD"}


def test_subject_config_and_default_to_global(client: FlaskClient) -> None:
    missing = client.get("/config/s-value")
    assert missing.status_code == 404 and missing.get_json()["error_code"] == 40408
    assert client.get("/config/s-value?defaultToGlobal=true").get_json() == {"compatibilityLevel": "BACKWARD"}
    assert client.put("/config/s-value", json={"compatibility": "NONE"}).get_json() == {
        "compatibility": "NONE"
    }
    assert client.get("/config/s-value").get_json() == {"compatibilityLevel": "NONE"}
    assert client.delete("/config/s-value").get_json() == {"compatibilityLevel": "NONE"}
    assert client.delete("/config/s-value").get_json()["error_code"] == 40408


def test_invalid_level_is_42203(client: FlaskClient) -> None:
    for payload in ({"compatibility": "SIDEWAYS"}, {"compatibility": 3}, {}):
        resp = client.put("/config", json=payload)
        assert resp.status_code == 422 and resp.get_json()["error_code"] == 42203


def test_subject_level_overrides_global_for_registration(client: FlaskClient) -> None:
    client.post("/subjects/o-value/versions", json=body(V1))
    refused = client.post("/subjects/o-value/versions", json=body(V2_NO_DEFAULT))
    assert refused.status_code == 409 and refused.get_json()["error_code"] == 409
    assert "country" in refused.get_json()["message"], "the refusal names the field"
    client.put("/config/o-value", json={"compatibility": "NONE"})
    assert client.post("/subjects/o-value/versions", json=body(V2_NO_DEFAULT)).status_code == 200


def test_modes_and_read_only_refuses_writes_with_42205(client: FlaskClient) -> None:
    assert client.get("/mode").get_json() == {"mode": "READWRITE"}
    client.post("/subjects/m-value/versions", json=body(V1))
    assert client.put("/mode/m-value", json={"mode": "READONLY"}).get_json() == {"mode": "READONLY"}
    assert client.get("/mode/m-value").get_json() == {"mode": "READONLY"}
    for resp in (
        client.post("/subjects/m-value/versions", json=body(record(id="long", x=("int", 0)))),
        client.delete("/subjects/m-value/versions/1"),
        client.delete("/subjects/m-value"),
    ):
        assert resp.status_code == 422 and resp.get_json()["error_code"] == 42205
    assert client.get("/subjects/m-value/versions/1").status_code == 200, "reads still work"
    assert client.post("/subjects/other-value/versions", json=body(V1)).status_code == 200
    assert client.delete("/mode/m-value").get_json() == {"mode": "READONLY"}
    assert client.get("/mode/m-value").get_json()["error_code"] == 40409
    assert client.get("/mode/m-value?defaultToGlobal=true").get_json() == {"mode": "READWRITE"}


def test_invalid_mode_is_42204(client: FlaskClient) -> None:
    resp = client.put("/mode", json={"mode": "WRITEONLY"})
    assert resp.status_code == 422 and resp.get_json()["error_code"] == 42204


def test_import_mode_keeps_given_ids_and_versions(client: FlaskClient) -> None:
    refused = client.post("/subjects/i-value/versions", json=body(V1, id=100, version=5))
    assert refused.get_json()["error_code"] == 42205, "ids may only be given in IMPORT mode"
    assert client.put("/mode", json={"mode": "IMPORT"}, query_string={"force": "true"}).status_code == 200
    resp = client.post("/subjects/i-value/versions", json=body(V1, id=100, version=5))
    assert (resp.get_json()["id"], resp.get_json()["version"]) == (100, 5)
    assert client.get("/subjects/i-value/versions").get_json() == [5]
    client.put("/mode", json={"mode": "READWRITE"})
    assert client.post("/subjects/j-value/versions", json=body(record(id="int"))).get_json()["id"] == 101
