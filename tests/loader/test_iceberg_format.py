"""Apache Iceberg tables (`--table-format iceberg`): what an Iceberg commit says it holds, the schema
changes as Iceberg schema updates, and whole `loader run` processes writing Iceberg tables in the
metastore."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from loader.formats.iceberg import IcebergFormat, cumulative, held_in, summary_key, summary_value
from loader.formats.iceberg_schema import AddColumn, WidenColumn, iceberg_name, schema_updates
from loader.job import QUARANTINE_TABLE
from loader.operations.audit import audit
from loader.operations.status import collect
from loader.schema.column_defaults import Default
from loader.schema.naming import table_name
from loader.schema.table_evolution import UnrepresentableChange, plan_evolution
from tests.loader.harness import Harness, record_schema


def test_a_summary_says_what_the_table_holds_of_its_topic_only() -> None:
    summary = {summary_key("orders"): summary_value("id-1", {0: 10, 1: 4}), "added-records": "3"}
    assert held_in(summary, "orders", "id-1") == {0: 10, 1: 4}
    assert held_in(summary, "orders", None) == {0: 10, 1: 4}
    # A topic recreated under the same name (another id) holds nothing of the old one's offsets.
    assert held_in(summary, "orders", "id-2") == {}
    assert held_in(summary, "payments", "id-1") is None
    assert json.loads(summary[summary_key("orders")])["offsets"] == {"0": 10, "1": 4}


def test_offsets_in_a_summary_only_grow() -> None:
    assert cumulative({0: 10, 1: 4}, {0: 12, 2: 3}) == {0: 12, 1: 4, 2: 3}
    assert cumulative({0: 10}, {0: 8}) == {0: 10}  # a run bounded lower than the stopped one it redoes


def test_nested_paths_are_iceberg_field_names() -> None:
    assert iceberg_name("a") == "a"
    assert iceberg_name("address.zip") == "address.zip"
    assert iceberg_name("items[].sku") == "items.element.sku"
    assert iceberg_name("by_id{}.note") == "by_id.value.note"
    assert iceberg_name("grid[][].x") == "grid.element.element.x"


def test_evolution_plan_as_iceberg_schema_updates_with_the_avro_defaults() -> None:
    item = StructType([StructField("sku", StringType())])
    address = StructType([StructField("city", StringType()), StructField("zip", StringType())])
    current = StructType([
        StructField("n", IntegerType()),
        StructField("ratio", FloatType()),
        StructField("address", StructType(address.fields[:1])),
        StructField("items", ArrayType(item)),
        StructField("old", StringType()),
    ])  # fmt: skip
    latest = StructType([
        StructField("n", LongType()),
        StructField("ratio", DoubleType()),
        StructField("address", address),
        StructField("items", ArrayType(StructType([*item.fields, StructField("price", DoubleType())]))),
        StructField("channel", StringType(), metadata={"comment": "where from"}),
        StructField("tags", ArrayType(StringType())),
    ])  # fmt: skip
    defaults = {"channel": Default("string", "web"), "items[].price": Default("double", 0)}
    assert schema_updates(plan_evolution(current, latest), defaults) == [
        WidenColumn("n", "bigint"),
        WidenColumn("ratio", "double"),
        AddColumn("address", "zip", StringType()),
        AddColumn("items.element", "price", DoubleType(), default=Default("double", 0)),
        AddColumn(None, "channel", StringType(), "where from", Default("string", "web")),
        AddColumn(None, "tags", ArrayType(StringType())),
    ]


@pytest.mark.parametrize(("old", "new"), [("int", "double"), ("long", "float"), ("string", "binary")])
def test_widenings_iceberg_cannot_make_are_refused_with_the_remedy(old: str, new: str) -> None:
    types = {"int": IntegerType(), "long": LongType(), "float": FloatType(), "double": DoubleType()}
    types |= {"string": StringType(), "binary": BinaryType()}
    before, after = StructType([StructField("n", types[old])]), StructType([StructField("n", types[new])])
    plan = plan_evolution(before, after)
    with pytest.raises(UnrepresentableChange, match="Iceberg widens only int -> long and float -> double"):
        schema_updates(plan, {})


EVENT_V1 = record_schema("Order", [
    {"name": "n", "type": "int"},
    {"name": "address", "type": record_schema("Address", [{"name": "city", "type": "string"}])},
])  # fmt: skip
EVENT_V2 = record_schema("Order", [
    {"name": "n", "type": "long"},
    {"name": "address", "type": record_schema("Address", [
        {"name": "city", "type": "string"},
        {"name": "zip", "type": ["null", "string"], "default": None},
    ])},
    {"name": "channel", "type": "string", "default": "web"},
])  # fmt: skip


@pytest.mark.integration
def test_iceberg_tables_load_evolve_and_say_their_offsets(
    harness: Harness, iceberg_spark: SparkSession
) -> None:
    harness.table_format = "iceberg"
    topic = harness.topic(partitions=2)
    harness.produce(topic, EVENT_V1, [{"n": i, "address": {"city": f"c{i}"}} for i in range(6)])
    first = harness.run(iceberg_spark)
    assert first.exit_code == 0, first.to_json()
    harness.produce(
        topic,
        EVENT_V2,
        [{"n": 2**40 + i, "address": {"city": "x", "zip": f"z{i}"}, "channel": "app"} for i in range(4)],
    )
    second = harness.run(iceberg_spark)
    assert second.exit_code == 0, second.to_json()

    table = f"{harness.database}.{table_name(topic)}"
    rows, described, snapshots = (
        [r.asDict(recursive=True) for r in iceberg_spark.sql(statement).collect()]
        for statement in (
            f"SELECT _kafka_partition AS p, _kafka_offset AS o, n, address.zip AS zip, channel FROM {table}",
            f"DESCRIBE TABLE EXTENDED {table}",
            f"SELECT operation, summary FROM {table}.snapshots ORDER BY committed_at",
        )
    )
    assert sorted(r["n"] for r in rows) == [*range(6), *(2**40 + i for i in range(4))]
    assert sorted(r["zip"] for r in rows if r["zip"]) == [f"z{i}" for i in range(4)]
    pairs = sorted((r["p"], r["o"]) for r in rows)
    assert len(pairs) == len(set(pairs)) == 10
    assert any(r["col_name"] == "Provider" and r["data_type"] == "iceberg" for r in described)
    assert any("days(_kafka_timestamp)" in str(r["data_type"]) for r in described)  # hidden partitioning
    properties = next(str(r["data_type"]) for r in described if r["col_name"] == "Table Properties")
    assert "format-version=3" in properties  # the first version with columns' default values
    # Each run's rows went in as one commit that says what the table holds; creating the table (DDL)
    # committed no snapshot.
    assert [s["operation"] for s in snapshots] == ["append", "append"]
    assert all(summary_key(topic) in s["summary"] for s in snapshots)
    held = json.loads(snapshots[-1]["summary"][summary_key(topic)])
    ends = {p: sum(1 for q, _ in pairs if q == p) for p in (0, 1)}
    assert held["offsets"] == {str(p): e for p, e in ends.items()}

    audited = audit(harness.settings(), iceberg_spark, QUARANTINE_TABLE)
    assert audited.ok, audited.to_json()
    status = collect(harness.settings(), iceberg_spark)
    assert topic in [t.topic for t in status.topics]


@pytest.mark.integration
def test_a_run_reads_an_iceberg_table_s_columns_once_and_as_spark_sees_them(
    harness: Harness, spark: SparkSession, iceberg_spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run reads an Iceberg table's columns once, and again only after its own DDL changed them (not at
    each step of each pass that needs them); what it keeps is Spark's own view of the table."""
    reads: Counter[str] = Counter()
    read_schema = IcebergFormat._read_schema

    def counted(self: IcebergFormat, table: str) -> StructType | None:
        reads[table] += 1
        return read_schema(self, table)

    monkeypatch.setattr(IcebergFormat, "_read_schema", counted)
    harness.table_format = "iceberg"
    topic = harness.topic()
    table = table_name(topic)
    try:
        batches = [
            (EVENT_V1, [{"n": i, "address": {"city": f"c{i}"}} for i in range(3)]),
            (EVENT_V2, [{"n": 3, "address": {"city": "x", "zip": "z"}, "channel": "app"}]),
            (EVENT_V2, [{"n": 4, "address": {"city": "y"}, "channel": "web"}]),
        ]
        actions = []
        for version, records in batches:
            harness.produce(topic, version, records)
            reads.clear()
            report = harness.run(iceberg_spark)
            assert report.exit_code == 0, report.to_json()
            actions.append((report.topics[0].table_action, dict(reads)))
        # Created: looked for (absent), read back after the DDL; evolved: read, read back after the
        # change; unchanged: read once.
        assert actions == [("created", {table: 2}), ("evolved", {table: 2}), ("unchanged", {table: 1})]

        qualified = f"{harness.database}.{table}"
        iceberg_spark.catalog.refreshTable(qualified)
        fresh = IcebergFormat(iceberg_spark, harness.database, "day")
        assert fresh.data_schema(table) == iceberg_spark.table(qualified).schema  # comments, defaults too
        rows = iceberg_spark.sql(f"SELECT n, channel FROM {qualified} ORDER BY n").collect()
        assert [tuple(r) for r in rows] == [(0, "web"), (1, "web"), (2, "web"), (3, "app"), (4, "web")]
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)


