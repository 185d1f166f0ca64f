"""Hostile and malformed input: always a 4xx with a JSON error body, never a 5xx or an HTML page."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from google.protobuf.descriptor_pb2 import FileDescriptorProto

from registry.api import create_app
from registry.config import RegistryConfig
from tests.registry.api.helpers import CT, body, record

V1 = record(id="long")


def assert_error(resp, status: int, code: int) -> None:  # type: ignore[no-untyped-def]
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.content_type == CT
    assert resp.get_json()["error_code"] == code
    assert resp.get_json()["message"]


def test_unknown_route_and_wrong_method_answer_json(client: FlaskClient) -> None:
    assert_error(client.get("/no/such/route"), 404, 404)
    assert_error(client.put("/subjects"), 405, 405)
    assert_error(client.patch("/config"), 405, 405)


def test_oversized_body_is_413(client: FlaskClient) -> None:
    assert_error(client.post("/subjects/s/versions", data=b"x" * (65 * 1024), content_type=CT), 413, 413)


def test_oversized_schema_is_42209(client: FlaskClient) -> None:
    big = json.dumps({"type": "enum", "name": "E", "symbols": [f"S{i}" for i in range(3000)]})
    assert_error(client.post("/subjects/s/versions", json=body(big)), 422, 42209)


def test_deep_nesting_is_refused_before_parsing(client: FlaskClient) -> None:
    assert_error(client.post("/subjects/s/versions", data="[" * 10_000, content_type=CT), 400, 400)
    deep_schema = '{"type":' * 40 + '"int"' + "}" * 40
    assert_error(client.post("/subjects/s/versions", json=body(deep_schema)), 422, 42201)


@pytest.mark.parametrize(
    "raw",
    [b"{not json", b"\xff\xfe\x00", b"", b"[1, 2]", b'"a string"', b'{"schema": 42}', b'{"schema": ""}'],
)
def test_malformed_bodies(client: FlaskClient, raw: bytes) -> None:
    resp = client.post("/subjects/s/versions", data=raw, content_type=CT)
    assert resp.status_code in (400, 422)
    assert resp.get_json()["error_code"] in (400, 42201)


def test_invalid_avro_and_unsupported_types_are_42201(client: FlaskClient) -> None:
    assert_error(client.post("/subjects/s/versions", json=body('{"type": "recor"}')), 422, 42201)
    bad_default = record(id=("long", "not a number"))
    assert_error(client.post("/subjects/s/versions", json=body(bad_default)), 422, 42201)
    resp = client.post("/subjects/s/versions", json=body("<schema/>", schemaType="XML"))
    assert_error(resp, 422, 42201)
    assert "stores AVRO, JSON, PROTOBUF schemas only" in resp.get_json()["message"]


def _nested_messages(depth: int) -> str:
    return 'syntax = "proto3"; ' + "".join(f"message M{i} {{ " for i in range(depth)) + "}" * depth


def _descriptor(nesting: int = 1, package: bytes = b"shop") -> str:
    """A base64 ``FileDescriptorProto`` (what confluent-kafka's serializer sends), built by hand: messages
    nested ``nesting`` deep, in ``package`` (any bytes, as a hostile client may send)."""
    file = FileDescriptorProto(name="x.proto", syntax="proto3")
    message = file.message_type.add(name="M0")
    for depth in range(1, nesting):
        message = message.nested_type.add(name=f"M{depth}")
    raw = file.SerializeToString() + b"\x12" + bytes([len(package)]) + package  # field 2: the package
    return base64.b64encode(raw).decode()


JSON_LOOP = {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}
#: (schemaType, schema, what the 42201's message says): hostile schemas of each type, each refused clearly.
REFUSED = [
    ("PROTOBUF", _nested_messages(32), "maximum recursion limit for nested messages"),
    ("PROTOBUF", _descriptor(nesting=40), "maximum recursion limit for nested messages"),
    ("PROTOBUF", _descriptor(package=b"sh\xffop"), "Invalid symbol name"),
    ("PROTOBUF", 'syntax = "proto3"; message M { string s = 1 [json_name = "\udcff"]; }', "'schema'"),
    ("PROTOBUF", 'syntax = "proto3"; message M { Missing m = 1; }', '"Missing" is not defined'),
    ("PROTOBUF", 'import "shop/customer.proto"; message M {}', 'name a reference "shop/customer.proto"'),
    ("PROTOBUF", "bm90IGEgc2NoZW1h", "neither .proto text nor a base64-encoded FileDescriptorProto"),
    ("JSON", '{"properties": {"a": ' * 40 + "{}" + "}}" * 40, "nested deeper than 32 levels"),
    ("JSON", json.dumps(JSON_LOOP), "is a loop"),
    ("JSON", '{"title": "\\udcff"}', "lone surrogate U+DCFF"),
    ("JSON", '{"$ref": "customer.json"}', "add a reference named 'customer.json'"),
    ("JSON", '{"type": "strin"}', "not valid draft-07"),
]


@pytest.mark.parametrize(("schema_type", "schema", "said"), REFUSED)
def test_hostile_protobuf_and_json_schemas_are_a_clear_42201(
    client: FlaskClient, schema_type: str, schema: str, said: str
) -> None:
    started = time.monotonic()
    resp = client.post("/subjects/s/versions", json=body(schema, schemaType=schema_type))
    assert_error(resp, 422, 42201)
    assert said in resp.get_json()["message"]
    assert time.monotonic() - started < 5


def test_recursive_types_and_huge_enums_of_each_type_are_registered_and_compared(tmp_path: Path) -> None:
    roomy = RegistryConfig(database_url=f"sqlite:///{tmp_path / 'r.db'}", max_body_bytes=2 * 1024 * 1024)
    client = create_app(roomy).test_client()
    node = 'syntax = "proto3"; message Node { Node next = 1; repeated Node kids = 2; %s }'
    tree = '{"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}%s}}'
    symbols = " ".join(f"V{i} = {i};" for i in range(20_000))
    schemas = [
        ("PROTOBUF", node % "", node % "string label = 3;"),
        ("JSON", tree % ', "label": {"type": "string"}', tree % ""),
        (
            "PROTOBUF",
            f'syntax = "proto3"; enum Big {{ {symbols} }}',
            f'syntax = "proto3"; enum Big {{ {symbols} V = 20000; }}',
        ),
        ("JSON", json.dumps({"enum": list(range(50_000))}), json.dumps({"enum": list(range(50_001))})),
    ]
    started = time.monotonic()
    for number, (schema_type, first, second) in enumerate(schemas):
        for schema in (first, second):
            resp = client.post(f"/subjects/s{number}/versions", json=body(schema, schemaType=schema_type))
            assert resp.status_code == 200, resp.get_json()
    assert time.monotonic() - started < 20


@pytest.mark.parametrize("subject", ["bad%00name", "tab%09name", "nl%0Aname", "%7F", "%20%20"])
def test_control_characters_and_blank_subjects_are_42208(client: FlaskClient, subject: str) -> None:
    assert_error(client.post(f"/subjects/{subject}/versions", json=body(V1)), 422, 42208)
    assert_error(client.get(f"/subjects/{subject}/versions"), 422, 42208)


def test_overlong_subject_is_42208(client: FlaskClient) -> None:
    assert_error(client.get("/subjects/" + "s" * 300 + "/versions"), 422, 42208)


@pytest.mark.parametrize("schema_id", ["-1", "0", "2147483648", "99999999999999999999", "1e3", "abc"])
def test_negative_and_huge_ids_are_not_found(client: FlaskClient, schema_id: str) -> None:
    assert_error(client.get(f"/schemas/ids/{schema_id}"), 404, 40403)


@pytest.mark.parametrize("version", ["-2", "0", "2147483648", "99999999999999999999", "1.5", "LATEST"])
def test_negative_and_huge_versions_are_42202(client: FlaskClient, version: str) -> None:
    client.post("/subjects/v-value/versions", json=body(V1))
    assert_error(client.get(f"/subjects/v-value/versions/{version}"), 422, 42202)
    assert_error(client.delete(f"/subjects/v-value/versions/{version}"), 422, 42202)


@pytest.mark.parametrize("flag", ["maybe", "yes please", "2", "1", "null", ""])
def test_unparseable_boolean_flags_are_400(client: FlaskClient, flag: str) -> None:
    assert_error(client.get(f"/subjects?deleted={flag}"), 400, 400)


@pytest.mark.parametrize("query", ["offset=-1", "limit=-2", "offset=x", "limit=99999999999", "offset="])
def test_bad_pagination_is_400(client: FlaskClient, query: str) -> None:
    assert_error(client.get(f"/subjects?{query}"), 400, 400)


def test_wrongly_typed_body_fields_are_refused(client: FlaskClient) -> None:
    for extra in ({"schemaType": {}}, {"schemaType": 1}, {"references": ""}, {"references": [{"name": 1}]}):
        assert_error(client.post("/subjects/s/versions", json=body(V1, **extra)), 422, 42201)
    assert (
        client.post("/subjects/s/versions", json=body(V1, schemaType=None, references=None)).status_code
        == 200
    )


def test_out_of_range_ids_in_import_bodies_are_400(client: FlaskClient) -> None:
    client.put("/mode", json={"mode": "IMPORT"})
    for bad in (-1, 0, 2**40, "7", True):
        assert_error(client.post("/subjects/s/versions", json=body(V1, id=bad)), 400, 400)


def test_limits_are_configurable(client: FlaskClient, app_config) -> None:  # type: ignore[no-untyped-def]
    assert app_config.max_body_bytes == 64 * 1024, "the fixture lowered the default limit"
    just_under = body(V1, padding="x" * (60 * 1024))
    assert client.post("/subjects/s/versions", json=just_under).status_code == 200


def test_bench_endpoint_only_exists_when_enabled(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from registry.api import create_app
    from registry.config import RegistryConfig

    off = create_app(RegistryConfig(database_url=f"sqlite:///{tmp_path / 'a.db'}")).test_client()
    assert_error(off.get("/_bench/empty"), 404, 404)
    on = create_app(RegistryConfig(database_url=f"sqlite:///{tmp_path / 'b.db'}", enable_bench_endpoint=True))
    assert on.test_client().get("/_bench/empty").get_json() == {}
