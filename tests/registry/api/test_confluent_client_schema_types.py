"""confluent-kafka's Protobuf and JSON Schema serdes against the real server, through the real broker:
registration by the serializer (auto-registration, and ``use.latest.version``), references (an imported
``.proto`` under its path, a ``$ref`` to another subject), every record read back equal; and evolutions of
each type accepted and refused through the client."""

from __future__ import annotations

import importlib
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from grpc_tools import protoc

from tests.fixtures.kafka import KafkaBroker
from tests.fixtures.registry_server import RegistryProcess, start_registry
from tests.registry.api.test_schema_types import EVOLUTIONS

pytestmark = pytest.mark.integration

#: The Protobuf package the test generates, and the path its imported file is registered under.
PROTO_PACKAGE = "schema_types_test"
CUSTOMER_PATH = f"{PROTO_PACKAGE}/customer.proto"
PROTOS = {
    CUSTOMER_PATH: f'syntax = "proto3"; package {PROTO_PACKAGE}; message Customer {{ string name = 1; }}',
    f"{PROTO_PACKAGE}/order.proto": f"""syntax = "proto3";
package {PROTO_PACKAGE};
import "google/protobuf/timestamp.proto";
import "{CUSTOMER_PATH}";
message Order {{
  int64 id = 1;
  google.protobuf.Timestamp placed = 2;
  Customer customer = 3;
}}
""",
}
ORDER_JSON = """{"$schema": "http://json-schema.org/draft-07/schema#", "title": "Order", "type": "object",
 "properties": {"id": {"type": "integer"}, "buyer": {"$ref": "person.json"}}, "required": ["id"]}"""
PERSON_JSON = '{"type": "object", "properties": {"name": {"type": "string"}}}'


