"""Data contracts through the API (in process): metadata and rule sets stored and returned, a version's
identity, carrying forward, config defaults and overrides, compatibility groups, lookups by metadata,
GUIDs and contexts, and every refusal with nothing stored."""

from __future__ import annotations

import uuid
from typing import Any

from flask.testing import FlaskClient

from tests.registry.api.helpers import body, record

V1 = record(id="long")
V2 = record(id="long", referrer=(["null", "string"], None))
V2_BREAKING = record(id="long", session="string")
OWNER_A = {"properties": {"owner": "team-a"}}
OWNER_B = {"properties": {"owner": "team-b"}}
RULES = {
    "domainRules": [
        {
            "name": "checkId",
            "doc": "ids are positive",
            "kind": "CONDITION",
            "mode": "WRITE",
            "type": "CEL",
            "tags": ["PII"],
            "params": {"dlq.topic": "bad"},
            "expr": "message.id > 0",
            "onSuccess": "NONE",
            "onFailure": "DLQ",
            "disabled": False,
        }
    ],
    "migrationRules": [
        {
            "name": "up",
            "kind": "TRANSFORM",
            "mode": "UPGRADE",
            "type": "JSONATA",
            "expr": "$",
            "disabled": True,
        }
    ],
}


def post(client: FlaskClient, path: str, **payload: Any) -> dict[str, Any]:
    resp = client.post(path, json=payload)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def register(client: FlaskClient, subject: str, schema: str, **contract: Any) -> dict[str, Any]:
    return post(client, f"/subjects/{subject}/versions", **body(schema, **contract))


def refused(resp: Any, status: int, code: int, text: str) -> None:
    answer = resp.get_json()
    assert (resp.status_code, answer["error_code"]) == (status, code), answer
    assert text in answer["message"], answer["message"]


def test_metadata_and_rules_are_stored_and_returned_wherever_the_schema_is(client: FlaskClient) -> None:
    done = register(client, "c-value", V1, metadata={**OWNER_A, "sensitive": ["id"]}, ruleSet=RULES)
    expected_metadata = {"properties": {"owner": "team-a"}, "sensitive": ["id"]}
    assert done["metadata"] == expected_metadata and done["ruleSet"] == RULES
    assert (done["version"], done["schema"]) == (1, V1)
    for answer in (
        client.get("/subjects/c-value/versions/1").get_json(),
        client.get("/subjects/c-value/versions/latest").get_json(),
        client.get(f"/schemas/ids/{done['id']}").get_json(),
        post(
            client, "/subjects/c-value", **body(V1, metadata={**OWNER_A, "sensitive": ["id"]}, ruleSet=RULES)
        ),
        client.get("/schemas?subjectPrefix=c-value").get_json()[0],
    ):
        assert (answer["metadata"], answer["ruleSet"], answer["guid"]) == (
            expected_metadata,
            RULES,
            done["guid"],
        )


def test_other_metadata_or_rules_make_a_new_version_and_the_same_everything_the_existing_one(
    client: FlaskClient,
) -> None:
    first = register(client, "i-value", V1, metadata=OWNER_A)
    assert register(client, "i-value", V1, metadata=OWNER_A) == first
    other_owner = register(client, "i-value", V1, metadata=OWNER_B)
    with_rules = register(client, "i-value", V1, metadata=OWNER_B, ruleSet=RULES)
    assert [first["version"], other_owner["version"], with_rules["version"]] == [1, 2, 3]
    assert len({first["id"], other_owner["id"], with_rules["id"]}) == 3, "Confluent gives each its own id"
    assert len({first["guid"], other_owner["guid"], with_rules["guid"]}) == 3
    plain = register(client, "plain-value", V1)
    assert plain["id"] not in (first["id"], other_owner["id"]) and "metadata" not in plain


def test_a_registration_without_a_contract_carries_the_previous_versions_and_empty_clears_it(
    client: FlaskClient,
) -> None:
    register(client, "f-value", V1, metadata=OWNER_A, ruleSet=RULES)
    again = register(client, "f-value", V1)
    assert (again["version"], again["metadata"], again["ruleSet"]) == (1, OWNER_A, RULES), "the same version"
    evolved = register(client, "f-value", V2)
    assert (evolved["version"], evolved["metadata"], evolved["ruleSet"]) == (2, OWNER_A, RULES)
    found = post(client, "/subjects/f-value", **body(V2))
    assert found["version"] == 2, "a lookup without a contract completes it as a registration would"
    rules_only = register(client, "f-value", V2, metadata={})
    assert rules_only["version"] == 3 and "metadata" not in rules_only and rules_only["ruleSet"] == RULES


