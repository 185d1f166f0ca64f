"""The real client against the real server: confluent-kafka's SchemaRegistryClient and Avro serdes, on
SQLite and on PostgreSQL (data contracts, GUIDs and contexts: test_confluent_client_contracts.py)."""

from __future__ import annotations

import json
import uuid

import pytest
from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.serialization import MessageField, SerializationContext

from tests.fixtures.registry_server import RegistryProcess
from tests.registry.api.helpers import record

pytestmark = pytest.mark.integration

V1 = record(id="long", url="string")
V2 = record(id="long", url="string", referrer=(["null", "string"], None), weight=("double", 1.5))
V3_BREAKING = record(id="long", url="string", session="string")


@pytest.fixture
def registry_url(served_registry: RegistryProcess) -> str:
    return served_registry.url


@pytest.fixture
def client(registry_url: str) -> SchemaRegistryClient:
    return SchemaRegistryClient({"url": registry_url})


@pytest.fixture
def topic() -> str:
    return f"page.views/{uuid.uuid4().hex[:8]}"


def test_register_lookup_versions_and_get_by_id(
    client: SchemaRegistryClient, topic: str, registry_url: str
) -> None:
    subject = f"{topic}-value"
    first = client.register_schema(subject, Schema(V1, "AVRO"))
    second = client.register_schema(subject, Schema(V2, "AVRO"))
    assert second > first
    assert (
        SchemaRegistryClient({"url": registry_url}).register_schema(subject, Schema(V1, "AVRO")) == first
    ), "a fresh client re-registering gets the existing id"
    found = client.lookup_schema(subject, Schema(V1, "AVRO"))
    assert (found.schema_id, found.version, found.subject) == (first, 1, subject)
    assert client.get_versions(subject) == [1, 2]
    latest = client.get_latest_version(subject)
    assert (latest.version, latest.schema_id) == (2, second)
    assert json.loads(client.get_version(subject, 1).schema.schema_str) == json.loads(V1)
    assert json.loads(client.get_schema(second).schema_str) == json.loads(V2)
    assert subject in client.get_subjects()
    assert subject in client.get_subjects_by_schema_id(first), "other tests may share the schema"
    assert client.get_schema_types() == ["AVRO", "JSON", "PROTOBUF"]


def test_compatibility_settings_and_tests(client: SchemaRegistryClient, topic: str) -> None:
    subject = f"{topic}-value"
    client.register_schema(subject, Schema(V1, "AVRO"))
    assert client.test_compatibility(subject, Schema(V2, "AVRO")) is True
    assert client.test_compatibility(subject, Schema(V3_BREAKING, "AVRO")) is False
    with pytest.raises(SchemaRegistryError) as refused:
        client.register_schema(subject, Schema(V3_BREAKING, "AVRO"))
    assert refused.value.http_status_code == 409 and refused.value.error_code == 409
    assert "session" in refused.value.error_message
    assert client.set_compatibility(subject, "NONE") == {"compatibility": "NONE"}
    assert client.get_compatibility(subject) == "NONE"
    assert client.test_compatibility(subject, Schema(V3_BREAKING, "AVRO")) is True
    assert client.register_schema(subject, Schema(V3_BREAKING, "AVRO")) > 0
    with pytest.raises(SchemaRegistryError) as no_config:
        client.get_compatibility(f"{topic}-key")
    assert no_config.value.error_code == 40408


def test_delete_soft_then_permanent(client: SchemaRegistryClient, topic: str) -> None:
    subject = f"{topic}-value"
    schema_id = client.register_schema(subject, Schema(V1, "AVRO"))
    client.register_schema(subject, Schema(V2, "AVRO"))
    assert client.delete_version(subject, 2) == 2
    assert client.get_versions(subject) == [1]
    assert client.delete_version(subject, 2, permanent=True) == 2
    with pytest.raises(SchemaRegistryError) as hard_first:
        client.delete_subject(subject, permanent=True)
    assert hard_first.value.error_code == 40405
    assert client.delete_subject(subject) == [1]
    assert subject not in client.get_subjects()
    assert client.delete_subject(subject, permanent=True) == [1]
    with pytest.raises(SchemaRegistryError) as gone:
        client.get_versions(subject)
    assert gone.value.error_code == 40401
    assert json.loads(client.get_schema(schema_id).schema_str) == json.loads(V1), "ids outlive subjects"


