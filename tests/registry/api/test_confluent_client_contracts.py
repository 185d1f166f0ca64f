"""Today's confluent-kafka client against a real `registry serve`, on SQLite and on PostgreSQL: data
contracts (metadata, rule sets, config defaults and overrides, compatibility groups), lookups by metadata,
GUIDs (also in record headers), contexts, Avro 1.12 union defaults, and the methods that still answer 4xx.

Every call goes over HTTP through ``SchemaRegistryClient``; reads use fresh clients where the client would
otherwise answer from its own cache, so each assertion is about what the server stored.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from confluent_kafka.schema_registry import (
    Metadata,
    Rule,
    RuleSet,
    Schema,
    SchemaRegistryClient,
    ServerConfig,
    header_schema_id_serializer,
)
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.common.schema_registry_client import (
    AssociationCreateOrUpdateRequest,
    MetadataProperties,
    RuleKind,
    RuleMode,
    RuleParams,
)
from confluent_kafka.schema_registry.common.serde import RuleConditionError
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.schema_registry.rules.cel.cel_executor import CelExecutor
from confluent_kafka.serialization import MessageField, SerializationContext, SerializationError

from tests.fixtures.registry_server import RegistryProcess
from tests.registry.api.helpers import record

pytestmark = pytest.mark.integration

V1 = record("Payment", id="long", amount="double")
V2 = record("Payment", id="long", amount="double", currency=("string", "EUR"))
V2_NEW_MAJOR = record("Payment", id="string", amount="double")  # incompatible with V1 and V2


def metadata(sensitive: list[str] | None = None, **props: str) -> Metadata:
    """As the client reads metadata back: no tags, the properties, the sensitive names."""
    return Metadata(tags=None, properties=MetadataProperties(dict(props)), sensitive=sensitive or [])


def positive_amount(on_failure: str = "ERROR") -> Rule:
    return Rule(
        name="positiveAmount",
        doc="payments move money",
        kind=RuleKind.CONDITION,
        mode=RuleMode.WRITE,
        type="CEL",
        tags=["FIN"],
        params=RuleParams({"reason": "amount"}),
        expr="message.amount > 0.0",
        on_success="NONE",
        on_failure=on_failure,
        disabled=False,
    )


def upgrade_rule() -> Rule:
    return Rule(
        name="renameNothing",
        doc=None,
        kind=RuleKind.TRANSFORM,
        mode=RuleMode.UPGRADE,
        type="JSONATA",
        tags=None,
        params=None,
        expr="$",
        on_success=None,
        on_failure=None,
        disabled=True,
    )


@pytest.fixture
def url(served_registry: RegistryProcess) -> str:
    return served_registry.url


@pytest.fixture
def client(url: str) -> Iterator[SchemaRegistryClient]:
    with SchemaRegistryClient({"url": url}) as made:
        yield made


def fresh(url: str) -> SchemaRegistryClient:
    """A client with empty caches: what it returns comes from the server."""
    return SchemaRegistryClient({"url": url})


@pytest.fixture
def subject() -> str:
    return f"payments.{uuid.uuid4().hex[:8]}-value"


def test_a_contract_round_trips_through_every_read(
    client: SchemaRegistryClient, url: str, subject: str
) -> None:
    # No tags: the client's cache hashes a Schema, and MetadataTags holds lists (TypeError in 2.16);
    # tags are stored and returned all the same (test_data_contracts.py, over HTTP).
    contract = metadata(sensitive=["id"], owner="payments", major="1")
    rules = RuleSet(migration_rules=[upgrade_rule()], domain_rules=[positive_amount()], encoding_rules=[])
    schema = Schema(V1, "AVRO", metadata=contract, rule_set=rules)
    done = client.register_schema_full_response(subject, schema)
    assert done.version == 1 and str(uuid.UUID(done.guid)) == done.guid
    assert (done.schema.metadata, done.schema.rule_set) == (contract, rules)
    reader = fresh(url)
    by_id = reader.get_schema(done.schema_id)
    latest = reader.get_latest_version(subject)
    numbered = reader.get_version(subject, 1)
    by_guid = fresh(url).get_schema_by_guid(done.guid)
    found = fresh(url).lookup_schema(subject, schema)
    for got in (by_id, latest.schema, numbered.schema, by_guid):
        assert (got.metadata, got.rule_set) == (contract, rules)
        assert json.loads(got.schema_str) == json.loads(V1)
    assert latest.guid == numbered.guid == done.guid
    assert (found.schema_id, found.version, found.guid) == (done.schema_id, 1, done.guid)
    assert reader.get_subjects_by_schema_id(done.schema_id) == [subject]
    assert [(v.subject, v.version) for v in reader.get_schema_versions(done.schema_id)] == [(subject, 1)]


def test_other_metadata_is_another_version_and_no_metadata_carries_the_previous(
    client: SchemaRegistryClient, url: str, subject: str
) -> None:
    first = client.register_schema(subject, Schema(V1, "AVRO", metadata=metadata(owner="a")))
    assert fresh(url).register_schema(subject, Schema(V1, "AVRO", metadata=metadata(owner="a"))) == first
    second = fresh(url).register_schema_full_response(
        subject, Schema(V1, "AVRO", metadata=metadata(owner="b"))
    )
    assert second.schema_id != first and second.version == 2
    carried = fresh(url).register_schema_full_response(subject, Schema(V2, "AVRO"))
    assert carried.version == 3 and carried.schema.metadata == metadata(owner="b")
    again = fresh(url).register_schema_full_response(subject, Schema(V2, "AVRO"))
    assert (again.schema_id, again.version) == (carried.schema_id, 3), "the same everything: the same version"
    assert fresh(url).lookup_schema(subject, Schema(V2, "AVRO")).version == 3
    assert fresh(url).get_versions(subject) == [1, 2, 3]


def test_config_defaults_overrides_and_compatibility_group(
    client: SchemaRegistryClient, subject: str
) -> None:
    config = ServerConfig(
        compatibility_group="major",
        default_metadata=metadata(owner="nobody", major="1"),
        override_metadata=metadata(env="prod"),
        override_rule_set=RuleSet(migration_rules=[], domain_rules=[positive_amount()]),
    )
    answer = client.set_config(subject, config)
    assert answer["compatibilityGroup"] == "major" and answer["overrideMetadata"] == {
        "properties": {"env": "prod"}
    }
    stored = client.get_config(subject)
    assert stored.compatibility_level is not None and stored.compatibility_level.value == "BACKWARD"
    assert (stored.compatibility_group, stored.default_metadata, stored.override_metadata) == (
        "major",
        metadata(owner="nobody", major="1"),
        metadata(env="prod"),
    )
    v1 = client.register_schema_full_response(
        subject, Schema(V1, "AVRO", metadata=metadata(owner="payments"))
    )
    assert v1.schema.metadata == metadata(owner="payments", major="1", env="prod")
    assert [r.name for r in v1.schema.rule_set.domain_rules] == ["positiveAmount"]
    with pytest.raises(SchemaRegistryError) as incompatible:
        client.register_schema(subject, Schema(V2_NEW_MAJOR, "AVRO"))  # carries major=1
    assert incompatible.value.error_code == 409
    assert client.test_compatibility_all_versions(subject, Schema(V2_NEW_MAJOR, "AVRO")) is False
    next_major = Schema(V2_NEW_MAJOR, "AVRO", metadata=metadata(owner="payments", major="2"))
    assert client.test_compatibility(subject, next_major) is True, "another group: nothing to compare with"
    assert client.register_schema_full_response(subject, next_major).version == 2
    previous = client.delete_config(subject)
    assert previous.compatibility_group == "major" and previous.override_metadata == metadata(env="prod")
    with pytest.raises(SchemaRegistryError) as no_config:
        client.get_config(subject)
    assert no_config.value.error_code == 40408


def test_a_serializer_with_use_latest_with_metadata_picks_the_matching_version(
    client: SchemaRegistryClient, url: str, subject: str
) -> None:
    client.set_config(subject, ServerConfig(compatibility_group="major"))
    v1 = client.register_schema(subject, Schema(V1, "AVRO", metadata=metadata(major="1")))
    v2 = client.register_schema(subject, Schema(V2_NEW_MAJOR, "AVRO", metadata=metadata(major="2")))
    v3 = client.register_schema(subject, Schema(V2, "AVRO", metadata=metadata(major="1")))
    assert len({v1, v2, v3}) == 3
    assert fresh(url).get_latest_with_metadata(subject, {"major": "1"}).schema_id == v3
    assert fresh(url).get_latest_with_metadata(subject, {"major": "2"}).schema_id == v2
    with pytest.raises(SchemaRegistryError) as none:
        fresh(url).get_latest_with_metadata(subject, {"major": "3"})
    assert none.value.error_code == 40403
    topic = subject.removesuffix("-value")
    ctx = SerializationContext(topic, MessageField.VALUE)
    conf = {"auto.register.schemas": False, "use.latest.with.metadata": {"major": "1"}}
    payload = AvroSerializer(fresh(url), V1, conf=conf)({"id": 1, "amount": 2.5, "currency": "USD"}, ctx)
    assert int.from_bytes(payload[1:5], "big") == v3, "written with the latest major-1 version"
    assert AvroDeserializer(fresh(url))(payload, ctx) == {"id": 1, "amount": 2.5, "currency": "USD"}
    client.delete_version(subject, 3)
    deleted_conf = {**conf, "use.latest.with.metadata": {"major": "1"}}
    again = AvroSerializer(fresh(url), V1, conf=deleted_conf)(
        {"id": 2, "amount": 1.0, "currency": "GBP"}, ctx
    )
    assert int.from_bytes(again[1:5], "big") == v3, "the serializer asks with deleted=true, as Confluent's"


@pytest.fixture
def recursion_limit_kept() -> Iterator[None]:
    """celpy's ``Environment`` sets Python's recursion limit to 2500 for good; put it back for the tests
    that run after this one in the same process."""
    limit = sys.getrecursionlimit()
    yield
    sys.setrecursionlimit(limit)


@pytest.mark.usefixtures("recursion_limit_kept")
def test_a_rule_stored_here_is_enforced_by_the_client(
    client: SchemaRegistryClient, url: str, subject: str
) -> None:
    CelExecutor.register()
    rules = RuleSet(migration_rules=[], domain_rules=[positive_amount()])
    schema_id = client.register_schema(subject, Schema(V1, "AVRO", rule_set=rules))
    ctx = SerializationContext(subject.removesuffix("-value"), MessageField.VALUE)
    serialize = AvroSerializer(
        fresh(url), V1, conf={"auto.register.schemas": False, "use.latest.version": True}
    )
    payload = serialize({"id": 1, "amount": 10.0}, ctx)
    assert int.from_bytes(payload[1:5], "big") == schema_id
    with pytest.raises(SerializationError) as refused:
        serialize({"id": 2, "amount": -5.0}, ctx)
    cause = refused.value.__cause__
    assert isinstance(cause, RuleConditionError) and str(cause) == "payments move money", "the rule's doc"


def test_the_guid_travels_in_a_header_and_resolves(
    client: SchemaRegistryClient, url: str, subject: str
) -> None:
    headers: list[tuple[str, Any]] = []
    ctx = SerializationContext(subject.removesuffix("-value"), MessageField.VALUE, headers)
    serialize = AvroSerializer(fresh(url), V1, conf={"schema.id.serializer": header_schema_id_serializer})
    payload = serialize({"id": 3, "amount": 1.5}, ctx)
    ((key, value),) = headers
    assert key == "__value_schema_id"
    guid = str(uuid.UUID(bytes=value[1:]))  # a format byte, then the GUID's 16 bytes
    assert guid == client.get_latest_version(subject).guid
    assert AvroDeserializer(fresh(url))(payload, ctx) == {"id": 3, "amount": 1.5}, "resolved by GUID"
    ids = requests.get(f"{url}/schemas/guids/{guid}/ids", timeout=10).json()  # no client method for it
    assert ids == [{"context": ".", "id": client.get_latest_version(subject).schema_id}]


def test_contexts_and_qualified_subjects(client: SchemaRegistryClient, subject: str) -> None:
    assert client.get_contexts() == ["."]
    schema_id = client.register_schema(f":.:{subject}", Schema(V1, "AVRO"))
    assert client.get_latest_version(subject).schema_id == schema_id, "the default context, qualified"
    with pytest.raises(SchemaRegistryError) as other_context:
        client.register_schema(f":.staging:{subject}", Schema(V1, "AVRO"))
    assert (other_context.value.http_status_code, other_context.value.error_code) == (422, 42208)


def test_a_union_default_of_a_later_branch_registers(
    client: SchemaRegistryClient, url: str, subject: str
) -> None:
    v1 = record("Visit", id="long")
    v2 = record("Visit", id="long", ref=(["null", "string"], "direct"))
    client.register_schema(subject, Schema(v1, "AVRO"))
    assert client.register_schema_full_response(subject, Schema(v2, "AVRO")).version == 2
    ctx = SerializationContext(subject.removesuffix("-value"), MessageField.VALUE)
    old = AvroSerializer(fresh(url), v1, conf={"auto.register.schemas": False})({"id": 4}, ctx)
    latest = AvroDeserializer(fresh(url), conf={"use.latest.version": True})
    assert latest(old, ctx) == {"id": 4, "ref": "direct"}


def test_invalid_contracts_are_refused_and_nothing_is_stored(
    client: SchemaRegistryClient, subject: str
) -> None:
    nameless = Rule(
        None, None, RuleKind.CONDITION, RuleMode.WRITE, "CEL", None, None, "true", None, None, False
    )
    with pytest.raises(SchemaRegistryError) as refused:
        client.register_schema(subject, Schema(V1, "AVRO", rule_set=RuleSet([], [nameless])))
    assert refused.value.error_code == 42210 and "name" in refused.value.error_message
    typeless = Rule("r", None, None, RuleMode.WRITE, None, None, None, "true", None, None, False)
    with pytest.raises(SchemaRegistryError) as no_type:
        client.set_config(subject, ServerConfig(default_rule_set=RuleSet([], [typeless])))
    assert no_type.value.error_code == 42210 and "type" in no_type.value.error_message
    assert subject not in client.get_subjects()


def test_the_methods_that_still_answer_4xx(client: SchemaRegistryClient) -> None:
    """Associations are a Confluent Cloud feature this registry does not have: 404 for their routes."""
    for call in (
        lambda: client.get_associations_by_resource_name("orders", "lkc-1"),
        lambda: client.create_association(AssociationCreateOrUpdateRequest(resource_name="orders")),
        lambda: client.delete_associations("orders"),
    ):
        with pytest.raises(SchemaRegistryError) as missing:
            call()
        assert (missing.value.http_status_code, missing.value.error_code) == (404, 404)
