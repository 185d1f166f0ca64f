"""Topics that carry several event types, written by confluent-kafka's AvroSerializer with
RecordNameStrategy and TopicRecordNameStrategy: each type into its own table, evolving on its own, every
record in exactly one table, and a schema id no rule places quarantined with its reason."""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest
from confluent_kafka.schema_registry import (
    Schema,
    SchemaRegistryClient,
)
from pyspark.sql import SparkSession
from rich.console import Console

from loader.operations import status
from loader.operations.audit import audit
from loader.outcome.report import TopicReport
from tests.loader import kill_riders
from tests.loader.event_types import buy, click, event, numbered, order, produce, table, view
from tests.loader.harness import Harness
from tests.loader.test_run_process import killed_runs
from tests.tiers import FULL

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]


def only(report: Any, topic: str) -> TopicReport:
    return next(t for t in report.topics if t.topic == topic)


def rows(spark: SparkSession, name: str, columns: str) -> list[tuple[Any, ...]]:
    spark.catalog.refreshTable(name)
    return sorted(tuple(r) for r in spark.sql(f"SELECT {columns} FROM {name}").collect())


def test_event_types_load_into_tables_of_their_own_and_evolve_each_on_its_own(
    harness: Harness, spark: SparkSession
) -> None:
    by_record = harness.topic(partitions=2, prefix="record")  # RecordNameStrategy, two types
    by_topic_record = harness.topic(prefix="topicrecord")  # TopicRecordNameStrategy
    mixed = harness.topic(prefix="mixed")  # `<topic>-value` and a record-named type
    single = harness.topic(prefix="single")  # TopicNameStrategy only: nothing changes for it
    produce(harness, by_record, [
        (click(harness), "record", numbered(0, 5, page="home")),
        (view(harness), "record", numbered(100, 4, url="/a")),
    ])  # fmt: skip
    # A second producer writes the same type by RecordNameStrategy, with a schema of its own (a doc
    # added: another id, registered only under `<record full name>`): one type, one table.
    documented = buy(harness)
    documented["fields"][0]["doc"] = "Sequence number."
    produce(harness, by_topic_record, [
        (buy(harness), "topic_record", numbered(0, 3, cents=250)),
        (documented, "record", numbered(10, 1, cents=1)),
    ])  # fmt: skip
    produce(harness, mixed, [
        (order(harness), "topic", numbered(0, 3)),
        (click(harness), "record", numbered(50, 2, page="cart")),
    ])  # fmt: skip
    produce(harness, single, [(order(harness), "topic", numbered(0, 2))])

    first = harness.run(spark)

    assert first.exit_code == 0, first
    record_report = only(first, by_record)
    assert (record_report.status, record_report.records, record_report.quarantined) == ("loaded", 9, 0)
    assert record_report.table is None  # no `<topic>-value`: no table of the topic's own
    assert record_report.tables == {
        table(harness, by_record, "__click"): 5,
        table(harness, by_record, "__view"): 4,
    }
    assert record_report.event_types == {
        f"{harness.prefix}.shop.Click": f"{harness.prefix}.shop.Click",
        f"{harness.prefix}.shop.View": f"{harness.prefix}.shop.View",
    }
    assert only(first, by_topic_record).event_types == {
        f"{harness.prefix}.shop.Buy": f"{by_topic_record}-{harness.prefix}.shop.Buy"
    }  # the topic's own subject is the one its rows project onto
    assert only(first, by_topic_record).tables == {table(harness, by_topic_record, "__buy"): 4}
    mixed_report = only(first, mixed)
    assert mixed_report.table == table(harness, mixed)  # its `<topic>-value` records keep their table
    assert mixed_report.tables == {table(harness, mixed): 3, table(harness, mixed, "__click"): 2}
    single_report = only(first, single)
    assert (single_report.table, single_report.event_types, single_report.records) == (
        table(harness, single), {}, 2
    )  # fmt: skip

    # Every type evolves (a field added with a default) and more records of every type arrive.
    produce(harness, by_record, [
        (click(harness, v2=True), "record", numbered(5, 3, page="shop", button="right")),
        (view(harness, v2=True), "record", numbered(104, 2, url="/b", seconds=1.5)),
    ])  # fmt: skip
    produce(
        harness,
        by_topic_record,
        [(buy(harness, v2=True), "topic_record", numbered(3, 2, cents=9, currency="USD"))],
    )
    produce(harness, mixed, [
        (order(harness, v2=True), "topic", numbered(3, 1, channel="app")),
        (click(harness, v2=True), "record", numbered(52, 1, page="cart", button="middle")),
    ])  # fmt: skip

    second = harness.run(spark)

    assert second.exit_code == 0, second
    assert only(second, by_record).tables == {
        table(harness, by_record, "__click"): 3, table(harness, by_record, "__view"): 2
    }  # fmt: skip
    assert "evolved" in (only(second, by_record).table_action or "")
    assert rows(spark, table(harness, by_record, "__click"), "n, page, button") == [
        *[(i, "home", "left") for i in range(5)],  # loaded with version 1: the default
        *[(i, "shop", "right") for i in range(5, 8)],
    ]
    assert rows(spark, table(harness, by_record, "__view"), "n, url, seconds") == [
        *[(i, "/a", 0.0) for i in range(100, 104)],
        *[(i, "/b", 1.5) for i in range(104, 106)],
    ]
    assert rows(spark, table(harness, by_topic_record, "__buy"), "n, cents, currency") == [
        (0, 250, "EUR"), (1, 250, "EUR"), (2, 250, "EUR"), (3, 9, "USD"), (4, 9, "USD"), (10, 1, "EUR")
    ]  # fmt: skip
    assert rows(spark, table(harness, mixed), "n, channel") == [
        (0, "web"),
        (1, "web"),
        (2, "web"),
        (3, "app"),
    ]
    assert rows(spark, table(harness, mixed, "__click"), "n, page, button") == [
        (50, "cart", "left"), (51, "cart", "left"), (52, "cart", "middle")
    ]  # fmt: skip
    # A record-named type of another topic's records is the same subject, projected onto its own latest
    # version in each topic's table; the single-type topic's table never saw it.
    assert "button" not in spark.table(table(harness, single)).columns

    # Every record in exactly one table, none quarantined, and the audit agrees.
    for topic, suffixes in (
        (by_record, ["__click", "__view"]),
        (by_topic_record, ["__buy"]),
        (mixed, ["", "__click"]),
    ):
        loaded = [
            r
            for s in suffixes
            for r in rows(spark, table(harness, topic, s), "_kafka_partition, _kafka_offset")
        ]
        assert len(loaded) == len(set(loaded)), f"{topic}: a record in two tables"
        assert len(loaded) == sum(w for w in only(first, topic).windows.values()) + sum(
            only(second, topic).windows.values()
        )
    quarantine = f"{harness.database}.loader_quarantine"
    assert not spark.catalog.tableExists(quarantine) or spark.table(quarantine).count() == 0
    audited = audit(harness.settings(), spark, "loader_quarantine")
    assert audited.windows and not audited.mismatches
    assert {w.table for w in audited.windows if w.topic == by_record} == {
        f"{table(harness, by_record, '__click')}, {table(harness, by_record, '__view')}"
    }

    quiet = harness.run(spark)  # nothing new: every table holds its types' schemas already
    assert {only(quiet, t).status for t in (by_record, by_topic_record, mixed, single)} == {"up to date"}

    console = Console(record=True, width=400)
    assert status.show(harness.settings(), console, spark) == 0
    shown = console.export_text()
    for name in (table(harness, by_record, "__click"), table(harness, by_record, "__view")):
        assert f"{name} " in shown
    assert f"{table(harness, by_record)} " not in shown  # no `<topic>-value`: no table of its own
    assert f"{table(harness, mixed)} " in shown and f"{table(harness, mixed, '__click')} " in shown


