"""One run of the load, end to end: a real broker, the registry over HTTP, Spark with a Hive metastore;
every test once per table format."""

from __future__ import annotations

import json
import struct
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
import requests
from confluent_kafka import Producer
from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_tools import protoc
from pyspark.sql import Row, SparkSession

from loader import job
from loader.outcome.report import EXIT_BAD_RECORDS, EXIT_FAILED
from loader.reading.registry_client import RegistryClient
from loader.run.discover import NO_PROTOBUF_DECODER
from loader.schema.naming import table_name
from tests.loader.harness import Harness, record_schema

pytestmark = pytest.mark.integration


@pytest.fixture(params=["hive", "iceberg"])
def table_format(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def spark(spark: SparkSession, table_format: str, request: pytest.FixtureRequest) -> Iterator[SparkSession]:
    """The session of the application whose catalog holds the format's tables."""
    if table_format == "hive":
        yield spark
        return
    try:
        yield request.getfixturevalue("iceberg_spark")
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)


@pytest.fixture
def harness(harness: Harness, table_format: str) -> Harness:
    harness.table_format = table_format
    return harness


V1 = record_schema("PageView", [
    {"name": "member_id", "type": "int", "doc": "Who viewed the page."},
    {"name": "url", "type": "string", "doc": "The page's path."},
])  # fmt: skip
V2 = record_schema("PageView", [
    {"name": "member_id", "type": "long", "doc": "Who viewed the page."},
    {"name": "url", "type": "string", "doc": "The page's path."},
    {"name": "referrer", "type": ["null", "string"], "default": None, "doc": "Where the member came from."},
])  # fmt: skip
V3 = record_schema("PageView", [
    {"name": "member_id", "type": "long", "doc": "Who viewed the page."},
    {"name": "url", "type": "string", "doc": "The page's path."},
    {"name": "referrer", "type": ["null", "string"], "default": None, "doc": "Where the member came from."},
    {"name": "viewed_at", "type": {"type": "long", "logicalType": "timestamp-millis"}, "default": 0},
    {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2},
     "default": "\u0000"},
])  # fmt: skip
VIEWED_AT = datetime(2026, 11, 23, 8, 30, tzinfo=UTC)


def v(version: int, i: int) -> dict:
    record: dict = {"member_id": i, "url": f"/p/{i}"}
    if version >= 2:
        record["referrer"] = f"/r/{i}"
    if version >= 3:
        record["viewed_at"] = VIEWED_AT
        record["price"] = __import__("decimal").Decimal("12.34")
    return record


def rows(spark: SparkSession, table: str) -> list[dict]:
    spark.catalog.refreshTable(table)
    result = spark.sql(f"SELECT * FROM {table} ORDER BY _kafka_partition, _kafka_offset").collect()
    return [row.asDict() for row in result]


