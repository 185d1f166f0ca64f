"""Everything a Kafka record carries reaches the table: committed records only (transactions), the key
(raw, as text, or decoded with the topic's key schema), the headers, and tombstones as deletion rows,
also on a topic the broker compacts between runs. Real broker, real clients."""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.serialization import MessageField
from pyspark.sql import SparkSession

from loader.operations.audit import audit
from loader.outcome.report import TopicReport
from loader.reading.kafka_metadata import watermarks
from loader.schema.naming import table_name
from tests.loader.harness import (
    Harness,
    committed_offsets,
    in_transaction,
    record_schema,
    transactional_producer,
)

pytestmark = pytest.mark.integration

PAYMENT = record_schema("Payment", [{"name": "n", "type": "long"}, {"name": "state", "type": "string"}])
KEY_V1 = record_schema("AccountKey", [{"name": "account", "type": "long"}])
KEY_V2 = record_schema(
    "AccountKey",
    [{"name": "account", "type": "long"}, {"name": "region", "type": "string", "default": "eu"}],
)


def topic_report(report: Any, topic: str) -> TopicReport:
    return next(t for t in report.topics if t.topic == topic)


def loaded(spark: SparkSession, table: str, columns: str = "*") -> list[dict[str, Any]]:
    spark.catalog.refreshTable(table)
    frame = spark.sql(f"SELECT {columns} FROM {table} ORDER BY _kafka_partition, _kafka_offset")
    return [r.asDict(recursive=True) for r in frame.collect()]


def test_only_committed_records_are_loaded_and_an_open_transaction_waits_for_its_commit(
    harness: Harness, spark: SparkSession
) -> None:
    topic = harness.topic()
    serialize = harness.serializer(topic, PAYMENT)
    payments = transactional_producer(harness)
    in_transaction(
        payments, topic, [serialize({"n": i, "state": "committed"}) for i in range(1000)], commit=True
    )
    in_transaction(
        payments, topic, [serialize({"n": i, "state": "aborted"}) for i in range(500)], commit=False
    )
    in_transaction(
        payments, topic, [serialize({"n": i, "state": "committed"}) for i in range(1000)], commit=True
    )
    # A transaction still open across the run: neither it nor what follows it is loaded yet.
    open_one = transactional_producer(harness)
    open_one.begin_transaction()
    for i in range(7):
        open_one.produce(topic, value=serialize({"n": i, "state": "late"}))
    open_one.flush(30)
    harness.produce(topic, PAYMENT, [{"n": 0, "state": "plain, after the open one"}])

    first = topic_report(harness.run(spark), topic)
    table = first.table or ""
    assert (first.status, first.records, first.quarantined) == ("loaded", 2000, 0)
    assert {r["state"] for r in loaded(spark, table, "state")} == {"committed"}

    open_one.commit_transaction(30)
    second = topic_report(harness.run(spark), topic)
    assert (second.records, second.quarantined) == (8, 0)

    rows = loaded(spark, table, "_kafka_partition, _kafka_offset, state")
    pairs = [(r["_kafka_partition"], r["_kafka_offset"]) for r in rows]
    assert pairs == committed_offsets(harness, topic)  # each committed record once, none aborted
    assert sorted({r["state"] for r in rows}) == ["committed", "late", "plain, after the open one"]
    assert len(rows) == 2008
    windows = audit(harness.settings(), spark, "loader_quarantine")
    assert [w for w in windows.windows if w.topic == topic and not w.ok] == []