def test_an_id_no_rule_places_is_quarantined_with_its_reason(harness: Harness, spark: SparkSession) -> None:
    topic = harness.topic(prefix="unplaced")
    produce(harness, topic, [(click(harness), "record", numbered(0, 2, page="p"))])
    # A schema of another topic's `-value` subject, and an id the registry never gave.
    client = SchemaRegistryClient({"url": harness.registry_url})
    other = client.register_schema(
        f"{harness.prefix}.other-value", Schema(json.dumps(order(harness)), "AVRO")
    )
    unknown = 1_900_000_001
    harness.produce_raw(
        topic, [b"\x00" + struct.pack(">I", other) + b"\x02", b"\x00" + struct.pack(">I", unknown)]
    )

    report = only(harness.run(spark), topic)

    assert (report.records, report.quarantined) == (2, 2)
    quarantine = f"{harness.database}.loader_quarantine"
    reasons = spark.sql(f"SELECT offset, reason FROM {quarantine} WHERE topic = '{topic}' ORDER BY offset")
    assert [(r["offset"], r["reason"]) for r in reasons.collect()] == [
        (
            2,
            f"schema id {other} belongs to subject(s) {harness.prefix}.other-value, none of which places "
            f"it in topic {topic} (by {topic}-value, {topic}-<record name> or <record name>)",
        ),
        (3, f"schema id {unknown} is unknown to the registry"),
    ]
    assert not audit(harness.settings(), spark, "loader_quarantine").mismatches


