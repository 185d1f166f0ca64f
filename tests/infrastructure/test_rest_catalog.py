"""scripts/iceberg-rest: Apache Iceberg's REST catalog server over the object store. Spark writes an Iceberg
table through it (its files on the store), pyiceberg, a second engine, reads the same rows through it and
appends, Spark reads that back; a store or catalog that is stopped gives a clear error."""

from __future__ import annotations

import uuid
from pathlib import Path

import pyarrow as pa
import pytest
import requests
from pyiceberg.exceptions import ServerError
from pyspark.sql import SparkSession

from loader.formats.iceberg_catalogs import CatalogAccess, IcebergCatalog, ObjectStore, spark_catalog_conf
from pipeline_client.secret_values import Secret
from tests.fixtures.object_store import BUCKET, REGION, ObjectStoreService, store_env
from tests.fixtures.ports import free_port
from tests.fixtures.rest_catalog import WAREHOUSE_PREFIX, RestCatalogService, catalog_service

pytestmark = pytest.mark.integration

CATALOG = "lake"  # the Spark catalog name of the REST catalog in these tests


def rest_session(spark: SparkSession, catalog: RestCatalogService) -> SparkSession:
    """A session of the test application with the REST catalog as `lake`, its settings made by the
    loader's own function: OAuth2 client credentials (the server issues a token for any), the store's
    keys vended by the catalog (the session is given none), S3 at the store's endpoint, path-style."""
    access = CatalogAccess(
        uri=catalog.uri,
        credential=Secret("loader:any", "the test"),
        vended_credentials=True,
        object_store=ObjectStore(endpoint=catalog.store.endpoint, region=REGION, path_style=True),
    )
    conf = spark_catalog_conf(IcebergCatalog("rest", access=access), name=CATALOG)
    session = spark.newSession()
    for key, value in conf.items():
        if key != "spark.sql.extensions":  # fixed when the application started (tests/fixtures/spark.py)
            session.conf.set(key, value)
    # Each query loads the table afresh: the second engine's commits are seen at once.
    session.conf.set(f"spark.sql.catalog.{CATALOG}.cache-enabled", "false")
    return session


def test_script_reports_the_running_catalog(rest_catalog: RestCatalogService) -> None:
    running = rest_catalog.run("status")
    assert running.returncode == 0 and rest_catalog.uri in running.stdout
    again = rest_catalog.run("start")
    assert again.returncode == 0 and "already running" in again.stderr
    assert again.stdout.strip() == rest_catalog.uri
    assert requests.get(f"{rest_catalog.uri}/v1/config", timeout=10).json()["defaults"] == {}


def test_spark_writes_and_pyiceberg_reads_through_the_same_catalog(
    spark: SparkSession, rest_catalog: RestCatalogService
) -> None:
    namespace = f"ns_{uuid.uuid4().hex[:8]}"
    session = rest_session(spark, rest_catalog)
    session.sql(f"CREATE NAMESPACE {CATALOG}.{namespace}")
    session.sql(f"CREATE TABLE {CATALOG}.{namespace}.clicks (id BIGINT, url STRING) USING iceberg")
    session.sql(f"INSERT INTO {CATALOG}.{namespace}.clicks VALUES (1, '/a'), (2, '/b')")

    # The table's files are on the store, under the catalog's warehouse.
    listed = rest_catalog.store.client().list_objects_v2(
        Bucket=BUCKET, Prefix=f"{WAREHOUSE_PREFIX}/{namespace}/clicks/"
    )
    keys = [o["Key"] for o in listed.get("Contents", [])]
    assert [k for k in keys if "/data/" in k and k.endswith(".parquet")], keys
    assert [k for k in keys if "/metadata/" in k and k.endswith(".metadata.json")], keys

    reader = rest_catalog.pyiceberg(
        credential="reader:any", **{"oauth2-server-uri": f"{rest_catalog.uri}/v1/oauth/tokens"}
    )
    table = reader.load_table(f"{namespace}.clicks")
    assert table.location() == f"{rest_catalog.warehouse}/{namespace}/clicks"
    assert sorted(table.scan().to_arrow().to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "url": "/a"},
        {"id": 2, "url": "/b"},
    ]

    # pyiceberg's append is a snapshot Spark reads through the catalog.
    table.append(pa.table({"id": pa.array([3], pa.int64()), "url": ["/c"]}))
    rows = session.sql(f"SELECT id, url FROM {CATALOG}.{namespace}.clicks ORDER BY id").collect()
    assert [tuple(r) for r in rows] == [(1, "/a"), (2, "/b"), (3, "/c")]
    snapshots = session.sql(f"SELECT count(*) FROM {CATALOG}.{namespace}.clicks.snapshots").first()
    assert snapshots is not None and snapshots[0] == 2


def test_a_stopped_store_or_catalog_is_a_clear_error(tmp_path: Path) -> None:
    """A store and catalog of their own (the session's stay up)."""
    store_port = free_port()
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    store = ObjectStoreService(f"http://127.0.0.1:{store_port}", store_dir, store_env(store_port, store_dir))
    catalog_port = free_port()
    catalog = catalog_service(catalog_port, tmp_path / "catalog", store)
    try:
        # The catalog refuses to start without its store, and says what to do.
        refused = catalog.run("start")
        assert refused.returncode != 0
        assert f"the object store at {store.endpoint} does not answer" in refused.stderr
        assert "scripts/object-store start" in refused.stderr

        store.script("start")
        catalog.script("start")
        client = catalog.pyiceberg()
        client.create_namespace("db")
        table = client.create_table("db.events", schema=pa.schema([("id", pa.int64())]))
        table.append(pa.table({"id": pa.array([1, 2], pa.int64())}))

        store.script("stop")
        # The catalog's own request to the store (a new table's metadata) fails, and says where it went.
        # (Loading a table would too, after Iceberg's 20 retries of reading its metadata: 90 s.)
        with pytest.raises(ServerError, match=f"Connect to 127.0.0.1:{store_port}.*Connection refused"):
            client.create_table("db.other", schema=pa.schema([("id", pa.int64())]))
        # The client's own reads and writes of the table's files fail at once, naming the bucket.
        with pytest.raises(OSError, match=f"in bucket '{BUCKET}'.*(Could not connect|Failed to connect)"):
            table.scan().to_arrow()
        with pytest.raises(OSError, match=f"in bucket '{BUCKET}'.*(Could not connect|Failed to connect)"):
            table.append(pa.table({"id": pa.array([3], pa.int64())}))

        store.script("start")
        assert client.load_table("db.events").scan().to_arrow().column("id").to_pylist() == [1, 2]

        catalog.script("stop")
        stopped = catalog.run("status")
        assert stopped.returncode == 3 and "not running" in stopped.stdout
        with pytest.raises(requests.exceptions.ConnectionError, match=f"port={catalog_port}"):
            client.load_table("db.events")

        # Restarted, the catalog has kept its tables (its SQLite database under the data dir).
        catalog.script("start")
        assert catalog.pyiceberg().load_table("db.events").scan().to_arrow().num_rows == 2
    finally:
        catalog.run("stop")
        store.run("stop")