@pytest.mark.integration
@pytest.mark.parametrize(("version", "old_rows_read"), [(3, "web"), (2, None)])
def test_the_format_version_decides_what_old_rows_read_in_an_added_column(
    harness: Harness,
    spark: SparkSession,
    iceberg_spark: SparkSession,
    version: int,
    old_rows_read: str | None,
) -> None:
    """`iceberg-format-version`: a version 3 table gives an added field's Avro default to the rows written
    before it; a version 2 table has no column defaults, so they read NULL (the field is still added)."""
    harness.table_format = "iceberg"
    topic = harness.topic()
    qualified = f"{harness.database}.{table_name(topic)}"
    try:
        for schema, records in (
            (EVENT_V1, [{"n": i, "address": {"city": f"c{i}"}} for i in range(2)]),
            (EVENT_V2, [{"n": 2, "address": {"city": "x", "zip": "z"}, "channel": "app"}]),
        ):
            harness.produce(topic, schema, records)
            report = harness.run(iceberg_spark, iceberg_format_version=version)
            assert report.exit_code == 0, report.to_json()
        iceberg_spark.catalog.refreshTable(qualified)
        rows = iceberg_spark.sql(f"SELECT n, channel FROM {qualified} ORDER BY n").collect()
        assert [tuple(r) for r in rows] == [(0, old_rows_read), (1, old_rows_read), (2, "app")]
        described = iceberg_spark.sql(f"DESCRIBE TABLE EXTENDED {qualified}").collect()
        properties = next(str(r["data_type"]) for r in described if r["col_name"] == "Table Properties")
        assert f"format-version={version}" in properties
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)
