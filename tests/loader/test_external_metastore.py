"""The cluster configuration's metastore path, for real: `loader run --metastore-uri thrift://...` in its
own process loads a topic, and an independent Spark application connected to the same standalone metastore
sees the table and its rows. (The audit through a metastore service:
tests/loader/test_failure_after_commit.py.)"""

from __future__ import annotations

import pytest

from loader.schema.naming import table_name
from tests.fixtures.hive_metastore import HiveMetastore
from tests.infrastructure.test_hive_metastore_service import run_spark
from tests.loader.harness import Harness, record_schema

pytestmark = pytest.mark.integration

EVENT = record_schema("Shared", [{"name": "id", "type": "long"}, {"name": "url", "type": "string"}])


def test_loader_run_through_an_external_metastore_is_seen_by_another_application(
    cli_harness: Harness, hive_metastore: HiveMetastore
) -> None:
    topic = cli_harness.topic()
    cli_harness.produce(topic, EVENT, [{"id": i, "url": f"/p/{i}"} for i in range(3)])
    external = ("--metastore-uri", hive_metastore.uri, "--warehouse", hive_metastore.warehouse)

    done = cli_harness.run_cli(*external)

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    table = f"{cli_harness.database}.{table_name(topic)}"
    out = run_spark(
        hive_metastore,
        f"""
        print("TABLES", [t.name for t in spark.catalog.listTables({cli_harness.database!r})])
        print("ROWS", sorted(tuple(r) for r in spark.sql("SELECT id, url FROM {table}").collect()))
        print("LOCATION", spark.sql("DESCRIBE FORMATTED {table}").where("col_name = 'Location'").first()[1])
        """,
    )
    assert f"TABLES ['{table.partition('.')[2]}']" in out
    assert "ROWS [(0, '/p/0'), (1, '/p/1'), (2, '/p/2')]" in out
    # The shared warehouse, not a local default (Hadoop prints file:/x for file:///x).
    assert f"LOCATION {hive_metastore.warehouse.replace('file://', 'file:')}/" in out