def test_three_interleaved_versions_are_projected_onto_the_latest(
    harness: Harness, spark: SparkSession, table_format: str
) -> None:
    topic = harness.topic(partitions=2)
    for i in range(6):  # v1, v2, v3, v1, v2, v3 ... on alternating partitions
        version = i % 3 + 1
        harness.produce(topic, {1: V1, 2: V2, 3: V3}[version], [v(version, i)], partition=i % 2)

    report = harness.run(spark)

    assert report.exit_code == 0, report
    [topic_report] = [t for t in report.topics if t.topic == topic]
    assert (topic_report.status, topic_report.records, topic_report.table_action) == ("loaded", 6, "created")
    table = topic_report.table
    got = rows(spark, table)
    assert len(got) == 6
    by_member = {row["member_id"]: row for row in got}
    # v1 records: the added fields read their defaults; the widened id is a bigint.
    assert by_member[0]["referrer"] is None
    assert by_member[0]["viewed_at"] == datetime(1970, 1, 1)
    assert str(by_member[0]["price"]) == "0.00"
    assert by_member[1]["referrer"] == "/r/1"
    assert by_member[2]["viewed_at"] == VIEWED_AT.replace(tzinfo=None)  # UTC session time zone
    assert str(by_member[2]["price"]) == "12.34"
    types = dict(spark.table(table).dtypes)
    assert types["member_id"] == "bigint"
    assert types["viewed_at"] == "timestamp"
    assert types["price"] == "decimal(9,2)"
    assert {types[c] for c in ("_kafka_partition", "_kafka_offset", "_kafka_timestamp", "_schema_id")} == {
        "int",
        "bigint",
        "timestamp",
    }
    comments = {r["col_name"]: r["comment"] for r in spark.sql(f"DESCRIBE TABLE {table}").collect()}
    assert comments["member_id"] == "Who viewed the page."
    assert sorted((r["_kafka_partition"], r["_kafka_offset"]) for r in got) == [
        (p, o) for p in (0, 1) for o in range(3)
    ]
    assert len({r["_schema_id"] for r in got}) == 3
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    if table_format == "hive":
        assert {r["dt"] for r in got} == {today}
    else:  # hidden partitioning: no partition column, the day is Iceberg's own
        days = spark.sql(f"SELECT partition._kafka_timestamp_day AS day FROM {table}.partitions").collect()
        assert {str(r["day"]) for r in days} == {today}


def test_second_run_loads_only_what_arrived_and_an_empty_run_changes_nothing(
    harness: Harness, spark: SparkSession
) -> None:
    topic = harness.topic()
    harness.produce(topic, V1, [v(1, i) for i in range(3)])
    first = harness.run(spark)
    [first_topic] = [t for t in first.topics if t.topic == topic]
    assert first_topic.records == 3

    harness.produce(topic, V2, [v(2, i) for i in range(3, 5)])
    second = harness.run(spark)
    [second_topic] = [t for t in second.topics if t.topic == topic]
    assert (second_topic.records, second_topic.offsets) == (2, {0: (3, 5)})
    assert second_topic.table_action == "evolved"
    assert second_topic.table_changes == [
        "widened column member_id int -> bigint",
        "added column referrer string",
    ]

    third = harness.run(spark)
    [third_topic] = [t for t in third.topics if t.topic == topic]
    assert (third_topic.status, third_topic.records, third_topic.offsets) == ("up to date", 0, {0: (5, 5)})
    got = rows(spark, first_topic.table)
    assert [r["_kafka_offset"] for r in got] == [0, 1, 2, 3, 4]
    assert [r["referrer"] for r in got] == [None, None, None, "/r/3", "/r/4"]


def test_new_topic_and_new_partition_are_picked_up_without_configuration(
    harness: Harness, spark: SparkSession
) -> None:
    first_topic = harness.topic()
    harness.produce(first_topic, V1, [v(1, 0)])
    harness.run(spark)

    from confluent_kafka.admin import NewPartitions

    admin = harness.kafka.admin()
    for future in admin.create_partitions([NewPartitions(first_topic, 2)]).values():
        future.result(timeout=30)
    harness.produce(first_topic, V1, [v(1, 1)], partition=1)
    second_topic = harness.topic()
    harness.produce(second_topic, V1, [v(1, 7)])

    report = harness.run(spark)
    loaded = {t.topic: t for t in report.topics if t.topic in (first_topic, second_topic)}
    assert loaded[first_topic].offsets == {0: (1, 1), 1: (0, 1)}
    assert loaded[first_topic].records == 1
    assert (loaded[second_topic].records, loaded[second_topic].table_action) == (1, "created")
    assert [r["member_id"] for r in rows(spark, loaded[second_topic].table)] == [7]


def test_topics_without_a_schema_are_skipped_with_the_reason(harness: Harness, spark: SparkSession) -> None:
    topic = harness.topic(prefix="raw")
    harness.produce_raw(topic, [b"not avro"])
    report = harness.run(spark)
    [skipped] = [t for t in report.topics if t.topic == topic]
    assert (skipped.status, skipped.reason) == ("skipped", f"no schema registered for subject {topic}-value")
    assert report.exit_code == 0


