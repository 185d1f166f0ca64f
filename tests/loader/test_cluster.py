"""The loader on a real cluster, as docs/loader.md ("On a cluster") submits it: `spark-submit --master
spark://...` of `loader/cli.py run` with the connectors' jars, the warehouse and the loader's state on HDFS,
the tables in a Hive metastore backed by PostgreSQL, executors in the workers' JVMs. Each table format's
rows are then read by an independent Spark application through the same metastore, and `loader audit`
finds the lake clean."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from loader.schema.naming import table_name
from loader.spark_session import connector_jars, iceberg_jars
from tests.fixtures.cluster import Cluster
from tests.fixtures.kafka import KafkaBroker
from tests.loader.harness import REPO_ROOT, Harness, record_schema

pytestmark = pytest.mark.integration

EVENT = record_schema("ClusterEvent", [{"name": "id", "type": "long"}, {"name": "url", "type": "string"}])
APP_NAME = "kafka-table-loader"


def spark_submit_command(cluster: Cluster, table_format: str) -> list[str]:
    """The spark-submit part of docs/loader.md's command, with the jars from the local cache instead of
    `--packages` (the test machine fetched them once) and small executors."""
    jars = connector_jars() + (iceberg_jars() if table_format == "iceberg" else [])
    assert jars, "the connector jars are missing: run scripts/fetch-jars"
    return [
        str(Path(sys.executable).parent / "spark-submit"),
        "--master", cluster.spark_master,
        "--deploy-mode", "client",
        "--jars", ",".join(jars),
        # The driver runs here; executors on the workers connect back to it on loopback.
        "--conf", "spark.driver.host=127.0.0.1",
        "--conf", "spark.driver.bindAddress=127.0.0.1",
        "--conf", "spark.executor.memory=512m",
        "--conf", f"spark.hadoop.hive.metastore.uris={cluster.metastore_uri}",
        "--conf", f"spark.sql.warehouse.dir={cluster.warehouse}",
    ]  # fmt: skip


def submit_command(cluster: Cluster, harness: Harness, command: str) -> list[str]:
    """`spark-submit ... loader/cli.py <command> <settings>`, as docs/loader.md shows it."""
    loader_args = [
        "--bootstrap-servers", harness.kafka.bootstrap,
        "--registry-url", harness.registry_url,
        "--warehouse", cluster.warehouse,
        "--metastore-uri", cluster.metastore_uri,
        "--database", harness.database,
        "--table-format", harness.table_format,
    ]  # fmt: skip
    if command == "run":
        loader_args += ["--include-topics", f"{harness.prefix}.*", "--partition-granularity", "day"]
    cli = str(REPO_ROOT / "loader" / "cli.py")
    return [*spark_submit_command(cluster, harness.table_format), cli, command, *loader_args]


def submit_env(**extra: str) -> dict[str, str]:
    """PYSPARK_PYTHON: this Python, which has the loader's dependencies; PYTHONPATH: this checkout."""
    return dict(os.environ, PYSPARK_PYTHON=sys.executable, PYTHONPATH=str(REPO_ROOT), **extra)


def submit(
    cluster: Cluster, harness: Harness, workdir: Path, command: str = "run", **env: str
) -> subprocess.CompletedProcess[str]:
    """Runs the submitted command to its end, from a scratch directory: Spark 4.0's driver leaves an
    `artifacts/` directory wherever spark-submit starts it (SPARK-52396)."""
    try:
        return subprocess.run(
            submit_command(cluster, harness, command), cwd=workdir, env=submit_env(**env),
            capture_output=True, text=True, timeout=240,
        )  # fmt: skip
    except subprocess.TimeoutExpired as expired:
        pytest.fail(
            f"loader {command} did not end within 240 s:\n{expired.stdout!s}\n{expired.stderr!s}"[-6000:]
        )


def read_back(cluster: Cluster, table_format: str, body: str) -> str:
    """Runs `body` in an independent Spark application (local, its own JVM) on the cluster's metastore and
    HDFS warehouse, with Iceberg's catalog when the tables are Iceberg's; returns what it printed."""
    code = textwrap.dedent(
        f"""
        from loader.spark_session import SparkSettings, build_spark_session, iceberg_conf, iceberg_jars
        iceberg = {table_format == "iceberg"!r}
        conf = iceberg_conf("hive", {cluster.warehouse!r}) if iceberg else {{}}
        spark = build_spark_session(SparkSettings(
            warehouse_dir={cluster.warehouse!r}, metastore_uri={cluster.metastore_uri!r}, master="local[1]",
            app_name="reader", extra_conf={{"spark.ui.enabled": "false", **conf}},
            extra_jars=tuple(iceberg_jars()) if iceberg else (),
        ))
        """
    ) + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO_ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def applications(cluster: Cluster) -> list[dict[str, Any]]:
    """The applications the Spark master has seen (running and completed), from its JSON page."""
    ui = cluster.addresses["CLUSTER_SPARK_UI"]
    with urllib.request.urlopen(f"{ui}/json/", timeout=10) as response:
        state = json.load(response)
    return [*state.get("activeapps", []), *state.get("completedapps", [])]