def test_a_cached_registration_does_not_outlive_a_newer_version_it_would_carry_from(
    client: FlaskClient,
) -> None:
    first = register(client, "k-value", V1)
    assert register(client, "k-value", V1) == first  # now remembered by this process
    register(client, "k-value", V1, metadata=OWNER_A)
    again = register(client, "k-value", V1)
    assert (again["version"], again["metadata"]) == (2, OWNER_A), "carried from version 2, as Confluent"


def test_global_defaults_and_overrides_merge_around_what_a_version_brings(client: FlaskClient) -> None:
    put = client.put(
        "/config",
        json={
            "defaultMetadata": {"properties": {"owner": "nobody", "tier": "bronze"}},
            "overrideMetadata": {"properties": {"tier": "gold"}},
            "defaultRuleSet": RULES,
        },
    )
    assert put.status_code == 200 and put.get_json()["overrideMetadata"] == {"properties": {"tier": "gold"}}
    config = client.get("/config").get_json()
    assert config["compatibilityLevel"] == "BACKWARD" and config["defaultRuleSet"] == RULES
    done = register(client, "g-value", V1, metadata=OWNER_A)
    assert done["metadata"] == {"properties": {"owner": "team-a", "tier": "gold"}}
    assert done["ruleSet"] == RULES
    assert client.get("/config/g-value?defaultToGlobal=true").get_json() == config
    deleted = client.delete("/config").get_json()
    assert deleted == config, "answers what was in force"
    assert client.get("/config").get_json() == {"compatibilityLevel": "BACKWARD"}


def test_a_subject_config_replaces_the_global_contract_settings_and_a_change_takes_effect_at_once(
    client: FlaskClient,
) -> None:
    client.put("/config", json={"overrideMetadata": OWNER_B})
    register(client, "h-value", V1)
    assert client.get("/subjects/h-value/versions/1").get_json()["metadata"] == OWNER_B
    put = client.put("/config/h-value", json={"compatibility": "NONE", "overrideMetadata": OWNER_A})
    assert put.get_json() == {"compatibility": "NONE", "overrideMetadata": OWNER_A}
    assert client.get("/config/h-value").get_json() == {
        "compatibilityLevel": "NONE",
        "overrideMetadata": OWNER_A,
    }
    again = register(client, "h-value", V1)
    assert (again["version"], again["metadata"]) == (2, OWNER_A), "the cached registration was forgotten"
    cleared = client.put("/config/h-value", json={"overrideMetadata": None}).get_json()
    assert cleared == {"compatibility": "NONE"}
    assert client.get("/config/h-value").get_json() == {"compatibilityLevel": "NONE"}
    assert register(client, "h-value", V2)["metadata"] == OWNER_A, "carried; the global override is hidden"
    assert client.delete("/config/h-value").get_json() == {"compatibilityLevel": "NONE"}
    refused(client.get("/config/h-value"), 404, 40408, "subject-level compatibility")
    only_contract = client.put("/config/h-value", json={"defaultMetadata": OWNER_A}).get_json()
    assert only_contract == {"defaultMetadata": OWNER_A}, "no level of its own"
    assert client.get("/config/h-value").get_json() == {
        "compatibilityLevel": "BACKWARD",
        "defaultMetadata": OWNER_A,
    }


def test_compatibility_is_checked_only_within_the_versions_compatibility_group(client: FlaskClient) -> None:
    client.put("/config/grp-value", json={"compatibilityGroup": "major"})
    register(client, "grp-value", V1, metadata={"properties": {"major": "1"}})
    same_group = client.post(
        "/subjects/grp-value/versions", json=body(V2_BREAKING, metadata={"properties": {"major": "1"}})
    )
    refused(same_group, 409, 409, "session")
    check = post(client, "/compatibility/subjects/grp-value/versions", **body(V2_BREAKING))
    assert check == {"is_compatible": False}, "carried major=1: the registration's answer"
    for path in (
        "/compatibility/subjects/grp-value/versions",
        "/compatibility/subjects/grp-value/versions/1",
    ):
        answer = post(client, path, **body(V2_BREAKING, metadata={"properties": {"major": "2"}}))
        assert answer == {"is_compatible": True}
    next_major = register(client, "grp-value", V2_BREAKING, metadata={"properties": {"major": "2"}})
    assert next_major["version"] == 2
    # carries major=2 from version 2, so it is checked against it
    id_as_text = client.post("/subjects/grp-value/versions", json=body(record(id="string")))
    refused(id_as_text, 409, 409, "PageView.id")
    assert register(client, "grp-value", V2, metadata={"properties": {"major": "1"}})["version"] == 3


