"""Whole runs (real Kafka, registry, Spark, Iceberg) keeping a compacted topic's current-state table:
inserts, updates and tombstones over several runs, under an Avro key schema and under plain string keys,
and a key updated many times in one run. After each run the table equals what `current_rows` computes
from every record produced so far. (A compacted topic refuses records without a key: their refusal from a
current-state table is tested at the format level, in test_iceberg_current.py.)"""

from __future__ import annotations

import io
import json
import signal
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from pyspark.sql import SparkSession
from rich.console import Console

from loader.operations.audit import audit
from loader.operations.audit import render as render_audit
from loader.outcome.fault_injection import CURRENT_STATE_CRASH_POINTS
from loader.outcome.report import EXIT_FAILED
from loader.run.work import QUARANTINE_TABLE
from loader.schema.current_state import NO_KEY, KeyedChange, change_action, current_rows
from loader.schema.naming import table_name
from tests.loader.change_envelopes import CUSTOMER_KEY_JSON, debezium_json_envelope
from tests.loader.harness import Harness, record_schema
from tests.tiers import steps_by_tier

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

ACCOUNT = record_schema("Account", [{"name": "owner", "type": "string"}, {"name": "balance", "type": "long"}])
KEY = record_schema("AccountKey", [{"name": "id", "type": "int"}])
# Each run's records: (key, value or None for a tombstone).
RUNS: list[list[tuple[int, dict[str, Any] | None]]] = [
    [
        (1, {"owner": "ann", "balance": 1}),
        (2, {"owner": "bob", "balance": 5}),
    ]
    + [(1, {"owner": "ann", "balance": n}) for n in range(2, 12)],  # one key updated many times in a run
    [(2, None), (3, {"owner": "cat", "balance": 7}), (1, {"owner": "ann", "balance": 99})],
    [(3, None), (2, {"owner": "bob", "balance": 6}), (3, None)],
]


@pytest.mark.parametrize("keys", ["avro", "string"])
def test_a_compacted_topic_s_current_state_table_over_several_runs(
    harness: Harness, spark: SparkSession, iceberg_spark: SparkSession, keys: str
) -> None:
    harness.table_format = "iceberg"
    topic = harness.topic(config={"cleanup.policy": "compact"})
    values = harness.serializer(topic, ACCOUNT)
    avro_key = harness.serializer(topic, KEY, MessageField.KEY)
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    current = f"{harness.database}.{table_name(topic)}_current"
    key_sql = "_kafka_key_avro.id" if keys == "avro" else "CAST(_kafka_key_string AS INT)"
    produced: list[KeyedChange] = []
    failed: list[str] = []

    def delivered(error: Any, message: Any) -> None:
        if error is not None:
            failed.append(str(error))

    try:
        for records in RUNS:
            for key, value in records:
                encoded = (
                    None if key is None else avro_key({"id": key}) if keys == "avro" else str(key).encode()
                )
                producer.produce(
                    topic, key=encoded, value=None if value is None else values(value), on_delivery=delivered
                )
                offset = len(produced)
                row = None if value is None else (value["owner"], value["balance"])
                produced.append(KeyedChange(key, 0, offset, change_action(value is None), row))
            assert producer.flush(30) == 0 and not failed, failed
            report = harness.run(iceberg_spark)
            assert report.exit_code == 0, report.to_json()
            iceberg_spark.catalog.refreshTable(current)
            rows = iceberg_spark.sql(f"SELECT {key_sql} AS k, owner, balance FROM {current}").collect()
            got = {r["k"]: (r["owner"], r["balance"]) for r in rows}
            assert len(got) == len(rows), "one row per key"
            assert got == current_rows(produced)
        assert got == {1: ("ann", 99), 2: ("bob", 6)}
        # The history table holds every record, the one without a key too.
        history = iceberg_spark.sql(f"SELECT count(*) AS c FROM {harness.database}.{table_name(topic)}")
        assert history.first()["c"] == len(produced)
        # The audit's full read of the topic (up to the offsets the table holds, which its format tells)
        # agrees with the table, and finds a row changed behind its back.
        settings = harness.settings()
        audited = dict(audit(settings, iceberg_spark, QUARANTINE_TABLE).current)[topic]
        assert (audited.table, audited.agrees, audited.live_keys, audited.rows) == (current, True, 2, 2)
        iceberg_spark.sql(f"UPDATE {current} SET _kafka_offset = 0 WHERE owner = 'ann'")
        iceberg_spark.sql(f"UPDATE {current} SET _kafka_key = CAST('9' AS BINARY) WHERE owner = 'bob'")
        tampered = dict(audit(settings, iceberg_spark, QUARANTINE_TABLE).current)[topic]
        assert (tampered.agrees, tampered.stale, tampered.extra, tampered.missing) == (False, 1, 1, 1)
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)