CUSTOMER_PROTO = 'syntax = "proto3";\npackage shop;\n\nmessage Customer {\n  string name = 1;\n}\n'
ORDER_PROTO_V1 = """syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
import "shop/customer.proto";

message Order {
  int64 id = 1;
  google.protobuf.Timestamp placed = 2;
  repeated Line lines = 3;
  map<string, string> tags = 4;
  oneof payment {
    string card = 5;
    int64 cash = 6;
  }
  Status status = 7;
  Customer customer = 8;
  uint64 big = 9;

  message Line {
    string sku = 1;
    int32 qty = 2;
  }
  enum Status {
    NEW = 0;
    PAID = 1;
  }
}

message Refund {
  string why = 1;
}
"""
# the second version adds a field, and renames `big` under its number
ORDER_PROTO_V2 = ORDER_PROTO_V1.replace("  uint64 big = 9;\n", "  uint64 huge = 9;\n  double total = 10;\n")


def message_classes(tmp_path: Path, order_proto: str) -> dict[str, type]:
    """The test's `.proto` files compiled by protoc (grpc_tools'), as message classes of a pool of their
    own (each version of `shop.Order` in its own)."""
    root = tmp_path / uuid.uuid4().hex
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "customer.proto").write_text(CUSTOMER_PROTO)
    (root / "shop" / "order.proto").write_text(order_proto)
    out = root / "files.pb"
    well_known = Path(protoc.__file__).parent / "_proto"
    argv = ["protoc", f"-I{root}", f"-I{well_known}", "--include_imports", f"--descriptor_set_out={out}"]
    assert protoc.main([*argv, "shop/order.proto"]) == 0
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file:
        pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"shop.{name}"))
        for name in ("Order", "Refund", "Customer")
    }