def test_the_latest_version_with_metadata(client: FlaskClient) -> None:
    register(client, "m-value", V1, metadata={"properties": {"app": "1", "owner": "a"}})
    register(client, "m-value", V2, metadata={"properties": {"app": "2", "owner": "a"}})
    register(client, "m-value", V2, metadata={"properties": {"app": "1", "owner": "b"}})
    assert client.get("/subjects/m-value/metadata?key=owner&value=a").get_json()["version"] == 2
    both = client.get("/subjects/m-value/metadata?key=app&value=1&key=owner&value=a").get_json()
    assert (both["version"], both["schema"], both["metadata"]["properties"]["owner"]) == (1, V1, "a")
    assert client.get("/subjects/m-value/metadata?key=app&value=1").get_json()["version"] == 3
    assert client.delete("/subjects/m-value/versions/3").status_code == 200
    assert client.get("/subjects/m-value/metadata?key=app&value=1").get_json()["version"] == 1
    assert client.get("/subjects/m-value/metadata?key=app&value=1&deleted=true").get_json()["version"] == 3
    refused(client.get("/subjects/m-value/metadata?key=app&value=9"), 404, 40403, "app=9")
    refused(client.get("/subjects/nobody/metadata?key=app&value=1"), 404, 40401, "nobody")
    refused(client.get("/subjects/m-value/metadata?key=app"), 400, 400, "as many 'value' as 'key'")


def test_guids_identify_contents_across_subjects(client: FlaskClient) -> None:
    a = register(client, "ga-value", V1)
    b = register(client, "gb-value", V1)
    assert a["guid"] == b["guid"] and a["id"] == b["id"]
    assert str(uuid.UUID(a["guid"])) == a["guid"] and uuid.UUID(a["guid"]).version == 8
    by_guid = client.get(f"/schemas/guids/{a['guid']}").get_json()
    assert by_guid == client.get(f"/schemas/ids/{a['id']}").get_json()
    assert client.get(f"/schemas/guids/{a['guid'].upper()}").status_code == 200
    assert client.get(f"/schemas/guids/{a['guid']}/ids").get_json() == [{"context": ".", "id": a["id"]}]
    refused(client.get(f"/schemas/guids/{uuid.uuid4()}"), 404, 40403, "not found")
    refused(client.get("/schemas/guids/not-a-guid/ids"), 404, 40403, "not-a-guid")


def test_only_the_default_context_exists(client: FlaskClient) -> None:
    assert client.get("/contexts").get_json() == ["."]
    assert client.get("/contexts?offset=1").get_json() == []
    done = register(client, ":.:ctx-value", V1)
    assert client.get("/subjects").get_json() == ["ctx-value"], "the default context is the unqualified name"
    assert client.get("/subjects/:.:ctx-value/versions/1").get_json()["id"] == done["id"]
    for resp in (
        client.post("/subjects/:.staging:ctx-value/versions", json=body(V1)),
        client.get("/subjects/:.staging:ctx-value/versions"),
        client.put("/config/:.staging:ctx-value", json={"compatibility": "NONE"}),
    ):
        refused(resp, 422, 42208, "has only the default context '.'")
    assert client.get("/subjects").get_json() == ["ctx-value"]


def test_bad_contracts_are_refused_and_nothing_is_stored(client: FlaskClient) -> None:
    bad_rules = {"domainRules": [{"name": "r", "type": "CEL", "mode": "UPGRADE"}]}
    refused(
        client.post("/subjects/x-value/versions", json=body(V1, ruleSet=bad_rules)),
        422,
        42210,
        "mode UPGRADE",
    )
    refused(
        client.post("/subjects/x-value/versions", json=body(V1, metadata={"properties": {"v": 2}})),
        400,
        400,
        "metadata.properties.v must be a string",
    )
    refused(
        client.post("/subjects/x-value/versions", json=body(V1, schemaTagsToAdd=[{"entityPath": "x"}])),
        400,
        400,
        "'schemaTagsToAdd' is not supported",
    )
    refused(
        client.put("/config", json={"defaultRuleSet": bad_rules}), 422, 42210, "defaultRuleSet.domainRules[0]"
    )
    refused(
        client.put("/config", json={"validateFields": True}), 400, 400, "'validateFields' is not supported"
    )
    assert client.get("/subjects").get_json() == []
    assert client.get("/config").get_json() == {"compatibilityLevel": "BACKWARD"}


def test_import_mode_keeps_the_contract_exactly_as_given(client: FlaskClient) -> None:
    client.put("/config", json={"overrideMetadata": OWNER_B})
    client.put("/mode", json={"mode": "IMPORT"})
    imported = register(client, "imp-value", V1, id=40, version=3, metadata=OWNER_A)
    assert (imported["id"], imported["version"], imported["metadata"]) == (40, 3, OWNER_A)
    bare = register(client, "imp-value", V2, id=41, version=4)
    assert "metadata" not in bare, "nothing carried forward or added in IMPORT mode"