def test_an_event_types_table_that_is_another_topics_table_is_refused(
    harness: Harness, spark: SparkSession
) -> None:
    typed = harness.kafka.create_topic(f"{harness.prefix}.coll")
    other = harness.kafka.create_topic(f"{harness.prefix}.coll__x")  # its table: <prefix>_coll__x
    produce(
        harness, typed, [(event(harness, "X", [{"name": "n", "type": "long"}]), "record", numbered(0, 2))]
    )
    produce(harness, other, [(order(harness), "topic", numbered(0, 1))])

    report = harness.run(spark)

    refused, loaded = only(report, typed), only(report, other)
    assert (refused.status, refused.records) == ("failed", 0)
    assert refused.reason == (
        f"{typed}: event type {harness.prefix}.shop.X maps to table '{harness.prefix}_coll__x', which topic "
        f"{other} loads into; none of the topic is loaded. Rename the record or the topic, or exclude one of "
        "the topics"
    )
    assert (loaded.status, loaded.records) == ("loaded", 1)
    assert harness.run(spark).exit_code == 1  # refused again: its offsets did not move


def spark_jobs(spark: SparkSession) -> int:
    return int(spark.sparkContext._jsc.sc().statusStore().jobsList(None).size())


def test_a_topic_without_event_types_is_looked_into_once_for_its_new_records(
    harness: Harness, spark: SparkSession
) -> None:
    typed = harness.topic(
        prefix="typed"
    )  # a record-named subject exists: topics without -value are looked into
    produce(harness, typed, [(click(harness), "record", numbered(0, 1, page="p"))])
    raw = harness.topic(prefix="raw")
    harness.produce_raw(raw, [b"not avro"] * 3)

    first = only(harness.run(spark), raw)
    assert (first.status, first.reason) == ("skipped", f"no schema registered for subject {raw}-value")
    assert first.notes == [
        "no schema id in its first 1000 new offsets per partition belongs to a subject named by record "
        f"({raw}-<record name> or <record name>)"
    ]
    jobs_before = spark_jobs(spark)
    second = harness.run(spark)
    assert (only(second, raw).status, only(second, typed).status) == ("skipped", "up to date")
    assert spark_jobs(spark) == jobs_before  # what was looked into is not read again

    # Records of an event type arrive: the topic loads from its start, its earlier records quarantined.
    produce(harness, raw, [(view(harness), "record", numbered(0, 2, url="u"))])
    third = only(harness.run(spark), raw)
    assert (third.status, third.records, third.quarantined) == ("loaded", 2, 3)
    assert third.tables == {table(harness, raw, "__view"): 2}
    assert not audit(harness.settings(), spark, "loader_quarantine").mismatches


# A topic of several types is killed in the default tier along the Hive kill test's runs
# (test_run_process.py, with tests/loader/kill_riders.py); the full tier kills runs of its own at each
# step whose state a table has, then from outside.
@FULL
def test_killed_runs_over_a_multi_type_topic_load_every_record_once_and_the_audit_is_clean(
    cli_harness: Harness,
) -> None:
    rider = kill_riders.several_event_types(cli_harness)
    points = ("after_table_ready", "after_staging", "after_manifest", "after_first_move")
    killed_runs(cli_harness, points, rider.produce, 10.0)
    final, rows, audited = cli_harness.run_query_and_audit_cli(*rider.statements)
    assert final["exit_code"] == 0, final
    rider.check(rows)
    assert audited["ok"] and audited["windows"], audited  # what `loader audit` prints as clean
