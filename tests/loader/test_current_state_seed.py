"""Whole runs (real Kafka, registry, Spark, Iceberg) of a topic that gets its current-state table after
runs loaded it into its history table alone: the run that creates the table seeds it from Kafka's
earliest offsets, so it holds the keys last written before (in older schema versions too, and in a
partition without new records), never the tombstoned ones; the history table gets the run's own records
only. Killed at every step of such a run, the runs after it give the same tables."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Producer
from pyspark.sql import SparkSession

from loader.operations.audit import audit
from loader.outcome.fault_injection import CURRENT_STATE_CRASH_POINTS
from loader.run.work import QUARANTINE_TABLE
from loader.schema.current_state import KeyedChange, change_action, current_rows
from loader.schema.naming import table_name
from tests.loader.harness import Harness, record_schema
from tests.loader.test_current_state_runs import ACCOUNT, killed_at_each_then_run
from tests.tiers import steps_by_tier

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

# The value schema's next version: a field added with a default, which the older records read.
ACCOUNT_V2 = record_schema(
    "Account",
    [
        {"name": "owner", "type": "string"},
        {"name": "balance", "type": "long"},
        {"name": "tier", "type": "string", "default": "basic"},
    ],
)


def test_a_topic_given_its_current_state_table_later_has_it_seeded_with_the_keys_loaded_before(
    harness: Harness, spark: SparkSession, iceberg_spark: SparkSession
) -> None:
    harness.table_format = "iceberg"
    topic = harness.topic(partitions=2, prefix="flags")  # not compacted: the pattern chooses it
    pattern = f"{harness.prefix}\\.flags\\..*"
    history = f"{harness.database}.{table_name(topic)}"
    current = f"{history}_current"
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    produced: list[KeyedChange] = []
    offsets = {0: 0, 1: 0}

    def produce(serialize: Callable[[Any], bytes], records: list[tuple[int, dict[str, Any] | None]]) -> None:
        """Each key in partition key % 2; a value without `tier` is of the first version."""
        for key, value in records:
            partition = key % 2
            body = None if value is None else serialize(value)
            producer.produce(topic, key=str(key).encode(), value=body, partition=partition)
            row = None if value is None else (value["owner"], value["balance"], value.get("tier", "basic"))
            produced.append(
                KeyedChange(str(key), partition, offsets[partition], change_action(value is None), row)
            )
            offsets[partition] += 1
        assert producer.flush(30) == 0

    def table_rows() -> dict[str, tuple[str, int, str]]:
        iceberg_spark.catalog.refreshTable(current)
        rows = iceberg_spark.sql(
            f"SELECT _kafka_key_string AS k, owner, balance, tier FROM {current}"
        ).collect()
        assert len(rows) == len({r["k"] for r in rows}), "one row per key"
        return {r["k"]: (r["owner"], r["balance"], r["tier"]) for r in rows}

    def history_counts() -> tuple[int, int]:
        iceberg_spark.catalog.refreshTable(history)
        counted = iceberg_spark.sql(
            f"SELECT count(*) AS n, count(DISTINCT _kafka_partition, _kafka_offset) AS d FROM {history}"
        ).first()
        return counted["n"], counted["d"]

    v1, v2 = harness.serializer(topic, ACCOUNT), harness.serializer(topic, ACCOUNT_V2)
    try:
        # Two runs with the history table alone: the pattern is not set yet.
        produce(v1, [(1, {"owner": "ann", "balance": 1}), (2, {"owner": "bob", "balance": 2})])
        produce(v1, [(3, {"owner": "cat", "balance": 3}), (4, {"owner": "dan", "balance": 4})])
        produce(v1, [(1, {"owner": "ann", "balance": 5}), (6, {"owner": "fay", "balance": 6})])
        assert harness.run(iceberg_spark).exit_code == 0
        produce(v2, [(4, None), (5, {"owner": "eve", "balance": 7, "tier": "gold"})])
        produce(v2, [(6, {"owner": "fay", "balance": 8, "tier": "gold"}), (2, None)])
        assert harness.run(iceberg_spark).exit_code == 0
        assert not iceberg_spark.catalog.tableExists(current)
        before = len(produced)
        # The pattern set: new records in partition 0 alone (keys 3 and 5, in partition 1, are seeded
        # from their records of the first runs, key 3's of the first schema version).
        produce(v2, [(2, {"owner": "bob", "balance": 9, "tier": "gold"}), (6, None)])
        report = harness.run(iceberg_spark, current_state_topics=pattern)
        assert report.exit_code == 0, report.to_json()
        [loaded] = [t for t in report.topics if t.topic == topic]
        assert loaded.records == len(produced) - before, "the history table gets the run's records only"
        assert loaded.tables == {history: 2}
        [note] = [n for n in loaded.notes if "seeded" in n]
        assert "[0, 6) of partition 0" in note and "[0, 4) of partition 1" in note, note
        assert table_rows() == current_rows(produced)
        assert current_rows(produced) == {
            "1": ("ann", 5, "basic"),
            "2": ("bob", 9, "gold"),
            "3": ("cat", 3, "basic"),
            "5": ("eve", 7, "gold"),
        }
        assert history_counts() == (len(produced), len(produced))
        # The runs after it merge their own records only, the table holding the topic by its summary.
        produce(v2, [(3, None), (7, {"owner": "gus", "balance": 10, "tier": "gold"})])
        report = harness.run(iceberg_spark, current_state_topics=pattern)
        assert report.exit_code == 0, report.to_json()
        [loaded] = [t for t in report.topics if t.topic == topic]
        assert not [n for n in loaded.notes if "seeded" in n]
        assert table_rows() == current_rows(produced)
        assert "3" not in table_rows()
        assert history_counts() == (len(produced), len(produced))
        audited = audit(harness.settings(current_state_topics=pattern), iceberg_spark, QUARANTINE_TABLE)
        assert audited.ok, audited.to_json()
        [(_, reconciled)] = [(t, c) for t, c in audited.current if t == topic]
        assert (reconciled.table, reconciled.live_keys, reconciled.rows) == (current, 4, 4)
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)


def test_a_bounded_run_seeds_in_full_and_a_table_left_behind_is_seeded_from_where_it_stopped(
    harness: Harness, spark: SparkSession, iceberg_spark: SparkSession
) -> None:
    """With `max-records-per-partition`, the seeding run reads the retained records before its range in
    full and its own range bounded; a topic that leaves the pattern for a run and comes back has its
    table seeded from the offset it held up to."""
    harness.table_format = "iceberg"
    topic = harness.topic(prefix="flags")
    pattern = f"{harness.prefix}\\.flags\\..*"
    history = f"{harness.database}.{table_name(topic)}"
    current = f"{history}_current"
    values = harness.serializer(topic, ACCOUNT)
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    produced: list[KeyedChange] = []

    def produce(*records: tuple[int, str | None]) -> None:
        for key, owner in records:
            value = None if owner is None else values({"owner": owner, "balance": key})
            producer.produce(topic, key=str(key).encode(), value=value)
            produced.append(KeyedChange(str(key), 0, len(produced), change_action(owner is None), owner))
        assert producer.flush(30) == 0

    def run(**overrides: Any) -> list[str]:
        report = harness.run(iceberg_spark, **overrides)
        assert report.exit_code == 0, report.to_json()
        [loaded] = [t for t in report.topics if t.topic == topic]
        return [n for n in loaded.notes if "seeded" in n]

    def table_rows() -> dict[str, str]:
        iceberg_spark.catalog.refreshTable(current)
        rows = iceberg_spark.sql(f"SELECT _kafka_key_string AS k, owner FROM {current}").collect()
        assert len(rows) == len({r["k"] for r in rows}), "one row per key"
        return {r["k"]: r["owner"] for r in rows}

    try:
        produce((1, "a"), (2, "b"), (3, "c"))
        assert run() == []
        produce((4, "d"), (1, None), (5, "e"))
        # Offsets [3, 5) this run, offset 5 the next one's; the seed is [0, 3) whatever the bound.
        assert run(current_state_topics=pattern, max_records_per_partition=2) == [
            f"current-state table {table_name(topic)}_current seeded with offsets before this run's, which "
            "it did not hold: [0, 3) of partition 0"
        ]
        assert table_rows() == current_rows(produced[:5]) == {"2": "b", "3": "c", "4": "d"}
        produce((6, "f"), (2, None))
        assert run() == []  # the pattern gone for a run: offsets [5, 8) into the history table alone
        assert table_rows() == current_rows(produced[:5])
        produce((7, "g"))
        [note] = run(current_state_topics=pattern)
        assert note.endswith("[5, 8) of partition 0"), note
        assert table_rows() == current_rows(produced) == {"3": "c", "4": "d", "5": "e", "6": "f", "7": "g"}
        iceberg_spark.catalog.refreshTable(history)
        assert iceberg_spark.table(history).count() == len(produced)
        audited = audit(harness.settings(), iceberg_spark, QUARANTINE_TABLE)
        assert audited.ok, audited.to_json()
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)


# The steps of a seeding run: before anything, after the history append (before the merge), after the
# merge, after the run's own commit. The default tier kills the two whose state only seeding leaves: the
# current-state table made and not seeded (the rerun must seed it in full), and seeded and merged without
# the run's manifest (the rerun must not seed it again); the full tier all four.
SEED_CRASH_POINTS = ("after_table_ready", "after_iceberg_commit", "after_current_commit", "after_manifest")
SEED_OWN_POINTS = ("after_table_ready", "after_current_commit")


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("points", steps_by_tier(SEED_OWN_POINTS, SEED_CRASH_POINTS))
def test_a_seeding_run_killed_at_every_step_and_run_again_gives_the_tables_computed_from_kafka(
    cli_harness: Harness, points: tuple[str, ...]
) -> None:
    """A topic loaded by a run with its history table alone, then `loader run` with the pattern set
    killed at each step of the run that seeds its current-state table, each after more records: the run
    after them leaves the current-state table every record computes, and every record once in the
    history table."""
    assert set(SEED_OWN_POINTS) <= set(SEED_CRASH_POINTS) <= set(CURRENT_STATE_CRASH_POINTS)
    cli_harness.table_format = "iceberg"
    topic = cli_harness.topic(partitions=2, prefix="flags")
    values = cli_harness.serializer(topic, ACCOUNT)
    producer = Producer({"bootstrap.servers": cli_harness.kafka.bootstrap})
    chosen = {"current_state_topics": f"{cli_harness.prefix}\\.flags\\..*"}
    offsets = {0: 0, 1: 0}
    # Keys the rounds after never write (theirs are 0 to 6): only a seed puts them in the table.
    produced: list[KeyedChange] = []
    for key, balance in [(10, 1), (11, 2), (12, 3), (13, 4), (12, None), (10, 5)]:
        partition = key % 2
        value = None if balance is None else values({"owner": f"o{key}", "balance": balance})
        producer.produce(topic, key=str(key).encode(), value=value, partition=partition)
        row = None if balance is None else (f"o{key}", balance)
        produced.append(KeyedChange(key, partition, offsets[partition], change_action(value is None), row))
        offsets[partition] += 1
    assert producer.flush(30) == 0
    first = cli_harness.run_cli()
    assert first.returncode == 0, first.stderr[-3000:]
    history = f"{cli_harness.database}.{table_name(topic)}"
    statements = (
        f"SELECT count(*) AS n, count(DISTINCT _kafka_partition, _kafka_offset) AS d FROM {history}",
        f"SELECT _kafka_key_string AS k, owner, balance FROM {history}_current",
    )
    after_kills, [counted, rows] = killed_at_each_then_run(
        cli_harness, producer, topic, values, offsets, points, statements, chosen, first_round=1
    )
    produced += after_kills
    assert (counted[0]["n"], counted[0]["d"]) == (len(produced), len(produced))
    got = {int(r["k"]): (r["owner"], r["balance"]) for r in rows}
    assert len(got) == len(rows), "one row per key"
    assert got == current_rows(produced)
    assert {10: ("o10", 5), 11: ("o11", 2), 13: ("o13", 4)}.items() <= got.items()