CUSTOMER = {
    "type": "record",
    "name": "Value",
    "fields": [{"name": "id", "type": "int"}, {"name": "email", "type": "string"}],
}
# Debezium's envelope as its Avro converter registers it (fewer source fields).
ENVELOPE = {
    "type": "record",
    "name": "Envelope",
    "namespace": "dbserver1.inventory.customers",
    "fields": [
        {"name": "before", "type": ["null", CUSTOMER], "default": None},
        {"name": "after", "type": ["null", "Value"], "default": None},
        {
            "name": "source",
            "type": {
                "type": "record",
                "name": "Source",
                "namespace": "io.debezium.connector.postgresql",
                "fields": [{"name": "db", "type": "string"}, {"name": "table", "type": "string"}],
            },
        },
        {"name": "op", "type": "string"},
        {"name": "ts_ms", "type": ["null", "long"], "default": None},
    ],
}
CUSTOMER_KEY = {
    "type": "record",
    "name": "Key",
    "namespace": "dbserver1.inventory.customers",
    "fields": [{"name": "id", "type": "int"}],
}


@pytest.mark.parametrize("converter", ["avro", "json"])
def test_a_debezium_change_stream_is_mirrored_into_a_table_equal_to_the_source_rows(
    harness: Harness, spark: SparkSession, iceberg_spark: SparkSession, converter: str
) -> None:
    """Debezium's envelope as Kafka Connect's Avro converter and its JSON Schema converter register it
    (keys and values alike; confluent-kafka's serializers write what the converters write)."""
    harness.table_format = "iceberg"
    topic = harness.topic(prefix="dbserver1")  # not compacted: recognised by its schema alone
    if converter == "avro":
        values = harness.serializer(topic, ENVELOPE)
        keys = harness.serializer(topic, CUSTOMER_KEY, MessageField.KEY)
    else:
        values = json_serializer(harness, topic, debezium_json_envelope(), MessageField.VALUE)
        keys = json_serializer(harness, topic, CUSTOMER_KEY_JSON, MessageField.KEY)
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    source_rows: dict[int, str] = {}  # the database table the stream comes from
    source = {"db": "inventory", "table": "customers"}

    def change(op: str, id_: int, email: str | None) -> None:
        before = {"id": id_, "email": source_rows[id_]} if id_ in source_rows else None
        after = {"id": id_, "email": email} if email is not None else None
        envelope = {"before": before, "after": after, "source": source, "op": op, "ts_ms": 1}
        producer.produce(topic, key=keys({"id": id_}), value=values(envelope))
        if op == "d":
            del source_rows[id_]
            producer.produce(topic, key=keys({"id": id_}), value=None)  # the tombstone after a delete
        else:
            source_rows[id_] = email  # type: ignore[assignment]

    current = f"{harness.database}.{table_name(topic)}_current"
    runs = [
        [("r", 1, "a@x"), ("r", 2, "b@x"), ("r", 3, "c@x"), ("c", 4, "d@x"), ("u", 1, "a2@x")],
        [("d", 2, None), ("u", 3, "c2@x"), ("u", 3, "c3@x"), ("c", 5, "e@x"), ("d", 4, None)],
        [("c", 2, "b2@x"), ("u", 5, "e2@x")],
    ]
    try:
        for changes in runs:
            for op, id_, email in changes:
                change(op, id_, email)
            assert producer.flush(30) == 0
            report = harness.run(iceberg_spark)
            assert report.exit_code == 0, report.to_json()
            iceberg_spark.catalog.refreshTable(current)
            rows = iceberg_spark.sql(f"SELECT id, email FROM {current}").collect()
            assert len(rows) == len({r["id"] for r in rows}), "one row per key"
            assert {r["id"]: r["email"] for r in rows} == source_rows
        assert source_rows == {1: "a2@x", 2: "b2@x", 3: "c3@x", 5: "e2@x"}
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)


