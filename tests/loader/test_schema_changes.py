"""Every compatible schema change, end to end, under both table formats: records produced with version 1
and loaded, the schema evolved by producing with version 2 (the serializer registers it, so the registry's
BACKWARD check has accepted it), a second run, and both generations read back through Spark SQL.

One topic per group of changes, and all topics share the same two runs per format: the cases cost two runs
of each format in all. A change the table cannot represent fails its own topic only, which the same two
runs prove too. Where the formats differ (Iceberg refuses some widenings ORC reads, carries defaults of
nested fields, and renames a column an alias names), each format's outcome is asserted.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from pyspark.sql import SparkSession

from loader.outcome.report import EXIT_FAILED, RunReport, TopicReport
from loader.reading.decoding import METADATA_COLUMNS
from tests.fixtures.kafka import KafkaBroker
from tests.loader.harness import Harness, record_schema

pytestmark = pytest.mark.integration


def _enum(symbols: list[str]) -> dict[str, Any]:
    return {"type": "enum", "name": "Channel", "symbols": symbols}


def _item(extra: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "record", "name": "Item", "fields": [{"name": "sku", "type": "string"}, *extra]}


def _info(extra: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "record", "name": "Info", "fields": [{"name": "a", "type": "int"}, *extra]}


def _attr(extra: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "record", "name": "Attr", "fields": [{"name": "v", "type": "string"}, *extra]}


def _fields(**types: str) -> list[dict[str, Any]]:
    return [{"name": name, "type": avro_type} for name, avro_type in types.items()]


# Each case: (version 1, version 2, records under v1, records under v2).
CASES: dict[str, tuple[dict, dict, list[dict], list[dict]]] = {
    "columns": (
        record_schema("Member", [
            {"name": "id", "type": "long"},
            {"name": "name", "type": "string"},
            {"name": "legacy", "type": "string", "default": ""},
        ]),
        record_schema("Member", [
            {"name": "id", "type": "long"},
            {"name": "full_name", "type": "string", "aliases": ["name"]},
            {"name": "country", "type": "string", "default": "unknown"},
        ]),
        [{"id": 1, "name": "Ada", "legacy": "x"}],
        [{"id": 2, "full_name": "Grace", "country": "US"}],
    ),
    "nested": (
        record_schema("Order", [
            {"name": "id", "type": "long"},
            {"name": "info", "type": _info([{"name": "note", "type": "string", "default": ""}])},
            {"name": "items", "type": {"type": "array", "items": _item([])}},
            {"name": "attrs", "type": {"type": "map", "values": _attr([])}},
        ]),
        record_schema("Order", [
            {"name": "id", "type": "long"},
            {"name": "info", "type": _info([{"name": "b", "type": "string", "default": "-"}])},
            {"name": "items", "type": {"type": "array", "items": _item(
                [{"name": "price", "type": "double", "default": 0.0}])}},
            {"name": "attrs", "type": {"type": "map", "values": _attr(
                [{"name": "w", "type": "int", "default": 0}])}},
        ]),
        [{"id": 1, "info": {"a": 5, "note": "n"}, "items": [{"sku": "x"}], "attrs": {"k": {"v": "old"}}}],
        [{"id": 2, "info": {"a": 6, "b": "b"}, "items": [{"sku": "y", "price": 1.5}],
          "attrs": {"k": {"v": "new", "w": 7}}}],
    ),
    "promotions": (
        record_schema("Reading", _fields(
            i2l="int", i2f="int", i2d="int", l2f="long", l2d="long", f2d="float", s2b="string")),
        record_schema("Reading", _fields(
            i2l="long", i2f="float", i2d="double", l2f="float", l2d="double", f2d="double", s2b="bytes")),
        [{"i2l": 1, "i2f": 2, "i2d": 3, "l2f": 4, "l2d": 5, "f2d": 0.5, "s2b": "ab"}],
        [{"i2l": 2**40, "i2f": 2.5, "i2d": 3.5, "l2f": 4.5, "l2d": 5.5, "f2d": 0.25, "s2b": b"cd"}],
    ),
    "id_widenings": (  # the widenings both formats make
        record_schema("Sample", _fields(i2l="int", f2d="float")),
        record_schema("Sample", _fields(i2l="long", f2d="double")),
        [{"i2l": 1, "f2d": 0.5}],
        [{"i2l": 2**40, "f2d": 0.25}],
    ),
    "enum_union": (
        record_schema("Visit", [
            {"name": "channel", "type": _enum(["WEB", "APP"])},
            {"name": "ref", "type": ["null", "string", "int"], "default": None},
        ]),
        record_schema("Visit", [
            {"name": "channel", "type": _enum(["WEB", "APP", "EMAIL"])},
            {"name": "ref", "type": ["null", "string", "int", "long"], "default": None},
        ]),
        [{"channel": "APP", "ref": 7}],
        [{"channel": "EMAIL", "ref": ("long", 2**40)}],
    ),
    "nullable_union": (
        record_schema("Click", [
            {"name": "ref", "type": ["null", "string"], "default": None},
            {"name": "ctx", "type": {"type": "record", "name": "Ctx", "fields": [
                {"name": "src", "type": ["null", "string"], "default": None}]}},
        ]),
        record_schema("Click", [
            {"name": "ref", "type": ["null", "string", "long"], "default": None},
            {"name": "ctx", "type": {"type": "record", "name": "Ctx", "fields": [
                {"name": "src", "type": ["null", "string", "long"], "default": None}]}},
        ]),
        [{"ref": "/a", "ctx": {"src": "web"}}],
        [{"ref": ("long", 9), "ctx": {"src": ("long", 4)}}],
    ),
    "bytes_to_string": (
        record_schema("Blob", [{"name": "payload", "type": "bytes"}]),
        record_schema("Blob", [{"name": "payload", "type": "string"}]),
        [{"payload": b"ab"}],
        [{"payload": "cd"}],
    ),
}  # fmt: skip


# The cases whose topic the second run refuses, by table format: Iceberg widens only int -> long and
# float -> double, so the promotions ORC reads fail that topic.
REFUSED = {"hive": {"bytes_to_string"}, "iceberg": {"bytes_to_string", "promotions"}}


@dataclass
class Evolved:
    """The two runs over every case's topic, shared by this module's tests (one instance per format)."""

    table_format: str
    spark: SparkSession  # a session whose catalog holds the format's tables
    harness: Harness
    topics: dict[str, str]
    first: RunReport
    second: RunReport

    def topic_report(self, case: str, run: RunReport | None = None) -> TopicReport:
        return next(t for t in (run or self.second).topics if t.topic == self.topics[case])

    def rows(self, case: str, order: str = "_kafka_offset") -> list[dict[str, Any]]:
        table = self.topic_report(case).table
        self.spark.catalog.refreshTable(table)
        drop = {*METADATA_COLUMNS, "dt"}  # the value's columns are what each case is about
        return [
            {k: v for k, v in r.asDict(recursive=True).items() if k not in drop}
            for r in self.spark.sql(f"SELECT * FROM {table} ORDER BY {order}").collect()
        ]

    def types(self, case: str) -> dict[str, str]:
        return dict(self.spark.table(self.topic_report(case).table).dtypes)

    def run_again(self) -> RunReport:
        return self.harness.run(self.spark, table_format=self.table_format)


@pytest.fixture(scope="module", params=["hive", "iceberg"])
def evolved(
    request: pytest.FixtureRequest,
    kafka_broker: KafkaBroker,
    registry_url: str,
    spark_warehouse: Any,
    spark: SparkSession,
) -> Iterator[Evolved]:
    table_format = request.param
    session = request.getfixturevalue("iceberg_spark") if table_format == "iceberg" else spark
    harness = Harness(kafka=kafka_broker, registry_url=registry_url, warehouse=spark_warehouse)
    topics = {case: harness.topic(prefix=case) for case in CASES}
    for case, (v1, _, records, _) in CASES.items():
        harness.produce(topics[case], v1, records)
    first = harness.run(session, table_format=table_format)
    for case, (v1, v2, old_records, records) in CASES.items():
        harness.produce(topics[case], v2, records)
        harness.produce(topics[case], v1, old_records)  # an old producer still writing after the change
    second = harness.run(session, table_format=table_format)
    try:
        yield Evolved(table_format, session, harness, topics, first, second)
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)


def test_first_run_creates_every_table(evolved: Evolved) -> None:
    assert {evolved.topic_report(c, evolved.first).table_action for c in CASES} == {"created"}


def test_added_removed_and_aliased_fields(evolved: Evolved) -> None:
    """Added: new column; rows loaded before it existed and old records loaded after both read the Avro
    default (Hive: the column's existence default; Iceberg: its `initial-default`).
    Removed: the column stays with its history, NULL afterwards.
    Renamed with an alias: Avro resolves the alias, so every record loaded after the rename has the new
    name. Hive: a new column, the old one keeps the rows loaded before. Iceberg: the old column is renamed
    (same field id), so the rows loaded before read their value under the new name."""
    assert evolved.topic_report("columns").status == "loaded", evolved.topic_report("columns").reason
    types = evolved.types("columns")
    rows = evolved.rows("columns")
    if evolved.table_format == "hive":
        assert [types[c] for c in ("id", "name", "legacy", "full_name", "country")] == [
            "bigint", "string", "string", "string", "string",
        ]  # fmt: skip
        assert rows == [
            {"id": 1, "name": "Ada", "legacy": "x", "full_name": None, "country": "unknown"},
            {"id": 2, "name": None, "legacy": None, "full_name": "Grace", "country": "US"},
            {"id": 1, "name": None, "legacy": None, "full_name": "Ada", "country": "unknown"},
        ]
        return
    assert [c for c in types if not c.startswith("_")] == ["id", "full_name", "legacy", "country"]
    assert {types[c] for c in ("id", "full_name", "legacy", "country")} == {"bigint", "string"}
    assert rows == [
        {"id": 1, "full_name": "Ada", "legacy": "x", "country": "unknown"},
        {"id": 2, "full_name": "Grace", "legacy": None, "country": "US"},
        {"id": 1, "full_name": "Ada", "legacy": None, "country": "unknown"},
    ]
    table = iceberg_table(evolved.spark, evolved.topic_report("columns").table)
    first_schema = table.schemas().get(0)
    assert first_schema.findField("name").fieldId() == table.schema().findField("full_name").fieldId()
    changes = evolved.topic_report("columns").table_changes
    assert any(c.startswith("renamed column name to full_name") for c in changes)


def test_fields_added_inside_record_array_and_map(evolved: Evolved) -> None:
    """Rows loaded before the fields were added read NULL there under Hive (existence defaults are
    top-level only), the Avro default under Iceberg (nested `initial-default`s); records written with the
    old schema and loaded after read the default under both (Avro's resolution when decoding). A field
    removed inside a record keeps its place there, NULL in the rows loaded after."""
    assert evolved.topic_report("nested").status == "loaded", evolved.topic_report("nested").reason
    types = evolved.types("nested")
    assert types["info"] == "struct<a:int,note:string,b:string>"  # `note` removed, kept for history
    assert types["items"] == "array<struct<sku:string,price:double>>"
    assert types["attrs"] == "map<string,struct<v:string,w:int>>"
    before = {"hive": (None, None, None), "iceberg": ("-", 0.0, 0)}[evolved.table_format]
    assert evolved.rows("nested") == [
        {"id": 1, "info": {"a": 5, "note": "n", "b": before[0]}, "items": [{"sku": "x", "price": before[1]}],
         "attrs": {"k": {"v": "old", "w": before[2]}}},
        {"id": 2, "info": {"a": 6, "note": None, "b": "b"}, "items": [{"sku": "y", "price": 1.5}],
         "attrs": {"k": {"v": "new", "w": 7}}},
        {"id": 1, "info": {"a": 5, "note": None, "b": "-"}, "items": [{"sku": "x", "price": 0.0}],
         "attrs": {"k": {"v": "old", "w": 0}}},
    ]  # fmt: skip


def test_promotions_widen_the_column_and_old_files_read_widened(evolved: Evolved) -> None:
    """Hive (ORC) makes every widening Avro allows, and string -> bytes. Iceberg refuses all but int -> long
    and float -> double: the topic fails with the remedy and its table stays as it was."""
    columns = ("i2l", "i2f", "i2d", "l2f", "l2d", "f2d", "s2b")
    report = evolved.topic_report("promotions")
    types = evolved.types("promotions")
    if evolved.table_format == "iceberg":
        assert report.status == "failed"
        topic = evolved.topics["promotions"]
        assert report.reason.startswith(f"{topic}: column i2f is int in the table but float")
        assert "Iceberg widens only int -> long and float -> double" in report.reason
        assert report.records == 0
        assert [types[c] for c in columns] == ["int", "int", "int", "bigint", "bigint", "float", "string"]
        assert evolved.rows("promotions") == [
            {"i2l": 1, "i2f": 2, "i2d": 3, "l2f": 4, "l2d": 5, "f2d": 0.5, "s2b": "ab"}
        ]
        return
    assert report.status == "loaded"
    assert [types[c] for c in columns] == [
        "bigint", "float", "double", "float", "double", "double", "binary",
    ]  # fmt: skip
    old, new = bytearray(b"ab"), bytearray(b"cd")  # string -> bytes: old rows read their UTF-8 bytes
    assert evolved.rows("promotions") == [
        {"i2l": 1, "i2f": 2.0, "i2d": 3.0, "l2f": 4.0, "l2d": 5.0, "f2d": 0.5, "s2b": old},
        {"i2l": 2**40, "i2f": 2.5, "i2d": 3.5, "l2f": 4.5, "l2d": 5.5, "f2d": 0.25, "s2b": new},
        {"i2l": 1, "i2f": 2.0, "i2d": 3.0, "l2f": 4.0, "l2d": 5.0, "f2d": 0.5, "s2b": old},
    ]


def test_int_to_long_and_float_to_double_widen_under_both_formats(evolved: Evolved) -> None:
    report = evolved.topic_report("id_widenings")
    assert report.status == "loaded", report.reason
    types = evolved.types("id_widenings")
    assert (types["i2l"], types["f2d"]) == ("bigint", "double")
    assert evolved.rows("id_widenings") == [
        {"i2l": 1, "f2d": 0.5},
        {"i2l": 2**40, "f2d": 0.25},
        {"i2l": 1, "f2d": 0.5},
    ]


def test_enum_symbol_added_and_union_of_several_types_gains_a_branch(evolved: Evolved) -> None:
    """Enums are strings; a union of several non-null types is a struct with a field per type, named by
    type, so the new branch is a new field and the old ones keep their names and values."""
    assert evolved.topic_report("enum_union").status == "loaded", evolved.topic_report("enum_union").reason
    types = evolved.types("enum_union")
    assert types["channel"] == "string"
    assert types["ref"] == "struct<member_string:string,member_int:int,member_long:bigint>"
    assert evolved.rows("enum_union") == [
        {"channel": "APP", "ref": {"member_string": None, "member_int": 7, "member_long": None}},
        {"channel": "EMAIL", "ref": {"member_string": None, "member_int": None, "member_long": 2**40}},
        {"channel": "APP", "ref": {"member_string": None, "member_int": 7, "member_long": None}},
    ]


def test_nullable_column_gaining_a_type_keeps_its_column_and_gets_one_for_the_new_type(
    evolved: Evolved,
) -> None:
    """["null","string"] is a plain string column; when the union gains long, `ref` keeps the strings and
    `ref_long` holds the longs, at the top level and inside a record (see loader.schema.union_columns)."""
    report = evolved.topic_report("nullable_union")
    assert report.status == "loaded", report.reason
    types = evolved.types("nullable_union")
    assert (types["ref"], types["ref_long"]) == ("string", "bigint")
    assert types["ctx"] == "struct<src:string,src_long:bigint>"
    assert evolved.rows("nullable_union") == [
        {"ref": "/a", "ctx": {"src": "web", "src_long": None}, "ref_long": None},
        {"ref": None, "ctx": {"src": None, "src_long": 4}, "ref_long": 9},
        {"ref": "/a", "ctx": {"src": "web", "src_long": None}, "ref_long": None},
    ]


def test_a_change_the_table_cannot_represent_fails_only_its_topic_with_the_remedy(evolved: Evolved) -> None:
    """bytes -> string is compatible, but old binary rows would read as hex text (ORC) or not at all
    (Iceberg refuses the change). The topic stops with an error naming the topic, the column and the
    remedy; its offsets stay; the others load."""
    failed = evolved.topic_report("bytes_to_string")
    assert failed.status == "failed"
    topic = evolved.topics["bytes_to_string"]
    assert failed.reason.startswith(f"{topic}: column payload is binary in the table but string")
    assert "hex text" in failed.reason and "decode(col, 'UTF-8')" in failed.reason
    assert failed.records == 0
    assert evolved.second.exit_code == EXIT_FAILED
    refused = REFUSED[evolved.table_format]
    assert {evolved.topic_report(c).status for c in CASES if c not in refused} == {"loaded"}
    assert evolved.rows("bytes_to_string") == [{"payload": bytearray(b"ab")}]  # untouched
    again = evolved.run_again()  # refused again, and nothing was skipped meanwhile
    retried = next(t for t in again.topics if t.topic == topic)
    assert (retried.status, retried.offsets) == ("failed", {0: (1, 3)})


def iceberg_table(spark: SparkSession, qualified: str):  # type: ignore[no-untyped-def]
    """The table through Iceberg's Java API (its schemas by id). The catalog is the active session's."""
    spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)
    return spark._jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, qualified)