def test_protobuf_topics_become_tables_through_two_versions(
    harness: Harness, spark: SparkSession, table_format: str, tmp_path: Path
) -> None:
    """confluent-kafka's ProtobufSerializer, an import of another registered `.proto` and of the
    well-known Timestamp, a nested message, a map, a oneof, an enum and a uint64 past the signed range;
    the second version adds a column and renames one under its number, its records and the first's read
    back as produced; the file's second message gets a table of its own, found in its records and known
    to the next run; message indexes that name no message and bytes that are no message are
    quarantined; also when other subjects are named by record (then a topic without `<topic>-value` is
    looked into)."""
    record_named = {"type": "record", "name": "Placed", "namespace": f"{harness.prefix}.shop", "fields": []}
    registered = requests.post(
        f"{harness.registry_url}/subjects/{harness.prefix}.shop.Placed/versions",
        json={"schema": json.dumps(record_named)},
        timeout=30,
    )
    assert registered.status_code == 200, registered.text
    topic = harness.topic(prefix="proto")
    ctx = SerializationContext(topic, MessageField.VALUE)
    client = SchemaRegistryClient({"url": harness.registry_url})
    v1 = message_classes(tmp_path, ORDER_PROTO_V1)
    first = v1["Order"](
        id=1,
        lines=[v1["Order"].Line(sku="A-1", qty=2)],
        tags={"channel": "web"},
        card="visa",
        status=v1["Order"].PAID,
        customer={"name": "Ada"},
        big=2**64 - 1,
    )
    first.placed.FromMilliseconds(1_796_642_130_250)
    serialize = ProtobufSerializer(v1["Order"], client, {"use.deprecated.format": False})
    harness.produce_raw(topic, [serialize(first, ctx)])
    loaded = next(t for t in harness.run(spark).topics if t.topic == topic)
    assert (loaded.status, loaded.records, loaded.table_action) == ("loaded", 1, "created"), loaded.reason

    v2 = message_classes(tmp_path, ORDER_PROTO_V2)
    second = v2["Order"](id=2, cash=300, total=12.5)
    payload = ProtobufSerializer(v2["Order"], client, {"use.deprecated.format": False})(second, ctx)
    header = payload[:5]
    refund = header + b"\x02\x02" + v2["Refund"](why="late").SerializeToString()  # message index [1]
    nowhere = header + b"\x02\x06" + v2["Refund"](why="lost").SerializeToString()  # [3]: no such message
    harness.produce_raw(topic, [payload, refund, nowhere, header + b"\x00\xff\xff\xff"])
    report = harness.run(spark)
    [loaded] = [t for t in report.topics if t.topic == topic]
    table = f"{harness.database}.{table_name(topic)}"
    refunds = f"{table}__refund"
    # The pass is done again once the new message's table is known; an Iceberg table's append of the first
    # pass is committed already, so the second finds its row held (loaded once either way).
    loaded_once = (loaded.tables[table] + loaded.already_held, loaded.tables[refunds])
    assert (loaded_once, loaded.quarantined) == ((1, 1), 2), loaded.reason
    assert loaded.event_types == {"shop.Refund": f"{topic}-value"}
    # what the run did to each table, though the pass done again with the new message found it done
    assert loaded.table_action == f"{table_name(topic)} evolved, {table_name(topic)}__refund created"
    columns = ("id", "placed", "lines", "tags", "card", "cash", "status", "customer", "huge", "total")
    got = [{k: r[k] for k in columns} for r in rows(spark, table)]
    placed = datetime(2026, 12, 7, 11, 15, 30, 250_000, tzinfo=UTC).astimezone().replace(tzinfo=None)
    expected = [
        {
            "id": 1,
            "placed": placed,
            "lines": [{"sku": "A-1", "qty": 2}],
            "tags": {"channel": "web"},
            "card": "visa",
            "cash": None,
            "status": "PAID",
            "customer": {"name": "Ada"},
            "huge": Decimal(2**64 - 1),
            "total": None,
        },
        {
            "id": 2,
            "placed": None,
            "lines": [],
            "tags": {},
            "card": None,
            "cash": 300,
            "status": "NEW",
            "customer": None,
            "huge": Decimal(0),
            "total": 12.5,
        },
    ]
    # The rename: Iceberg renames the column (the rows before read under the new name); under Hive the
    # column of the old name keeps the rows loaded before it, as for an Avro alias.
    if table_format == "hive":
        expected[0]["huge"] = None
        assert [r["big"] for r in rows(spark, table)] == [Decimal(2**64 - 1), None]
    else:
        assert "big" not in rows(spark, table)[0]
    assert [
        {
            **g,
            "lines": [line.asDict() for line in g["lines"]],
            "customer": g["customer"] and g["customer"].asDict(),
        }
        for g in got
    ] == expected
    assert [(r["why"], r["_kafka_offset"]) for r in rows(spark, refunds)] == [("late", 2)]
    quarantine = spark.sql(
        f"SELECT offset, reason FROM {harness.database}.loader_quarantine "
        f"WHERE topic = '{topic}' ORDER BY offset"
    ).collect()
    writer = int.from_bytes(header[1:], "big")
    assert [(r["offset"], r["reason"]) for r in quarantine] == [
        (3, f"message indexes of writer schema id {writer} name no message of its file"),
        (4, f"body does not decode with writer schema id {writer}"),
    ]

    # The next run knows the message's table: its records go straight there.
    harness.produce_raw(topic, [header + b"\x02\x02" + v2["Refund"](why="broken").SerializeToString()])
    [loaded] = [t for t in harness.run(spark).topics if t.topic == topic]
    assert (loaded.tables, loaded.quarantined) == ({table: 0, refunds: 1}, 0), loaded.reason
    assert [r["why"] for r in rows(spark, refunds)] == ["late", "broken"]