def json_serializer(
    harness: Harness, topic: str, schema: dict[str, Any], field: MessageField
) -> Callable[[Any], bytes]:
    """confluent-kafka's JSONSerializer, registering `<topic>-value` (or `-key`)."""
    client = SchemaRegistryClient({"url": harness.registry_url})
    serialize = JSONSerializer(json.dumps(schema), client)
    context = SerializationContext(topic, field)
    return lambda record: serialize(record, context)


def produce_round(
    producer: Producer, topic: str, values: Callable[[Any], bytes], round_: int, offsets: dict[int, int]
) -> list[KeyedChange]:
    """Six changes of a kill test's round, keyed over 7 accounts in two partitions, every fourth a
    tombstone; `offsets` (each partition's next offset) moves past them."""
    changes = []
    for i in range(6):
        key = (round_ * 3 + i) % 7
        value = None if (round_ + i) % 4 == 3 else {"owner": f"o{key}", "balance": round_ * 10 + i}
        partition = key % 2
        producer.produce(
            topic, key=str(key).encode(), value=None if value is None else values(value), partition=partition
        )
        row = None if value is None else (value["owner"], value["balance"])
        changes.append(KeyedChange(key, partition, offsets[partition], change_action(value is None), row))
        offsets[partition] += 1
    assert producer.flush(30) == 0
    return changes


def killed_at_each_then_run(
    harness: Harness,
    producer: Producer,
    topic: str,
    values: Callable[[Any], bytes],
    offsets: dict[int, int],
    points: tuple[str, ...],
    statements: tuple[str, ...],
    settings: dict[str, Any] | None = None,
    first_round: int = 0,
) -> tuple[list[KeyedChange], list[list[dict[str, Any]]]]:
    """For each crash point a round of changes (`produce_round`), then a `loader run` process killed
    there; then a run to the end, `statements` and the audit in an application of their own (a kill
    needs a process, the run after it does not). `settings`: more settings of every run, by name. The
    changes produced and the statements' rows; the run succeeded and the audit is clean."""
    settings = settings or {}
    env = {f"LOADER_{name.upper()}": str(value).lower() if isinstance(value, bool) else str(value)
           for name, value in settings.items()}  # fmt: skip
    produced: list[KeyedChange] = []
    for round_, point in enumerate(points, start=first_round):
        produced += produce_round(producer, topic, values, round_, offsets)
        done = harness.run_cli(env={**env, "LOADER_CRASH_AT": point})
        assert done.returncode == -signal.SIGKILL, f"{point}: {done.returncode}\n{done.stderr[-2000:]}"
    final, rows, audited = harness.run_query_and_audit_cli(*statements, **settings)
    assert final["exit_code"] == 0, final
    assert audited["ok"], audited
    return produced, rows


# Where a run with a current-state table is killed: before its history append, between that and the merge,
# after the merge (before the run's own commit, its manifest), and after the manifest. The other steps are
# the commit protocol's own, the same with or without a current-state table, and are killed in
# test_run_process.py and test_rest_catalog_kills.py (a manifest's temporary file among them: killed
# there, the run leaves its tables as it does after the merge, committed and without a manifest). The
# default tier kills the step whose state only a current-state table has, the history appended and not
# merged; merged and without the run's manifest is the seeding run's own kill too, from a planned start
# above the table's first offset (test_current_state_seed.py), and this one's in the full tier, which
# kills all four.
CURRENT_STATE_KILL_POINTS = (
    "after_table_ready", "after_iceberg_commit", "after_current_commit", "after_manifest",
)  # fmt: skip
CURRENT_STATE_OWN_POINTS = ("after_iceberg_commit",)


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("points", steps_by_tier(CURRENT_STATE_OWN_POINTS, CURRENT_STATE_KILL_POINTS))
def test_killed_at_every_step_the_rerun_gives_the_table_computed_from_kafka(
    cli_harness: Harness, points: tuple[str, ...]
) -> None:
    """`loader run` processes killed at each of its steps (`points`), each after more inserts, updates
    and tombstones; the run after them leaves the table that every record produced computes."""
    assert set(CURRENT_STATE_OWN_POINTS) <= set(CURRENT_STATE_KILL_POINTS) <= set(CURRENT_STATE_CRASH_POINTS)
    cli_harness.table_format = "iceberg"
    topic = cli_harness.topic(partitions=2, config={"cleanup.policy": "compact"})
    values = cli_harness.serializer(topic, ACCOUNT)
    producer = Producer({"bootstrap.servers": cli_harness.kafka.bootstrap})
    offsets = {0: 0, 1: 0}
    current = f"{cli_harness.database}.{table_name(topic)}_current"
    produced, [rows] = killed_at_each_then_run(
        cli_harness, producer, topic, values, offsets, points,
        (f"SELECT _kafka_key_string AS k, owner, balance FROM {current}",),
    )  # fmt: skip
    got = {int(r["k"]): (r["owner"], r["balance"]) for r in rows}
    assert len(got) == len(rows), "one row per key"
    assert got == current_rows(produced)