def test_keys_are_kept_raw_as_text_and_decoded_with_their_own_evolving_schema(
    harness: Harness, spark: SparkSession
) -> None:
    avro_keyed, text_keyed = harness.topic(prefix="avro-keys"), harness.topic(prefix="text-keys")
    values = harness.serializer(avro_keyed, PAYMENT)
    keys_v1 = harness.serializer(avro_keyed, KEY_V1, MessageField.KEY)
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    first_key = keys_v1({"account": 7})
    producer.produce(avro_keyed, key=first_key, value=values({"n": 1, "state": "v1 key"}))
    text_values = harness.serializer(text_keyed, PAYMENT)
    headers = [("trace", b"a"), ("source", b"app"), ("trace", b"b")]
    producer.produce(text_keyed, key=b"user-1", value=text_values({"n": 1, "state": "s"}), headers=headers)
    producer.produce(text_keyed, key=None, value=text_values({"n": 2, "state": "s"}))
    producer.produce(text_keyed, key=b"\xff\xfe not utf-8", value=text_values({"n": 3, "state": "s"}))
    assert producer.flush(30) == 0
    harness.run(spark)

    keys_v2 = harness.serializer(avro_keyed, KEY_V2, MessageField.KEY)  # the key schema evolves
    producer.produce(
        avro_keyed, key=keys_v2({"account": 8, "region": "us"}), value=values({"n": 2, "state": "v2"})
    )
    producer.produce(avro_keyed, key=keys_v1({"account": 9}), value=values({"n": 3, "state": "old key"}))
    assert producer.flush(30) == 0
    report = harness.run(spark)
    assert report.exit_code == 0, report

    avro_rows = loaded(spark, topic_report(report, avro_keyed).table or "")
    assert [r["_kafka_key_avro"] for r in avro_rows] == [
        {"account": 7, "region": None},  # loaded before the key gained a field: the row keeps NULL
        {"account": 8, "region": "us"},
        {"account": 9, "region": "eu"},  # an old key read with the latest key schema: the default
    ]
    assert bytes(avro_rows[0]["_kafka_key"]) == first_key
    assert [r["_kafka_key_string"] for r in avro_rows] == [None, None, None]
    assert [r["n"] for r in avro_rows] == [1, 2, 3]

    text_rows = loaded(spark, topic_report(report, text_keyed).table or "")
    assert [r["_kafka_key_string"] for r in text_rows] == ["user-1", None, None]
    assert [None if r["_kafka_key"] is None else bytes(r["_kafka_key"]) for r in text_rows] == [
        b"user-1",
        None,
        b"\xff\xfe not utf-8",
    ]
    assert "_kafka_key_avro" not in text_rows[0]
    # Headers in order, repeated keys kept.
    assert [(h["key"], bytes(h["value"])) for h in text_rows[0]["_kafka_headers"]] == headers
    assert text_rows[1]["_kafka_headers"] == []
    assert [r["_kafka_deleted"] for r in text_rows] == [False, False, False]


def wait_until_compacted(
    harness: Harness, topic: str, roll_value: bytes, since: int
) -> list[tuple[int, int]]:
    """Until the broker's cleaner has removed superseded records at or after offset `since` (gaps appear
    among those offsets; gaps before it, from an earlier compaction, do not count) and is done with what
    it can clean (the records Kafka holds stay the same for a few cleaner rounds); returns them."""
    deadline = time.monotonic() + 180
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})

    def no_gap_since(held: list[tuple[int, int]], end: int) -> bool:
        return sum(1 for _, offset in held if offset >= since) == end - since

    held = committed_offsets(harness, topic)
    end = watermarks(harness.kafka.bootstrap, [(topic, 0)])[(topic, 0)].end
    while no_gap_since(held, end):
        assert time.monotonic() < deadline, f"the broker did not compact {topic}"
        # A new record rolls the active segment (segment.ms is tiny): only closed segments are compacted.
        producer.produce(topic, key=b"roll", value=roll_value)
        producer.flush(10)
        time.sleep(1)
        held = committed_offsets(harness, topic)
        end = watermarks(harness.kafka.bootstrap, [(topic, 0)])[(topic, 0)].end
    while True:  # the cleaner may have more closed segments to go through: wait until it is quiet
        time.sleep(3)  # six cleaner rounds (KAFKA_CLEANER_BACKOFF_MS=500 in the test broker)
        again = committed_offsets(harness, topic)
        if again == held:
            return held
        assert time.monotonic() < deadline, f"the broker kept compacting {topic}"
        held = again