def test_a_protobuf_key_is_decoded_beside_its_value_and_keys_that_do_not_decode_are_quarantined(
    harness: Harness, spark: SparkSession, tmp_path: Path
) -> None:
    """`<topic>-key` of Protobuf, written by confluent-kafka's ProtobufSerializer, decodes into
    `_kafka_key_avro` as a value does; a key that is no message, and one whose indexes name no message
    of its file, are quarantined with their reasons."""
    topic = harness.topic(prefix="protokey")
    client = SchemaRegistryClient({"url": harness.registry_url})
    v1 = message_classes(tmp_path, ORDER_PROTO_V1)
    conf = {"use.deprecated.format": False}
    key_context, value_context = (
        SerializationContext(topic, MessageField.KEY),
        SerializationContext(topic, MessageField.VALUE),
    )
    key = ProtobufSerializer(v1["Customer"], client, conf)(v1["Customer"](name="k1"), key_context)
    value = ProtobufSerializer(v1["Order"], client, conf)(v1["Order"](id=1), value_context)
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    producer.produce(topic, key=key, value=value)
    producer.produce(topic, key=key[:5] + b"\x00\xff\xff", value=value)  # no message
    producer.produce(topic, key=key[:5] + b"\x02\x02" + key[6:], value=value)  # indexes [1]: none there
    assert producer.flush(30) == 0
    [loaded] = [t for t in harness.run(spark).topics if t.topic == topic]
    assert (loaded.records, loaded.quarantined) == (1, 2), loaded.reason
    [row] = rows(spark, loaded.table)
    assert (row["id"], row["_kafka_key_avro"]) == (1, Row(name="k1"))
    reasons = spark.sql(
        f"SELECT reason FROM {harness.database}.loader_quarantine WHERE topic = '{topic}' ORDER BY offset"
    ).collect()
    key_id = int.from_bytes(key[1:5], "big")
    assert [r["reason"] for r in reasons] == [
        f"key does not decode with schema id {key_id} of subject {topic}-key",
        f"key message indexes of writer schema id {key_id} name no message of its file",
    ]


