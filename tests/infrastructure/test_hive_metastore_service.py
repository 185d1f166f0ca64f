"""Tables made through the standalone metastore service are seen by an independent Spark application.

Full tier: in the default tier `tests/loader/test_external_metastore.py` proves the same service shared
by two applications, with a `loader run` as the first one."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.fixtures.hive_metastore import HiveMetastore
from tests.tiers import FULL

pytestmark = pytest.mark.integration

SESSION = """
from loader.runtime.spark_session import SparkSettings, build_spark_session
spark = build_spark_session(SparkSettings(
    warehouse_dir={warehouse!r}, metastore_uri={uri!r}, master="local[1]",
    extra_conf={{"spark.ui.enabled": "false"}},
))
"""


def run_spark(metastore: HiveMetastore, body: str) -> str:
    """Runs a script in its own Python and JVM: another Spark application than the test's."""
    code = SESSION.format(warehouse=metastore.warehouse, uri=metastore.uri) + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@FULL
def test_second_application_sees_tables_of_the_first(hive_metastore: HiveMetastore) -> None:
    run_spark(
        hive_metastore,
        """
        spark.sql("CREATE DATABASE IF NOT EXISTS shared")
        spark.sql("CREATE TABLE shared.clicks (id BIGINT, url STRING) STORED AS PARQUET")
        spark.sql("INSERT INTO shared.clicks VALUES (1, '/a'), (2, '/b')")
        """,
    )
    out = run_spark(
        hive_metastore,
        """
        print("TABLES", [t.name for t in spark.catalog.listTables("shared")])
        print("ROWS", sorted(tuple(r) for r in spark.table("shared.clicks").collect()))
        """,
    )
    assert "TABLES ['clicks']" in out
    assert "ROWS [(1, '/a'), (2, '/b')]" in out