def test_the_patterns_add_and_remove_topics_and_records_without_a_key_stay_in_history_only(
    harness: Harness, spark: SparkSession, iceberg_spark: SparkSession
) -> None:
    harness.table_format = "iceberg"
    added = harness.topic(prefix="flags")  # not compacted: added by the pattern
    removed = harness.topic(prefix="ledger", config={"cleanup.policy": "compact"})
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    for topic in (added, removed):
        values = harness.serializer(topic, ACCOUNT)
        records = [("1", 1), (None, 2), ("2", 3), ("1", 4), (None, 5)]
        for key, balance in records:
            if key is None and topic == removed:
                continue  # a compacted topic refuses records without a key
            record = values({"owner": f"o{balance}", "balance": balance})
            producer.produce(topic, key=None if key is None else key.encode(), value=record)
    assert producer.flush(30) == 0
    try:
        report = harness.run(
            iceberg_spark,
            current_state_topics=f"{harness.prefix}\\.flags\\..*",
            no_current_state_topics=f"{harness.prefix}\\.ledger\\..*",
        )
        assert report.exit_code == 0, report.to_json()
        current = f"{harness.database}.{table_name(added)}_current"
        rows = iceberg_spark.sql(f"SELECT _kafka_key_string AS k, balance FROM {current}").collect()
        assert {r["k"]: r["balance"] for r in rows} == {"1": 4, "2": 3}  # the keyless records left out
        # ...and counted in the report, with their reason; the removed topic has no such count.
        counted = {t.topic: t for t in report.topics}
        assert (counted[added].no_key, counted[added].records, counted[removed].no_key) == (2, 5, 0)
        assert (
            f"2 record(s) not in current-state table {table_name(added)}_current "
            f"(its history table keeps them): {NO_KEY}"
        ) in counted[added].notes
        assert '"no_key": 2' in report.to_json()
        history = iceberg_spark.sql(f"SELECT count(*) AS c FROM {harness.database}.{table_name(added)}")
        assert history.first()["c"] == 5
        assert not iceberg_spark.catalog.tableExists(f"{harness.database}.{table_name(removed)}_current")
        assert iceberg_spark.catalog.tableExists(f"{harness.database}.{table_name(removed)}")
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)