def test_without_the_loaders_jvm_module_protobuf_topics_are_skipped_naming_why(
    harness: Harness, spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decoder is the loader's JVM module's: a Spark session without it (here the run is told its
    session has none) skips a Protobuf topic with the reason; a registry without `GET /schemas` is asked
    subject by subject and gives the same schemas."""
    protobuf = harness.topic(prefix="proto")
    registered = requests.post(
        f"{harness.registry_url}/subjects/{protobuf}-value/versions",
        json={"schema": CUSTOMER_PROTO, "schemaType": "PROTOBUF"},
        timeout=30,
    )
    assert registered.status_code == 200, registered.text
    harness.produce_raw(protobuf, [b"\x00\x00\x00\x00\x01\x00\x0a\x01a"])
    monkeypatch.setattr(job, "decodes_protobuf", lambda session: False)
    report = harness.run(spark)
    [skipped] = [(t.status, t.reason) for t in report.topics if t.topic == protobuf]
    assert skipped == ("skipped", f"subject {protobuf}-value {NO_PROTOBUF_DECODER}")
    assert report.exit_code == 0
    registry = RegistryClient(harness.registry_url)
    schemas = registry.subject_schemas(f"{protobuf}-value")
    assert schemas is not None and schemas.schema_type == "PROTOBUF"
    snapshot = registry.snapshot()
    assert snapshot is not None and snapshot.schemas(f"{protobuf}-value") == schemas


CUSTOMER_JSON = {"type": "object", "properties": {"name": {"type": "string"}}, "additionalProperties": False}
ORDER_JSON_V1 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Order",
    "type": "object",
    "properties": {
        "id": {"type": "integer", "description": "The order's number."},
        "placed": {"type": "string", "format": "date-time"},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                "additionalProperties": False,
            },
        },
        "tags": {"type": "object", "additionalProperties": {"type": "string"}},
        "note": {"type": ["string", "null"]},
        "customer": {"$ref": "customer.json"},
    },
    "required": ["id"],
    "additionalProperties": False,
}
ORDER_KEY_JSON = {"type": "object", "properties": {"order": {"type": "integer"}}}
ORDER_JSON_V2 = {
    **ORDER_JSON_V1,
    "properties": {**ORDER_JSON_V1["properties"], "total": {"type": "number"}},
}


def test_json_schema_topics_become_tables_through_two_versions(
    harness: Harness, spark: SparkSession, table_format: str
) -> None:
    """confluent-kafka's JSONSerializer, a `$ref` to another subject, nested objects, arrays, a map, a
    nullable property and a date-time; the second version adds a column, its records and the first's read
    back as produced; records that are no JSON of the schema are quarantined with the reason."""
    topic = harness.topic(prefix="json")
    ctx = SerializationContext(topic, MessageField.VALUE)
    client = SchemaRegistryClient({"url": harness.registry_url})
    client.register_schema(f"{topic}-customer", Schema(json.dumps(CUSTOMER_JSON), "JSON"))
    references = [SchemaReference("customer.json", f"{topic}-customer", 1)]
    first = {
        "id": 1,
        "placed": "2026-12-07T10:15:30.250Z",
        "lines": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 1}],
        "tags": {"channel": "web"},
        "note": None,
        "customer": {"name": "Ada"},
    }
    v1 = JSONSerializer(Schema(json.dumps(ORDER_JSON_V1), "JSON", references), client)
    key = JSONSerializer(json.dumps(ORDER_KEY_JSON), client)
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    producer.produce(
        topic, key=key({"order": 1}, SerializationContext(topic, MessageField.KEY)), value=v1(first, ctx)
    )
    assert producer.flush(30) == 0
    loaded = next(t for t in harness.run(spark).topics if t.topic == topic)
    assert (loaded.status, loaded.records, loaded.table_action) == ("loaded", 1, "created")

    v2 = JSONSerializer(Schema(json.dumps(ORDER_JSON_V2), "JSON", references), client)
    second = {"id": 2, "lines": [], "note": "gift", "total": 12.5}
    latest_id = schema_id_of(v2(second, ctx))
    harness.produce_raw(
        topic,
        [
            v2(second, ctx),
            b"\x00" + struct.pack(">I", latest_id) + b"{not json",
            b"\x00"
            + struct.pack(">I", latest_id)
            + b'{"id": "three"}',  # a string where a number is declared
            b"\x00" + struct.pack(">I", latest_id) + b"[1, 2]",  # no object
        ],
    )
    report = harness.run(spark)
    [loaded] = [t for t in report.topics if t.topic == topic]
    assert (loaded.records, loaded.quarantined, loaded.table_action) == (1, 3, "evolved")
    got = [
        {k: r[k] for k in ("id", "placed", "lines", "tags", "note", "customer", "total")}
        for r in rows(spark, loaded.table)
    ]
    # a `<topic>-key` JSON Schema decodes the key through the same reading
    assert [r["_kafka_key_avro"] for r in rows(spark, loaded.table)] == [Row(order=1), None]
    placed = datetime(2026, 12, 7, 10, 15, 30, 250_000, tzinfo=UTC).astimezone().replace(tzinfo=None)
    assert [
        {
            **g,
            "lines": [line.asDict() for line in g["lines"] or []],
            "customer": g["customer"] and g["customer"].asDict(),
        }
        for g in got
    ] == [
        {
            "id": 1,
            "placed": placed,
            "lines": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 1}],
            "tags": {"channel": "web"},
            "note": None,
            "customer": {"name": "Ada"},
            "total": None,
        },
        {"id": 2, "placed": None, "lines": [], "tags": None, "note": "gift", "customer": None, "total": 12.5},
    ]
    quarantine = spark.sql(
        f"SELECT offset, reason FROM {harness.database}.loader_quarantine "
        f"WHERE topic = '{topic}' ORDER BY offset"
    ).collect()
    reason = f"body does not decode with writer schema id {latest_id}"
    assert [(r["offset"], r["reason"]) for r in quarantine] == [(2, reason), (3, reason), (4, reason)]
    comments = {r["col_name"]: r["comment"] for r in spark.sql(f"DESCRIBE TABLE {loaded.table}").collect()}
    assert comments["id"] == "The order's number."
    # a registry without `GET /schemas` is asked subject by subject, and gives the same table
    registry = RegistryClient(harness.registry_url)
    snapshot = registry.snapshot()
    assert snapshot is not None
    assert registry.subject_schemas(f"{topic}-value") == snapshot.schemas(f"{topic}-value")


def schema_id_of(payload: bytes) -> int:
    return int(struct.unpack(">I", payload[1:5])[0])


def test_topic_names_colliding_after_mapping_are_refused(harness: Harness, spark: SparkSession) -> None:
    dotted = harness.kafka.create_topic(f"{harness.prefix}.page.views")
    dashed = harness.kafka.create_topic(f"{harness.prefix}-page-views")
    for topic in (dotted, dashed):
        harness.produce(topic, V1, [v(1, 0)])
    report = harness.run(spark)
    failed = {t.topic: t for t in report.topics if t.topic in (dotted, dashed)}
    assert {t.status for t in failed.values()} == {"failed"}
    assert f"all map to table '{harness.prefix}_page_views'" in failed[dotted].reason
    assert report.exit_code == EXIT_FAILED
    assert not spark.catalog.tableExists(f"{harness.database}.{harness.prefix}_page_views")


def test_bad_records_are_quarantined_and_never_block_good_ones(harness: Harness, spark: SparkSession) -> None:
    topic = harness.topic()
    harness.produce(topic, V1, [v(1, 0)])
    first = next(t for t in harness.run(spark).topics if t.topic == topic)  # loads the good record
    harness.produce_raw(
        topic,
        [
            b"\x01" + struct.pack(">I", 1) + b"\x02",  # wrong magic byte
            b"\x00" + struct.pack(">I", 2_000_000) + b"\x02",  # schema id of no version of the subject
            b"\x00\x00",  # shorter than the header
            None,  # a tombstone: a deletion row, never a bad record
        ],
    )
    harness.produce(topic, V1, [v(1, 5)])
    latest_id = (
        SchemaRegistryClient({"url": harness.registry_url}).get_latest_version(f"{topic}-value").schema_id
    )
    harness.produce_raw(
        topic, [b"\x00" + struct.pack(">I", latest_id) + b"\xff\xff\xff\xff\xff\xff\xff\xff\xff"]
    )

    report = harness.run(spark)
    [loaded] = [t for t in report.topics if t.topic == topic]
    assert (loaded.records, loaded.tombstones, loaded.quarantined) == (2, 1, 4)
    assert report.exit_code == EXIT_BAD_RECORDS
    quarantine = spark.sql(
        f"SELECT offset, schema_id, reason, value FROM {harness.database}.loader_quarantine "
        f"WHERE topic = '{topic}' ORDER BY offset"
    ).collect()
    assert [(r["offset"], r["schema_id"], r["reason"]) for r in quarantine] == [
        (1, None, "wrong magic byte 1 (expected 0)"),
        (
            2,
            2_000_000,
            f"schema id 2000000 is unknown to the registry (not a version of subject {topic}-value)",
        ),
        (3, None, "message is shorter than the 5-byte Confluent header"),
        (6, latest_id, f"body does not decode with writer schema id {latest_id}"),
    ]
    assert bytes(quarantine[0]["value"]) == b"\x01" + struct.pack(">I", 1) + b"\x02"
    assert [(r["_kafka_offset"], r["_kafka_deleted"]) for r in rows(spark, first.table)] == [
        (0, False),
        (4, True),
        (5, False),
    ]
    # Quarantined offsets are committed too: the next run does not see them again.
    again = next(t for t in harness.run(spark).topics if t.topic == topic)
    assert (again.status, again.quarantined) == ("up to date", 0)