def test_a_compacted_topic_loads_tombstones_as_deletion_rows_and_what_compaction_left(
    harness: Harness, spark: SparkSession
) -> None:
    topic = harness.topic(
        prefix="changelog",
        config={
            "cleanup.policy": "compact",
            "segment.ms": "100",
            "min.cleanable.dirty.ratio": "0.01",
            "min.compaction.lag.ms": "0",
            "delete.retention.ms": "86400000",  # tombstones stay: they are what downstream deletes by
        },
    )
    values = harness.serializer(topic, PAYMENT)
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    for version in range(3):
        for account in range(10):
            producer.produce(
                topic, key=f"acct-{account}".encode(), value=values({"n": version, "state": "v"})
            )
    assert producer.flush(30) == 0
    first = topic_report(harness.run(spark, skip_tombstones=True), topic)  # compacted: loaded anyway
    assert (first.records, first.tombstones) == (30, 0)

    for account in range(5):
        producer.produce(topic, key=f"acct-{account}".encode(), value=values({"n": 3, "state": "v"}))
    for account in (5, 6):
        producer.produce(topic, key=f"acct-{account}".encode(), value=None)  # deletes
    for account in range(5):
        producer.produce(topic, key=f"acct-{account}".encode(), value=values({"n": 4, "state": "v"}))
    assert producer.flush(30) == 0
    roll = values({"n": -1, "state": "roll"})
    held_now = [o for p, o in wait_until_compacted(harness, topic, roll, since=30) if o >= 30]
    end_now = watermarks(harness.kafka.bootstrap, [(topic, 0)])[(topic, 0)].end

    second = topic_report(harness.run(spark, skip_tombstones=True), topic)
    assert (second.status, second.quarantined) == ("loaded", 0)
    table = second.table or ""
    rows = loaded(spark, table, "_kafka_offset, _kafka_key_string, _kafka_deleted, n")
    assert [r["_kafka_offset"] for r in rows if r["_kafka_offset"] >= 30] == held_now
    assert len(held_now) < end_now - 30  # compaction really removed superseded records
    deleted = {r["_kafka_key_string"] for r in rows if r["_kafka_deleted"]}
    assert {"acct-5", "acct-6"} <= deleted
    assert all(r["n"] is None for r in rows if r["_kafka_deleted"])
    assert second.tombstones == sum(1 for r in rows if r["_kafka_deleted"])

    # The documented query: each key's latest state, deleted keys gone.
    latest = spark.sql(
        f"""SELECT _kafka_key_string AS account, n FROM (
              SELECT *, row_number() OVER (PARTITION BY _kafka_key ORDER BY _kafka_offset DESC) AS r
              FROM {table}) WHERE r = 1 AND NOT _kafka_deleted ORDER BY account"""
    ).collect()
    assert {r["account"]: r["n"] for r in latest} == {
        **{f"acct-{a}": 4 for a in range(5)},
        **{f"acct-{a}": 2 for a in (7, 8, 9)},
        "roll": -1,
    }
    windows = audit(harness.settings(), spark, "loader_quarantine")
    assert [w for w in windows.windows if w.topic == topic and not w.ok] == []


def test_tombstones_of_a_topic_that_is_not_compacted_load_or_are_skipped_by_the_setting(
    harness: Harness, spark: SparkSession
) -> None:
    loads, skips = harness.topic(prefix="loads"), harness.topic(prefix="skips")
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    for topic in (loads, skips):
        values = harness.serializer(topic, PAYMENT)
        producer.produce(topic, key=b"k", value=values({"n": 1, "state": "v"}))
        producer.produce(topic, key=b"k", value=None)
    assert producer.flush(30) == 0

    first = topic_report(harness.run(spark, include_topics=loads), loads)
    second = topic_report(harness.run(spark, include_topics=skips, skip_tombstones=True), skips)

    assert (first.records, first.tombstones, first.quarantined, first.skipped) == (2, 1, 0, 0)
    assert [r["_kafka_deleted"] for r in loaded(spark, first.table or "")] == [False, True]
    assert (second.records, second.tombstones, second.quarantined, second.skipped) == (1, 1, 0, 1)
    assert [r["_kafka_deleted"] for r in loaded(spark, second.table or "")] == [False]
    report = audit(harness.settings(), spark, "loader_quarantine")
    windows = [w for w in report.windows if w.topic == skips]
    assert [(w.kafka, w.table_rows, w.skipped, w.ok) for w in windows] == [(2, 1, 1, True)]
    assert table_name(skips) in (second.table or "")