def test_without_history_a_topic_has_its_current_state_table_only_and_keyless_records_are_counted(
    harness: Harness, spark: SparkSession, iceberg_spark: SparkSession
) -> None:
    """`current-state-history = false`: no history table is made; the rows, the counts and the offsets
    go with the current-state table's merge alone, run after run; the records without a key are counted
    in the report with their reason."""
    harness.table_format = "iceberg"
    topic = harness.topic(prefix="flags")  # added by the pattern, so it may carry records without a key
    values = harness.serializer(topic, ACCOUNT)
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    history = f"{harness.database}.{table_name(topic)}"
    current = f"{history}_current"
    runs: list[list[tuple[str | None, int | None]]] = [
        [("1", 1), (None, 2), ("2", 3), ("1", 4), ("3", 5)],
        [("3", None), (None, 6), (None, 7), ("2", 8), ("4", 9)],
    ]
    produced: list[KeyedChange] = []
    try:
        for number, records in enumerate(runs):
            for key, balance in records:
                value = None if balance is None else values({"owner": f"o{balance}", "balance": balance})
                producer.produce(topic, key=None if key is None else key.encode(), value=value)
                row = None if balance is None else balance
                produced.append(KeyedChange(key, 0, len(produced), change_action(balance is None), row))
            assert producer.flush(30) == 0
            report = harness.run(
                iceberg_spark,
                current_state_topics=f"{harness.prefix}\\.flags\\..*",
                current_state_history=False,
            )
            assert report.exit_code == 0, report.to_json()
            [loaded] = [t for t in report.topics if t.topic == topic]
            keyless = sum(1 for key, _ in records if key is None)
            assert (loaded.status, loaded.table) == ("loaded", current)
            assert (loaded.records, loaded.quarantined, loaded.no_key) == (len(records), 0, keyless)
            assert loaded.tombstones == sum(1 for _, balance in records if balance is None)
            [note] = [n for n in loaded.notes if NO_KEY in n]
            assert note.startswith(f"{keyless} record(s) not in current-state table")
            assert f'"no_key": {keyless}' in report.to_json()
            assert not iceberg_spark.catalog.tableExists(history), "no history table"
            iceberg_spark.catalog.refreshTable(current)
            rows = iceberg_spark.sql(f"SELECT _kafka_key_string AS k, balance FROM {current}").collect()
            assert len(rows) == len({r["k"] for r in rows}), "one row per key"
            assert {r["k"]: r["balance"] for r in rows} == current_rows(produced), f"run {number}"
            summary = iceberg_spark.sql(
                f"SELECT summary FROM {current}.snapshots ORDER BY committed_at DESC LIMIT 1"
            ).first()["summary"]
            assert json.loads(summary[f"loader.kafka.{topic}"])["offsets"] == {"0": len(produced)}
        assert current_rows(produced) == {"1": 4, "2": 8, "4": 9}
        again = harness.run(
            iceberg_spark, current_state_topics=f"{harness.prefix}\\.flags\\..*", current_state_history=False
        )
        assert [t.status for t in again.topics if t.topic == topic] == ["up to date"]
        # The audit reconciles the table with the topic and counts no windows of a table it has not.
        audited = audit(harness.settings(), iceberg_spark, QUARANTINE_TABLE)
        assert audited.ok, audited.to_json()
        [(_, reconciled)] = [(t, c) for t, c in audited.current if t == topic]
        assert (reconciled.table, reconciled.live_keys, reconciled.rows) == (current, 3, 3)
        assert not [w for w in audited.windows if w.topic == topic]
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)


# Without a history table the merge's snapshot alone carries the offsets: killed between the merge's commit
# and the run's own. Before the merge (the table made, empty) the state is the one the kill test above
# leaves there, history table or not; after the manifest, the rerun completes the manifest, the same
# files with or without a history table, killed there by the test above.
NO_HISTORY_CRASH_POINTS = ("after_current_commit",)


@pytest.mark.timeout(900)
def test_without_history_killed_and_run_again_the_table_is_the_one_kafka_computes(
    cli_harness: Harness,
) -> None:
    """`current-state-history = false`, `loader run` killed between the merge's commit and the run's own:
    the run after it leaves the table every record produced computes, with no history table."""
    cli_harness.table_format = "iceberg"
    topic = cli_harness.topic(partitions=2, config={"cleanup.policy": "compact"})
    values = cli_harness.serializer(topic, ACCOUNT)
    producer = Producer({"bootstrap.servers": cli_harness.kafka.bootstrap})
    offsets = {0: 0, 1: 0}
    history = f"{cli_harness.database}.{table_name(topic)}"
    statements = (
        f"SHOW TABLES IN {cli_harness.database}",
        f"SELECT _kafka_key_string AS k, owner, balance FROM {history}_current",
    )
    produced, [tables, rows] = killed_at_each_then_run(
        cli_harness, producer, topic, values, offsets, NO_HISTORY_CRASH_POINTS, statements,
        {"current_state_history": False},
    )  # fmt: skip
    assert table_name(topic) not in {t["tableName"] for t in tables}, "no history table"
    got = {int(r["k"]): (r["owner"], r["balance"]) for r in rows}
    assert len(got) == len(rows), "one row per key"
    assert got == current_rows(produced)