@pytest.mark.parametrize("table_format", ["hive", "iceberg"])
def test_loader_submitted_to_a_cluster_writes_hdfs_through_the_postgres_metastore(
    cluster: Cluster, kafka_broker: KafkaBroker, registry_url: str, table_format: str, tmp_path: Path
) -> None:
    harness = Harness(
        kafka=kafka_broker, registry_url=registry_url, warehouse=Path("unused"), table_format=table_format
    )
    topic = harness.topic(partitions=2)
    harness.produce(topic, EVENT, [{"id": i, "url": f"/p/{i}"} for i in range(20)])
    apps_before = len(applications(cluster))

    done = submit(cluster, harness, tmp_path)

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    # The run was an application of the cluster's master (its executors ran in the workers), not a
    # local Spark of the driver's own.
    loader_apps = [app for app in applications(cluster) if app["name"] == APP_NAME]
    assert len(applications(cluster)) == apps_before + 1 and loader_apps, applications(cluster)
    table = f"{harness.database}.{table_name(topic)}"
    state = f"{cluster.warehouse}/_loader_state/{harness.database}"
    out = read_back(
        cluster,
        table_format,
        f"""
        print("ROWS", sorted(tuple(r) for r in spark.sql("SELECT id, url FROM {table}").collect()))
        print("LOCATION", spark.sql("DESCRIBE FORMATTED {table}").where("col_name = 'Location'").first()[1])
        jvm = spark.sparkContext._jvm
        path = jvm.org.apache.hadoop.fs.Path({state!r})
        fs = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
        print("STATE", sorted(status.getPath().getName() for status in fs.listStatus(path)))
        """,
    )
    assert f"ROWS {[(i, f'/p/{i}') for i in range(20)]}" in out, out
    assert f"LOCATION {cluster.warehouse}/{harness.database}.db/" in out, out
    state_line = next(line for line in out.splitlines() if line.startswith("STATE "))
    assert state_line != "STATE []", out

    audited = submit(cluster, harness, tmp_path, command="audit")
    assert audited.returncode == 0, audited.stdout[-3000:] + audited.stderr[-3000:]
    assert "clean" in audited.stdout, audited.stdout


def executors_of(cluster: Cluster) -> list[int]:
    """Pids of the executor JVMs the cluster's workers run now (their working directory is in the
    cluster's data dir)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes()
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue
        if b"CoarseGrainedExecutorBackend" in cmdline and cwd.startswith(str(cluster.data_dir)):
            found.append(int(proc.name))
    return found


def test_killed_driver_and_executor_lose_nothing_and_load_nothing_twice(
    cluster: Cluster, kafka_broker: KafkaBroker, registry_url: str, tmp_path: Path
) -> None:
    harness = Harness(kafka=kafka_broker, registry_url=registry_url, warehouse=Path("unused"))
    topic = harness.topic(partitions=2)
    harness.produce(topic, EVENT, [{"id": i, "url": f"/p/{i}"} for i in range(30)])

    # The driver dies (SIGKILL, no cleanup) in the middle of its commit: some files moved, others not.
    crashed = submit(cluster, harness, tmp_path, LOADER_CRASH_AT="after_first_move")
    assert crashed.returncode != 0, crashed.stdout[-3000:]
    # Its lock stays on HDFS: the next run does nothing until `loader unlock` sees the owner is gone.
    locked = submit(cluster, harness, tmp_path)
    assert locked.returncode == 75, locked.stdout[-3000:] + locked.stderr[-3000:]
    unlocked = submit(cluster, harness, tmp_path, command="unlock")
    assert unlocked.returncode == 0, unlocked.stdout[-3000:] + unlocked.stderr[-3000:]

    # The next run finishes the interrupted commit; one of its executors is killed while it plans.
    run = subprocess.Popen(
        submit_command(cluster, harness, "run"),
        cwd=tmp_path, env=submit_env(LOADER_PAUSE_AT="after_plan:20"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while len(executors := executors_of(cluster)) < 2 and run.poll() is None:
            assert time.monotonic() < deadline, "the run's executors did not start"
            time.sleep(0.5)
        assert executors, "the run ended before its executors started"
        os.kill(executors[0], signal.SIGKILL)
        out, err = run.communicate(timeout=240)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, out[-3000:] + err[-5000:]

    table = f"{harness.database}.{table_name(topic)}"
    read = read_back(
        cluster,
        "hive",
        f"""
        rows = spark.sql("SELECT id, _kafka_partition, _kafka_offset FROM {table}").collect()
        print("IDS", sorted(r.id for r in rows))
        print("OFFSETS", len({{(r._kafka_partition, r._kafka_offset) for r in rows}}))
        """,
    )
    assert f"IDS {list(range(30))}" in read, read  # none lost, none twice
    assert "OFFSETS 30" in read, read
    audited = submit(cluster, harness, tmp_path, command="audit")
    assert audited.returncode == 0, audited.stdout[-3000:] + audited.stderr[-3000:]
    assert "clean" in audited.stdout, audited.stdout
