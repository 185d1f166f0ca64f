"""Protobuf and JSON Schema beside Avro through the API: types in answers, formats, identity and
normalize, references, compatibility within a type and the refusal of a type change."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from flask.testing import FlaskClient
from google.protobuf.descriptor_pb2 import FileDescriptorProto

from tests.registry.api.helpers import body, record

CUSTOMER = 'syntax = "proto3";\npackage shop;\n\nmessage Customer {\n  string name = 1;\n}\n'
ORDER = """syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";

message Order {
  int64 id = 1;
  google.protobuf.Timestamp placed = 2;
}
"""
ORDER_REORDERED = """syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
message Order {
  google.protobuf.Timestamp placed = 2;   // declared first here
  int64 id = 1;
}
"""
PERSON = {"type": "object", "properties": {"name": {"type": "string"}}}


def post(client: FlaskClient, path: str, schema: str, schema_type: str, **extra: Any) -> dict[str, Any]:
    answer = client.post(path, json=body(schema, schemaType=schema_type, **extra))
    return {"status": answer.status_code, **answer.get_json()}


def registered(client: FlaskClient, subject: str, schema: str, schema_type: str, **extra: Any) -> int:
    answer = post(client, f"/subjects/{subject}/versions", schema, schema_type, **extra)
    assert answer["status"] == 200, answer
    return int(answer["id"])


def test_each_type_is_answered_with_its_schema_type_avro_without_one(client: FlaskClient) -> None:
    ids = {
        "AVRO": registered(client, "a", record(id="long"), "AVRO"),
        "JSON": registered(client, "j", json.dumps(PERSON), "JSON"),
        "PROTOBUF": registered(client, "p", CUSTOMER, "PROTOBUF"),
    }
    assert sorted(ids.values()) == [1, 2, 3], "one global id space"
    for schema_type, schema_id in ids.items():
        for path in (f"/schemas/ids/{schema_id}", f"/subjects/{schema_type[0].lower()}/versions/1"):
            answer = client.get(path).get_json()
            assert answer.get("schemaType") == (None if schema_type == "AVRO" else schema_type), path
    assert {s.get("schemaType") for s in client.get("/schemas").get_json()} == {None, "JSON", "PROTOBUF"}
    found = post(client, "/subjects/p", CUSTOMER, "PROTOBUF")
    assert (found["id"], found["version"], found["schemaType"]) == (ids["PROTOBUF"], 1, "PROTOBUF")
    assert post(client, "/subjects/p", CUSTOMER, "JSON")["error_code"] == 42201, "not JSON"


def test_format_serialized_gives_a_protobuf_schema_s_descriptor_and_changes_no_other(
    client: FlaskClient,
) -> None:
    proto_id = registered(client, "p", CUSTOMER, "PROTOBUF")
    avro_id = registered(client, "a", record(id="long"), "AVRO")
    paths = [
        f"/schemas/ids/{proto_id}?format=serialized",
        "/subjects/p/versions/1?format=serialized",
        "/subjects/p/versions/latest?format=serialized",
    ]
    for path in paths:
        descriptor = FileDescriptorProto.FromString(base64.b64decode(client.get(path).get_json()["schema"]))
        assert (descriptor.package, descriptor.message_type[0].name) == ("shop", "Customer"), path
    text = client.get(f"/schemas/ids/{proto_id}/schema?format=serialized").get_data(as_text=True)
    assert FileDescriptorProto.FromString(base64.b64decode(text)).message_type[0].name == "Customer"
    assert post(client, "/subjects/p?format=serialized", CUSTOMER, "PROTOBUF")["schema"] == text
    as_stored = {"schema": CUSTOMER, "schemaType": "PROTOBUF"}
    for fmt in ("", "ignore_extensions", "no-such-format"):
        assert client.get(f"/schemas/ids/{proto_id}?format={fmt}").get_json().items() >= as_stored.items()
    avro = client.get(f"/schemas/ids/{avro_id}?format=serialized").get_json()
    assert avro["schema"] == record(id="long"), "Avro has no serialized format: the text as stored"


def test_a_text_and_a_descriptor_of_one_protobuf_schema_are_one_version_and_id(client: FlaskClient) -> None:
    first = registered(client, "p", CUSTOMER, "PROTOBUF")
    relaid = "// the same\nsyntax='proto3'; package shop; message Customer { string name = 1; }"
    assert registered(client, "p", relaid, "PROTOBUF") == first
    descriptor = client.get(f"/schemas/ids/{first}?format=serialized").get_json()["schema"]
    again = post(client, "/subjects/p/versions", descriptor, "PROTOBUF")
    assert (again["id"], again["version"]) == (first, 1)
    spaced = json.dumps(PERSON, indent=4)
    assert registered(client, "j", json.dumps(PERSON), "JSON") == registered(client, "j", spaced, "JSON")
    assert client.get("/subjects/j/versions").get_json() == [1]


def test_a_protobuf_schema_sent_as_a_descriptor_is_stored_and_answered_as_proto_text(
    client: FlaskClient,
) -> None:
    """As Confluent stores it: what confluent-kafka's Protobuf serializer registers (a base64
    descriptor) reads back as `.proto` text, and as the descriptor with `format=serialized`."""
    parsed_id = registered(client, "text-first", ORDER, "PROTOBUF")
    descriptor = client.get(f"/schemas/ids/{parsed_id}?format=serialized").get_json()["schema"]
    sent = registered(client, "descriptor-first", descriptor, "PROTOBUF")
    assert sent == parsed_id  # one schema, one id
    for path in ("/subjects/descriptor-first/versions/1", f"/schemas/ids/{sent}"):
        answered = client.get(path).get_json()["schema"]
        assert answered.startswith('syntax = "proto3";') and "message Order {" in answered, answered
    raw = client.get("/subjects/descriptor-first/versions/1/schema").get_data(as_text=True)
    assert 'import "google/protobuf/timestamp.proto";' in raw
    served = client.get("/subjects/descriptor-first/versions/1?format=serialized").get_json()["schema"]
    assert FileDescriptorProto.FromString(base64.b64decode(served)) == FileDescriptorProto.FromString(
        base64.b64decode(descriptor)
    )


def test_normalize_stores_confluent_s_normalized_protobuf_and_dedupes_what_normalizes_alike(
    client: FlaskClient,
) -> None:
    plain = registered(client, "plain", ORDER, "PROTOBUF")
    assert registered(client, "plain", ORDER_REORDERED, "PROTOBUF") != plain, "declaration order counts"
    normalized = post(client, "/subjects/n/versions?normalize=true", ORDER_REORDERED, "PROTOBUF")["id"]
    stored = client.get(f"/schemas/ids/{normalized}/schema").get_data(as_text=True)
    assert stored.index("int64 id = 1") < stored.index("placed = 2"), "fields by number"
    assert "// declared first" not in stored
    answer = post(client, "/subjects/n/versions?normalize=true", ORDER, "PROTOBUF")
    assert (answer["id"], answer["version"]) == (normalized, 1)
    assert post(client, "/subjects/n?normalize=true", ORDER, "PROTOBUF")["id"] == normalized


REFERENCED = {
    "PROTOBUF": ("shop/customer.proto", CUSTOMER),
    "JSON": ("person.json", json.dumps(PERSON)),
}
REFERRING = {
    "PROTOBUF": 'syntax = "proto3"; package shop; import "shop/customer.proto";'
    " message Order { Customer customer = 1; }",
    "JSON": json.dumps({"type": "object", "properties": {"buyer": {"$ref": "person.json"}}}),
}


@pytest.mark.parametrize("schema_type", ["PROTOBUF", "JSON"])
def test_references_resolve_imports_and_refs_by_name_and_protect_what_they_name(
    client: FlaskClient, schema_type: str
) -> None:
    name, referenced = REFERENCED[schema_type]
    subject = name.replace("/", "%2F")  # a Protobuf serializer's subject for an imported file: its path
    registered(client, subject, referenced, schema_type)
    refs = [{"name": name, "subject": name, "version": 1}]
    missing = post(client, "/subjects/orders/versions", REFERRING[schema_type], schema_type)
    assert missing["error_code"] == 42201 and name in missing["message"], "no reference of that name"
    order_id = registered(client, "orders", REFERRING[schema_type], schema_type, references=refs)
    assert client.get(f"/schemas/ids/{order_id}").get_json()["references"] == refs
    assert client.get(f"/subjects/{subject}/versions/1/referencedby").get_json() == [order_id]
    assert client.delete(f"/subjects/{subject}/versions/1").get_json()["error_code"] == 42206
    assert client.delete(f"/subjects/{subject}").get_json()["error_code"] == 42206
    assert client.delete("/subjects/orders/versions/1").status_code == 200
    assert client.delete(f"/subjects/{subject}/versions/1").get_json() == 1, "no live schema names it"


#: (schemaType, version 1, a compatible version 2, an incompatible version 2, what the refusal names)
EVOLUTIONS = [
    (
        "PROTOBUF",
        CUSTOMER,
        CUSTOMER.replace("}", "  string email = 2;\n}"),
        CUSTOMER.replace("string name = 1", "int64 name = 1"),
        "Customer.name",
    ),
    (
        "JSON",
        json.dumps({**PERSON, "additionalProperties": False}),
        json.dumps({**PERSON, "properties": {**PERSON["properties"], "age": {"type": "integer"}}}),
        json.dumps({**PERSON, "properties": {"name": {"type": "integer"}}}),
        "name",
    ),
]


@pytest.mark.parametrize(
    ("schema_type", "v1", "compatible", "breaking", "path"), EVOLUTIONS, ids=[e[0] for e in EVOLUTIONS]
)
def test_compatibility_within_a_type_names_the_path_the_rule_and_the_fix(
    client: FlaskClient, schema_type: str, v1: str, compatible: str, breaking: str, path: str
) -> None:
    registered(client, "s", v1, schema_type)
    check = "/compatibility/subjects/s/versions?verbose=true"
    assert post(client, check, compatible, schema_type)["is_compatible"] is True
    verdict = post(client, check, breaking, schema_type)
    assert verdict["is_compatible"] is False
    assert any(path in message and "fix:" in message for message in verdict["messages"]), verdict
    refused = post(client, "/subjects/s/versions", breaking, schema_type)
    assert (refused["status"], refused["error_code"]) == (409, 409) and path in refused["message"]
    assert registered(client, "s", compatible, schema_type) > 0


def test_another_type_under_a_subject_is_refused_unless_its_level_is_none(client: FlaskClient) -> None:
    registered(client, "s", record(id="long"), "AVRO")
    verdict = post(client, "/compatibility/subjects/s/versions/latest?verbose=true", CUSTOMER, "PROTOBUF")
    assert verdict["is_compatible"] is False
    assert (
        "SCHEMA_TYPE_CHANGED" in verdict["messages"][0] and "from AVRO to PROTOBUF" in verdict["messages"][0]
    )
    refused = post(client, "/subjects/s/versions", CUSTOMER, "PROTOBUF")
    assert refused["error_code"] == 409 and "from AVRO to PROTOBUF" in refused["message"]
    client.put("/config/s", json={"compatibility": "FORWARD_TRANSITIVE"})
    assert "from AVRO to JSON" in post(client, "/subjects/s/versions", "{}", "JSON")["message"]
    client.put("/config/s", json={"compatibility": "NONE"})
    assert registered(client, "s", CUSTOMER, "PROTOBUF") > 0
    assert client.get("/subjects/s/versions/2").get_json()["schemaType"] == "PROTOBUF"


def test_a_protobuf_schema_carries_a_data_contract_as_avro_does(client: FlaskClient) -> None:
    contract = {
        "metadata": {"properties": {"owner": "shop"}},
        "ruleSet": {"domainRules": [{"name": "named", "kind": "CONDITION", "type": "CEL", "expr": "true"}]},
    }
    schema_id = registered(client, "p", CUSTOMER, "PROTOBUF", **contract)
    answer = client.get("/subjects/p/metadata?key=owner&value=shop&format=serialized").get_json()
    assert (answer["id"], answer["metadata"], answer["ruleSet"]["domainRules"][0]["name"]) == (
        schema_id,
        contract["metadata"],
        "named",
    )
    assert FileDescriptorProto.FromString(base64.b64decode(answer["schema"])).package == "shop"
    assert registered(client, "p", CUSTOMER, "PROTOBUF") == schema_id, "the contract is carried forward"