def test_loader_audit_reconciles_a_current_state_table_and_reports_a_row_deleted_behind_its_back(
    harness: Harness, iceberg_spark: SparkSession
) -> None:
    """`loader audit` reads the compacted topic in full: its live keys and their latest offsets agree with
    the current-state table after a run (exit 0); a row deleted by hand is a missing key (exit 1). The
    audit's report as the command writes it (`--report-json`) and prints it."""
    harness.table_format = "iceberg"
    topic = harness.topic(config={"cleanup.policy": "compact"})
    values = harness.serializer(topic, ACCOUNT)
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    for key, balance in [("1", 1), ("2", 2), ("1", 3), ("3", 4), ("2", None)]:
        value = None if balance is None else values({"owner": f"o{key}", "balance": balance})
        producer.produce(topic, key=key.encode(), value=value)
    assert producer.flush(30) == 0
    loaded = harness.run(iceberg_spark)
    assert loaded.exit_code == 0, loaded.to_json()
    current = f"{harness.database}.{table_name(topic)}_current"

    def audited(ok: bool) -> tuple[dict[str, Any], str]:
        """The audit's JSON report of the table, and what `loader audit` prints of it."""
        done = audit(harness.settings(), iceberg_spark, QUARANTINE_TABLE)
        report = json.loads(done.to_json())
        [reconciled] = [c for c in report["current_state"] if c["topic"] == topic]
        assert reconciled["table"] == current
        assert report["ok"] is ok, report  # `loader audit` exits 0 when ok, else 1
        printed = io.StringIO()
        render_audit(done, Console(file=printed, width=300))
        return reconciled, printed.getvalue()

    clean, _ = audited(True)
    assert (clean["live_keys"], clean["rows"], clean["missing"], clean["extra"], clean["stale"]) == (
        2,
        2,
        0,
        0,
        0,
    )
    iceberg_spark.sql(f"DELETE FROM {current} WHERE _kafka_key_string = '3'")
    damaged, printed = audited(False)
    assert (damaged["live_keys"], damaged["rows"], damaged["missing"], damaged["extra"]) == (2, 1, 1, 0)
    assert "1 current-state table(s) disagree with Kafka" in " ".join(printed.split())


def test_the_run_s_table_checks_cover_current_state_tables(
    harness: Harness, spark: SparkSession, iceberg_spark: SparkSession
) -> None:
    """A Hive table where a topic's current-state table would be is refused as the run's other tables of
    another format are, before any pass: nothing is loaded, and the run after it is removed loads all."""
    harness.table_format = "iceberg"
    topic = harness.topic(prefix="flags")
    values = harness.serializer(topic, ACCOUNT)
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    history = f"{harness.database}.{table_name(topic)}"
    pattern = f"{harness.prefix}\\.flags\\..*"

    def produce(*keys: str) -> None:
        for key in keys:
            producer.produce(topic, key=key.encode(), value=values({"owner": key, "balance": 1}))
        assert producer.flush(30) == 0

    try:
        produce("1", "2")
        first = harness.run(iceberg_spark)  # no pattern: its history table only
        assert first.exit_code == 0, first.to_json()
        spark.sql(f"CREATE TABLE {history}_current (x INT) STORED AS ORC")
        produce("3")
        refused = harness.run(iceberg_spark, current_state_topics=pattern)
        assert refused.exit_code == EXIT_FAILED
        assert refused.error is not None
        assert f"{history}_current is a Hive table. Nothing was loaded" in refused.error
        iceberg_spark.catalog.refreshTable(history)
        assert iceberg_spark.table(history).count() == 2
        spark.sql(f"DROP TABLE {history}_current")
        again = harness.run(iceberg_spark, current_state_topics=pattern)
        assert again.exit_code == 0, again.to_json()
        iceberg_spark.catalog.refreshTable(history)
        assert iceberg_spark.table(history).count() == 3
        rows = iceberg_spark.sql(f"SELECT _kafka_key_string AS k FROM {history}_current").collect()
        assert sorted(r["k"] for r in rows) == ["1", "2", "3"]  # 1 and 2 seeded from the first run's
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)