@pytest.fixture(scope="module")
def registry_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server on SQLite (the storage is the same for every type; both databases are tested with
    Avro's clients in test_confluent_client.py)."""
    workdir = tmp_path_factory.mktemp("registry-schema-types")
    server: RegistryProcess = start_registry(f"sqlite:///{workdir / 'registry.db'}", workdir)
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="module")
def order_pb2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The test's ``.proto`` files compiled to Python by grpc_tools' protoc, and imported."""
    root = tmp_path_factory.mktemp("protos")
    for path, text in PROTOS.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    well_known = Path(protoc.__file__).parent / "_proto"
    argv = ["protoc", f"-I{root}", f"-I{well_known}", f"--python_out={root}", *PROTOS]
    assert protoc.main(argv) == 0
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(f"{PROTO_PACKAGE}.order_pb2")
    finally:
        sys.path.remove(str(root))


def client(registry_url: str) -> SchemaRegistryClient:
    """A new client: nothing cached from the serializer that registered."""
    return SchemaRegistryClient({"url": registry_url})


def through_the_broker(broker: KafkaBroker, payloads: list[bytes]) -> list[bytes]:
    """``payloads`` produced to a new topic and consumed back, in order."""
    topic = broker.create_topic()
    producer = Producer({"bootstrap.servers": broker.bootstrap})
    for payload in payloads:
        producer.produce(topic, value=payload)
    assert producer.flush(30) == 0
    consumer = Consumer(
        {"bootstrap.servers": broker.bootstrap, "group.id": uuid.uuid4().hex, "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    read: list[bytes] = []
    deadline = time.monotonic() + 30
    try:
        while len(read) < len(payloads) and time.monotonic() < deadline:
            message = consumer.poll(1)
            if message is not None and message.error() is None:
                read.append(message.value())
    finally:
        consumer.close()
    return read


def schema_id(payload: bytes) -> int:
    assert payload[0] == 0, "Confluent framing: magic byte 0, then the schema id"
    return int.from_bytes(payload[1:5], "big")


def test_protobuf_serdes_register_an_import_under_its_path_and_read_every_record_back(
    registry_url: str, order_pb2: ModuleType, kafka_broker: KafkaBroker
) -> None:
    topic = f"orders-{uuid.uuid4().hex[:8]}"
    ctx = SerializationContext(topic, MessageField.VALUE)
    orders = [order_pb2.Order(id=n, customer={"name": f"customer {n}"}) for n in (1, 2)]
    orders[0].placed.FromSeconds(1_700_000_000)
    registering = ProtobufSerializer(order_pb2.Order, client(registry_url))
    latest = ProtobufSerializer(
        order_pb2.Order,
        client(registry_url),
        {"auto.register.schemas": False, "use.latest.version": True},
    )
    payloads = [registering(orders[0], ctx), latest(orders[1], ctx)]
    reader = client(registry_url)
    registered = reader.get_latest_version(f"{topic}-value")
    assert {schema_id(payload) for payload in payloads} == {registered.schema_id}
    assert registered.schema.schema_type == "PROTOBUF"
    assert registered.schema.references == [SchemaReference(CUSTOMER_PATH, CUSTOMER_PATH, 1)], (
        "the import registered under its path; the well-known Timestamp needs no reference"
    )
    assert reader.get_referenced_by(CUSTOMER_PATH, 1) == [registered.schema_id]
    deserialize = ProtobufDeserializer(order_pb2.Order, None, client(registry_url))
    assert [deserialize(payload, ctx) for payload in through_the_broker(kafka_broker, payloads)] == orders


def test_json_serdes_resolve_a_ref_to_another_subject_and_read_every_record_back(
    registry_url: str, kafka_broker: KafkaBroker
) -> None:
    topic = f"orders-{uuid.uuid4().hex[:8]}"
    ctx = SerializationContext(topic, MessageField.VALUE)
    person_subject = f"{topic}-person"
    client(registry_url).register_schema(person_subject, Schema(PERSON_JSON, "JSON"))
    order = Schema(ORDER_JSON, "JSON", [SchemaReference("person.json", person_subject, 1)])
    records: list[dict[str, Any]] = [{"id": 1, "buyer": {"name": "Ada"}}, {"id": 2}]
    registering = JSONSerializer(order, client(registry_url))
    latest = JSONSerializer(
        order, client(registry_url), conf={"auto.register.schemas": False, "use.latest.version": True}
    )
    payloads = [registering(records[0], ctx), latest(records[1], ctx)]
    reader = client(registry_url)
    registered = reader.get_latest_version(f"{topic}-value")
    assert {schema_id(payload) for payload in payloads} == {registered.schema_id}
    assert registered.schema.schema_type == "JSON" and registered.schema.references == order.references
    assert reader.get_referenced_by(person_subject, 1) == [registered.schema_id]
    deserialize = JSONDeserializer(None, schema_registry_client=client(registry_url))
    assert [deserialize(payload, ctx) for payload in through_the_broker(kafka_broker, payloads)] == records


@pytest.mark.parametrize(
    ("schema_type", "v1", "compatible", "breaking", "path"), EVOLUTIONS, ids=[e[0] for e in EVOLUTIONS]
)
def test_an_evolution_of_each_type_is_accepted_and_a_breaking_one_refused_naming_the_path(
    registry_url: str, schema_type: str, v1: str, compatible: str, breaking: str, path: str
) -> None:
    subject = f"evolving-{uuid.uuid4().hex[:8]}"
    sr = client(registry_url)
    first = sr.register_schema(subject, Schema(v1, schema_type))
    assert sr.test_compatibility(subject, Schema(breaking, schema_type)) is False
    with pytest.raises(SchemaRegistryError) as refused:
        sr.register_schema(subject, Schema(breaking, schema_type))
    assert (refused.value.http_status_code, refused.value.error_code) == (409, 409)
    assert path in refused.value.error_message
    assert sr.register_schema(subject, Schema(compatible, schema_type)) > first
    assert sr.get_versions(subject) == [1, 2]
