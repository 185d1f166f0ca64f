"""Current-state tables in Iceberg (`IcebergFormat.merge_current`): in real Spark and Iceberg, each
merge leaves one row per live key, the latest record's, as `loader.schema.current_state.current_rows`
computes it, and commits the topic's offsets in the same snapshot, so a rerun applies no record twice."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from loader.config import LoaderSettings
from loader.formats import CurrentMerge
from loader.formats.iceberg import IcebergFormat, summary_key
from loader.formats.iceberg_current import DELETE, current_changes
from loader.formats.iceberg_maintenance import maintain_table
from loader.schema.current_state import KeyedChange, change_action, current_rows

pytestmark = pytest.mark.integration

HISTORY = (
    "name string, n int, _kafka_partition int, _kafka_offset long, _kafka_timestamp timestamp, "
    "_kafka_key binary, _kafka_key_string string, _kafka_deleted boolean"
)
AT = datetime(2026, 1, 1, tzinfo=UTC)
# (offset, key, name or None for a tombstone); partition 0.
RUN_1 = [(0, "a", "a0"), (1, "a", "a1"), (2, "b", "b2"), (3, "c", "c3"), (4, "c", None), (5, None, "x5")]
RUN_2 = [(6, "b", None), (7, "c", "c7"), (8, "a", "a8"), (9, "d", "d9"), (10, "a", "a10"), (11, "a", "a11")]


def history_rows(spark: SparkSession, records: list[tuple[int, str | None, str | None]]) -> DataFrame:
    rows = [
        (name, offset, 0, offset, AT, key.encode() if key else None, key, name is None)
        for offset, key, name in records
    ]
    return spark.createDataFrame(rows, HISTORY)


def expected(records: list[tuple[int, str | None, str | None]]) -> dict[str, Any]:
    changes = [KeyedChange(k, 0, o, change_action(name is None), name) for o, k, name in records]
    return current_rows(changes)


def table_rows(spark: SparkSession, qualified: str) -> dict[str, Any]:
    rows = spark.sql(f"SELECT _kafka_key_string AS k, name FROM {qualified}").collect()
    keys = [r["k"] for r in rows]
    assert len(keys) == len(set(keys)), f"one row per key: {keys}"
    return {r["k"]: r["name"] for r in rows}


def summaries(spark: SparkSession, qualified: str) -> list[dict[str, str]]:
    rows = spark.sql(f"SELECT summary FROM {qualified}.snapshots ORDER BY committed_at").collect()
    return [dict(r["summary"]) for r in rows]


@pytest.fixture
def current_table(spark: SparkSession, iceberg_spark: SparkSession):  # type: ignore[no-untyped-def]
    database = f"current_{uuid.uuid4().hex[:8]}"
    iceberg_spark.sql(f"CREATE DATABASE {database}")
    yield IcebergFormat(iceberg_spark, database, "hour"), database
    iceberg_spark.sql(f"DROP DATABASE {database} CASCADE")
    # An Iceberg format made its session the active one: later tests expect the Hive one's.
    spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)


def test_merges_keep_the_latest_row_per_key_with_the_offsets_in_the_same_snapshot(
    iceberg_spark: SparkSession, current_table: tuple[IcebergFormat, str]
) -> None:
    tables, database = current_table
    first = history_rows(iceberg_spark, RUN_1)
    schema = current_changes(first, False, {}).drop(DELETE).schema
    state = tables.ensure_current("flags_current", schema)
    assert state.action == "created"
    qualified = f"{database}.flags_current"
    properties = dict(iceberg_spark.sql(f"SHOW TBLPROPERTIES {qualified}").collect())
    assert properties["write.merge.mode"] == "merge-on-read"

    tables.merge_current(CurrentMerge("flags_current", first, False, "flags", "id-1", {0: 6}))
    # Updates of one key in one run, a tombstone after an insert, a record without a key left out.
    assert table_rows(iceberg_spark, qualified) == expected(RUN_1) == {"a": "a1", "b": "b2"}
    [merged] = summaries(iceberg_spark, qualified)
    assert json.loads(merged[summary_key("flags")]) == {"topic_id": "id-1", "offsets": {"0": 6}}

    # The next run, read again from offset 0 (a run killed after this table's commit, before the run's).
    both = history_rows(iceberg_spark, RUN_1 + RUN_2)
    tables.merge_current(CurrentMerge("flags_current", both, False, "flags", "id-1", {0: 12}))
    assert (
        table_rows(iceberg_spark, qualified) == expected(RUN_1 + RUN_2) == {"a": "a11", "c": "c7", "d": "d9"}
    )
    latest = summaries(iceberg_spark, qualified)[-1]
    assert json.loads(latest[summary_key("flags")])["offsets"] == {"0": 12}
    assert int(latest["added-dvs"]) >= 1  # merge-on-read: deletion vectors, not rewritten files

    # A rerun bounded lower than what the table holds applies nothing it holds: `a` stays a11.
    tables.merge_current(
        CurrentMerge("flags_current", history_rows(iceberg_spark, RUN_1), False, "flags", "id-1", {0: 6})
    )
    assert table_rows(iceberg_spark, qualified) == {"a": "a11", "c": "c7", "d": "d9"}
    assert json.loads(summaries(iceberg_spark, qualified)[-1][summary_key("flags")])["offsets"] == {"0": 12}


ENVELOPE = (
    "before struct<id:int, email:string>, after struct<id:int, email:string>, "
    "source struct<db:string, table:string>, op string, ts_ms long, "
    "_kafka_partition int, _kafka_offset long, _kafka_timestamp timestamp, _kafka_key binary, "
    "_kafka_key_string string, _kafka_key_avro struct<id:int>, _kafka_deleted boolean"
)


def test_a_debezium_change_stream_mirrors_the_source_rows(
    iceberg_spark: SparkSession, current_table: tuple[IcebergFormat, str]
) -> None:
    tables, database = current_table
    source = ("inventory", "customers")
    # Snapshot reads, an insert, updates, a delete and the tombstone Debezium sends after it.
    changes = [
        (None, (1, "one@x"), "r", 1),
        (None, (2, "two@x"), "r", 2),
        (None, (3, "three@x"), "c", 3),
        ((1, "one@x"), (1, "uno@x"), "u", 1),
        ((2, "two@x"), None, "d", 2),
        (None, None, None, 2),  # the tombstone
        ((3, "three@x"), (3, "tres@x"), "u", 3),
    ]
    rows = [
        (before, after, source, op, 0, 0, offset, AT, b"k", str(key), (key,), op is None)
        for offset, (before, after, op, key) in enumerate(changes)
    ]
    frame = iceberg_spark.createDataFrame(rows, ENVELOPE)
    schema = current_changes(frame, True, {}).drop(DELETE).schema
    assert schema.fieldNames()[:2] == ["id", "email"]  # the `after` record's fields are the columns
    tables.ensure_current("customers_current", schema)
    tables.merge_current(CurrentMerge("customers_current", frame, True, "db.customers", None, {0: 7}))
    got = iceberg_spark.sql(f"SELECT id, email FROM {database}.customers_current ORDER BY id").collect()
    assert [tuple(r) for r in got] == [(1, "uno@x"), (3, "tres@x")]


def test_maintenance_rewrites_the_deleted_rows_out_of_a_current_state_table(
    iceberg_spark: SparkSession, current_table: tuple[IcebergFormat, str]
) -> None:
    tables, database = current_table
    qualified = f"{database}.flags_current"
    for end, records in ((6, RUN_1), (12, RUN_1 + RUN_2)):
        rows = history_rows(iceberg_spark, records)
        tables.merge_current(CurrentMerge("flags_current", rows, False, "flags", "id-1", {0: end}))
    assert int(summaries(iceberg_spark, qualified)[-1]["total-delete-files"]) >= 1
    settings = LoaderSettings(
        bootstrap_servers="k", registry_url="http://r", warehouse="/w", database=database
    )
    request = settings.maintain_request("maintain-1", datetime.now(UTC))
    done = maintain_table(iceberg_spark, request, "flags_current")
    assert done.rewritten_files >= 1
    latest = summaries(iceberg_spark, qualified)[-1]
    assert (latest["total-delete-files"], latest["total-position-deletes"]) == ("0", "0")
    assert table_rows(iceberg_spark, qualified) == expected(RUN_1 + RUN_2)
    # The offsets are still the table's own account, past the compaction's snapshot.
    assert tables.held_offsets("flags_current", "flags", "id-1") == {0: 12}
