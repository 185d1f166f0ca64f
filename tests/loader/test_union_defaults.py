"""Avro 1.12 union defaults end to end: a field added with a default that matches a later branch of its
union (``["null", "string"]`` with default ``"direct"``), and a record default whose inner union default
does the same. The bundled Avro (pyspark's jars, 1.12) resolves old records with it, and the table gives
rows loaded before the field existed the same default.
"""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import SparkSession

from tests.loader.harness import Harness, record_schema

pytestmark = pytest.mark.integration

CTX = {"type": "record", "name": "Ctx", "fields": [{"name": "src", "type": ["null", "string"]}]}
V1 = record_schema("Visit", [{"name": "id", "type": "long"}])
V2 = record_schema(
    "Visit",
    [
        {"name": "id", "type": "long"},
        {"name": "ref", "type": ["null", "string"], "default": "direct"},
        {"name": "ctx", "type": CTX, "default": {"src": "web"}},
    ],
)


def test_records_without_the_field_read_a_union_default_of_a_later_branch(
    harness: Harness, spark: SparkSession
) -> None:
    topic = harness.topic(prefix="union_default")
    harness.produce(topic, V1, [{"id": 1}])
    first = harness.run(spark)
    assert [t.status for t in first.topics] == ["loaded"]
    harness.produce(topic, V2, [{"id": 2, "ref": None, "ctx": {"src": None}}])
    harness.produce(topic, V1, [{"id": 3}])  # an old producer, after the change
    second = harness.run(spark)
    assert [t.status for t in second.topics] == ["loaded"], second.topics
    table = second.topics[0].table
    spark.catalog.refreshTable(table)
    rows: list[dict[str, Any]] = [
        r.asDict(recursive=True) for r in spark.sql(f"SELECT id, ref, ctx FROM {table} ORDER BY id").collect()
    ]
    assert rows == [
        # loaded before the field existed: the column's existence default (no SQL literal for a record)
        {"id": 1, "ref": "direct", "ctx": None},
        {"id": 2, "ref": None, "ctx": {"src": None}},
        # written without the field, read with the latest schema: Avro's resolution fills both defaults
        {"id": 3, "ref": "direct", "ctx": {"src": "web"}},
    ]
