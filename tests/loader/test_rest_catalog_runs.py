"""Whole `loader` processes against a real Iceberg REST catalog whose tables' files are on a real
S3-compatible store (`scripts/iceberg-rest`, `scripts/object-store`): the loader's settings reach them
(OAuth2 client credentials from a variable, the store's keys vended by the catalog), runs load exactly
once, `loader status` and `audit` read the tables there, and pyiceberg, a second engine, reads what the
loader wrote through the same catalog."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from loader.formats.iceberg import summary_key
from loader.schema.naming import table_name
from tests.fixtures.object_store import BUCKET, REGION
from tests.fixtures.rest_catalog import WAREHOUSE_PREFIX, RestCatalogService
from tests.loader.harness import Harness, record_schema

pytestmark = pytest.mark.integration

EVENT = record_schema("Reading", [{"name": "n", "type": "long"}, {"name": "sensor", "type": "string"}])


def readings(first: int, count: int) -> list[dict[str, Any]]:
    return [{"n": n, "sensor": f"s{n % 3}"} for n in range(first, first + count)]


def rest_env(catalog: RestCatalogService) -> dict[str, str]:
    """A loader's environment for the REST catalog, as a cron job's: no secret on the command line."""
    return {
        "LOADER_ICEBERG_REST_URI": catalog.uri,
        "LOADER_ICEBERG_REST_CREDENTIAL": "loader:any",  # the test server issues a token for any
        "LOADER_ICEBERG_VENDED_CREDENTIALS": "true",
        "LOADER_S3_ENDPOINT": catalog.store.endpoint,
        "LOADER_S3_REGION": REGION,
        "LOADER_S3_PATH_STYLE": "true",
    }


@pytest.fixture
def rest_harness(cli_harness: Harness, rest_catalog: RestCatalogService) -> Harness:
    cli_harness.table_format, cli_harness.iceberg_catalog = "iceberg", "rest"
    return cli_harness


def succeeded(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def test_runs_load_into_the_rest_catalog_exactly_once_and_pyiceberg_reads_them(
    rest_harness: Harness, rest_catalog: RestCatalogService, tmp_path: Path
) -> None:
    env = rest_env(rest_catalog)
    topic = rest_harness.topic(partitions=2)
    rest_harness.produce(topic, EVENT, readings(0, 5))
    succeeded(rest_harness.run_cli(env=env))
    rest_harness.produce(topic, EVENT, readings(5, 4))
    report = tmp_path / "report.json"
    succeeded(rest_harness.run_cli("--report-json", str(report), env=env))
    assert json.loads(report.read_text())["topics"][0]["records"] == 4
    succeeded(rest_harness.run_cli(env=env))  # nothing new: nothing loaded again

    reader = rest_catalog.pyiceberg(
        credential="reader:any", **{"oauth2-server-uri": f"{rest_catalog.uri}/v1/oauth/tokens"}
    )
    table = reader.load_table(f"{rest_harness.database}.{table_name(topic)}")
    rows = table.scan().to_arrow().to_pylist()
    assert sorted(r["n"] for r in rows) == list(range(9))
    held = json.loads(table.current_snapshot().summary[summary_key(topic)])
    assert sum(held["offsets"].values()) == 9
    # The table's files are on the store, where the catalog put them.
    assert table.location().startswith(f"s3://{BUCKET}/{WAREHOUSE_PREFIX}/")
    listed = rest_catalog.store.client().list_objects_v2(
        Bucket=BUCKET, Prefix=table.location().removeprefix(f"s3://{BUCKET}/") + "/data/"
    )
    assert [o["Key"] for o in listed.get("Contents", []) if o["Key"].endswith(".parquet")]

    status = succeeded(rest_harness.run_cli(command="status", env={**env, "COLUMNS": "400"}))
    assert table_name(topic) in status.stdout
    succeeded(rest_harness.run_cli(command="audit", env=env))
