"""One table format per database: a run refuses tables of the other format, loads nothing and keeps its
offsets, so that switching `--table-format` on a lake never loses or doubles rows."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from loader.formats.one_format import MixedTableFormats, format_of_metastore_table, raise_mixed_formats
from loader.outcome.report import EXIT_FAILED
from loader.schema.naming import table_name
from tests.loader.harness import Harness, record_schema

EVENT = record_schema("Event", [{"name": "n", "type": "long"}])


@pytest.mark.parametrize(
    ("table_type", "expected"), [("ICEBERG", "iceberg"), ("iceberg", "iceberg"), (None, "hive"), ("", "hive")]
)
def test_iceberg_tables_are_known_by_their_metastore_table_type(
    table_type: str | None, expected: str
) -> None:
    assert format_of_metastore_table(table_type) == expected


def test_tables_of_the_run_format_pass_and_others_are_named() -> None:
    raise_mixed_formats("lake", "hive", {"a": "hive", "b": "hive"})
    with pytest.raises(MixedTableFormats, match=r"lake\.b, lake\.c are Iceberg tables\. Nothing was loaded"):
        raise_mixed_formats("lake", "hive", {"a": "hive", "c": "iceberg", "b": "iceberg"})
    with pytest.raises(MixedTableFormats, match=r"format is iceberg, but lake\.a is a Hive table\."):
        raise_mixed_formats("lake", "iceberg", {"a": "hive"})


@pytest.mark.integration
def test_a_hive_run_refuses_iceberg_tables_and_the_next_iceberg_run_loads_what_it_left(
    harness: Harness, spark: SparkSession, iceberg_spark: SparkSession
) -> None:
    """In the worker's application: its Iceberg session for the Iceberg runs, its Hive one for the Hive
    run, over the same metastore, as `--table-format` switches a lake's runs."""
    topic = harness.topic()
    harness.produce(topic, EVENT, [{"n": i} for i in range(3)])
    first = harness.run(iceberg_spark, table_format="iceberg")
    assert first.exit_code == 0, first.to_json()

    harness.produce(topic, EVENT, [{"n": i} for i in range(3, 5)])
    refused = harness.run(spark, table_format="hive")
    table = f"{harness.database}.{table_name(topic)}"
    assert refused.exit_code == EXIT_FAILED
    assert f"{table} is an Iceberg table. Nothing was loaded" in " ".join((refused.error or "").split())

    again = harness.run(iceberg_spark, table_format="iceberg")
    assert again.exit_code == 0, again.to_json()
    assert (
        sum(t.records for t in again.topics) == 2
    )  # exactly what the refused run left: nothing lost, nothing twice