def test_serializer_v1_deserializer_latest_fills_defaults(
    client: SchemaRegistryClient, topic: str, registry_url: str
) -> None:
    ctx = SerializationContext(topic, MessageField.VALUE)
    serialize_v1 = AvroSerializer(client, V1)
    payload = serialize_v1({"id": 7, "url": "/home"}, ctx)
    assert payload[0] == 0, "Confluent framing: magic byte 0, then the schema id"
    writer_id = int.from_bytes(payload[1:5], "big")
    assert client.get_latest_version(f"{topic}-value").schema_id == writer_id, "auto-registered"
    client.register_schema(f"{topic}-value", Schema(V2, "AVRO"))
    fresh = SchemaRegistryClient({"url": registry_url})  # no cached "latest"
    reader = AvroDeserializer(fresh, conf={"use.latest.version": True})
    assert reader(payload, ctx) == {"id": 7, "url": "/home", "referrer": None, "weight": 1.5}
    assert AvroDeserializer(client, V2)(payload, ctx) == {
        "id": 7,
        "url": "/home",
        "referrer": None,
        "weight": 1.5,
    }
    assert AvroDeserializer(client)(payload, ctx) == {"id": 7, "url": "/home"}, "writer schema by id"


def test_modes_per_subject_and_global(client: SchemaRegistryClient, topic: str) -> None:
    subject = f"{topic}-value"
    client.register_schema(subject, Schema(V1, "AVRO"))
    assert client.get_global_mode() == "READWRITE"
    with pytest.raises(SchemaRegistryError) as no_mode:
        client.get_mode(subject)
    assert no_mode.value.error_code == 40409
    assert client.update_mode(subject, "READONLY") == "READONLY"
    assert client.get_mode(subject) == "READONLY"
    with pytest.raises(SchemaRegistryError) as read_only:
        client.register_schema(subject, Schema(V2, "AVRO"))
    assert read_only.value.error_code == 42205
    assert client.delete_mode(subject) == "READONLY"
    assert client.update_global_mode("READONLY") == "READONLY"
    try:
        assert client.get_global_mode() == "READONLY"
        with pytest.raises(SchemaRegistryError) as everywhere:
            client.register_schema(subject, Schema(V2, "AVRO"))
        assert everywhere.value.error_code == 42205
    finally:
        assert client.update_global_mode("READWRITE") == "READWRITE"
    assert client.register_schema(subject, Schema(V2, "AVRO")) > 0


def test_references_and_referenced_by(client: SchemaRegistryClient, topic: str) -> None:
    address = json.dumps(
        {
            "type": "record",
            "name": "Address",
            "namespace": "com.example",
            "fields": [{"name": "city", "type": "string"}],
        }
    )
    person = json.dumps(
        {
            "type": "record",
            "name": "Person",
            "namespace": "com.example",
            "fields": [{"name": "home", "type": "Address"}],
        }
    )
    client.register_schema(f"{topic}-address", Schema(address, "AVRO"))
    reference = SchemaReference("com.example.Address", f"{topic}-address", 1)
    person_id = client.register_schema(f"{topic}-value", Schema(person, "AVRO", [reference]))
    assert client.get_referenced_by(f"{topic}-address", 1) == [person_id]
    assert SchemaRegistryClient({"url": client.config()["url"]}).get_schema(person_id).references == [
        reference
    ]
    with pytest.raises(SchemaRegistryError) as referenced:
        client.delete_version(f"{topic}-address", 1)
    assert referenced.value.error_code == 42206
