"""The loader on a real cluster, as docs/loader.md ("On a cluster") submits it: `spark-submit --master
spark://...` of `loader/cli.py run` with the connectors' jars, the warehouse and the loader's state on HDFS,
the tables in a Hive metastore backed by PostgreSQL, executors in the workers' JVMs. Each table format's
rows are then read by an independent Spark application through the same metastore, and `loader audit`
finds the lake clean. The cluster's HDFS also refuses the loader's group writer a block (a space quota),
which must leave no file behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from py4j.protocol import Py4JJavaError
from pyspark.sql import SparkSession

from loader.formats.hive.many_tables import write_tables
from loader.runtime.spark_session import connector_jars, iceberg_jars
from loader.schema.naming import table_name
from tests.fixtures.cluster import PORT_NAMES, Cluster, parse_env_lines
from tests.fixtures.kafka import KafkaBroker
from tests.fixtures.ports import free_port, this_workers_block
from tests.loader.harness import REPO_ROOT, Harness, record_schema
from tests.loader.test_many_tables_writer import group_rows
from tests.tiers import FULL

# The full tier's: six daemons and a spark-submit per run (scripts/test --full).
pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first, FULL]

EVENT = record_schema("ClusterEvent", [{"name": "id", "type": "long"}, {"name": "url", "type": "string"}])
APP_NAME = "kafka-table-loader"


def spark_submit_command(cluster: Cluster, table_format: str, conf: Mapping[str, str]) -> list[str]:
    """The spark-submit part of docs/loader.md's command, with the jars from the local cache instead of
    `--packages` (the test machine fetched them once) and small executors; `conf` adds settings a test
    needs to watch the run (its UI port, its event log)."""
    jars = connector_jars() + (iceberg_jars() if table_format == "iceberg" else [])
    assert jars, "the connector jars are missing: run scripts/fetch-jars"
    watch = [arg for name, value in conf.items() for arg in ("--conf", f"{name}={value}")]
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
        *watch,
    ]  # fmt: skip


def submit_command(
    cluster: Cluster, harness: Harness, command: str, conf: Mapping[str, str] | None = None
) -> list[str]:
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
    return [*spark_submit_command(cluster, harness.table_format, conf or {}), cli, command, *loader_args]


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
        from loader.formats.iceberg_catalogs import IcebergCatalog, spark_catalog_conf
        from loader.runtime.spark_session import (
            SparkSettings, build_spark_session, iceberg_jars,
        )
        iceberg = {table_format == "iceberg"!r}
        conf = spark_catalog_conf(IcebergCatalog("hive", {cluster.warehouse!r})) if iceberg else {{}}
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


def test_the_cluster_listens_on_the_test_workers_own_ports(cluster: Cluster) -> None:
    """Ports the script chose itself would come from the kernel's ephemeral range (see
    tests/fixtures/cluster.py)."""
    chosen = parse_env_lines((cluster.data_dir / "ports.env").read_text().replace("SAVED_", "CLUSTER_"))
    given = {name: port for name, port in cluster.env.items() if name in chosen}
    assert len(chosen) == len(PORT_NAMES)
    assert chosen == given
    block = this_workers_block()
    assert all(int(port) in block for port in chosen.values())
    assert cluster.spark_master.endswith(f":{chosen['CLUSTER_SPARK_PORT']}")
    assert cluster.metastore_uri.endswith(f":{chosen['CLUSTER_METASTORE_PORT']}")


def spark_api(ui_port: int, path: str) -> Any:
    """A page of the driver's REST API (`/api/v1/...`) on its UI port."""
    with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/api/v1/{path}", timeout=5) as response:
        return json.load(response)


def executor_running_a_task(ui_port: int) -> tuple[str, str] | None:
    """(application id, executor id) of an executor that runs a task right now, as the driver's REST API
    reports it; None while no task runs, or the driver's UI is not up yet (or gone)."""
    try:
        for app in spark_api(ui_port, "applications"):
            for executor in spark_api(ui_port, f"applications/{app['id']}/executors"):
                if executor["id"] != "driver" and executor["activeTasks"] > 0:
                    return app["id"], executor["id"]
    except (OSError, ValueError):  # refused or reset (URLError is an OSError), or a page cut short
        return None
    return None


def executor_pid(cluster: Cluster, app_id: str, executor_id: str) -> int:
    """The pid of an executor JVM of the cluster's workers: a worker starts it in its work directory
    (in the cluster's data dir) under `<app id>/<executor id>`."""
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes()
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue
        if (
            b"CoarseGrainedExecutorBackend" in cmdline
            and cwd.startswith(str(cluster.data_dir))
            and Path(cwd).parts[-2:] == (app_id, executor_id)
        ):
            return int(proc.name)
    raise AssertionError(f"no process of executor {executor_id} of {app_id} under {cluster.data_dir}")


def tasks_lost_with_their_executor(event_log_dir: Path) -> list[str]:
    """The executor ids of the tasks that failed because their executor died under them
    (`ExecutorLostFailure`), from the application's Spark event log: proof that a task was running.
    Spark 4 writes the log in rolling files (`eventlog_v2_<app id>/events_<n>_<app id>`)."""
    lost = []
    for log in event_log_dir.rglob("events_*"):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if (
                event["Event"] == "SparkListenerTaskEnd"
                and event["Task End Reason"]["Reason"] == "ExecutorLostFailure"
            ):
                lost.append(event["Task Info"]["Executor ID"])
    return lost


# Where Hive's commit is cut: after the first of its file moves on HDFS. Iceberg's run is not killed here:
# between its table's commit and the run's manifest it is killed under the metastore
# (test_run_process.py) and through a REST catalog (test_rest_catalog_kills.py), and what the cluster
# adds, the lock and the state on HDFS, is the same files for both formats, killed here in Hive's run.
CRASH_MID_COMMIT = "after_first_move"
# Enough records that the write job's task runs for seconds on a 1-core worker, so an executor is killed
# in the middle of it.
BIG_BATCH = 20_000


@pytest.mark.parametrize("table_format", ["hive", "iceberg"])
def test_killed_driver_and_executor_lose_nothing_and_load_nothing_twice(
    cluster: Cluster, kafka_broker: KafkaBroker, registry_url: str, table_format: str, tmp_path: Path
) -> None:
    """Hive's driver is killed in the middle of its commit (CRASH_MID_COMMIT); the run after `loader
    unlock` (for Iceberg, the first run) has one of its executors killed while that executor runs a
    task: the driver's REST API (on a UI port of the test's choosing) names an executor with an active
    task, its JVM is found by its working directory, and the run's event log shows afterwards that a
    task was lost with it (else the kill proved nothing). That run is an application of the cluster's
    master; another Spark application reads its rows through the
    PostgreSQL metastore, finds the table under the HDFS warehouse and the loader's state on HDFS, and
    `loader audit` finds the lake clean."""
    harness = Harness(
        kafka=kafka_broker, registry_url=registry_url, warehouse=Path("unused"), table_format=table_format
    )
    topic = harness.topic(partitions=2)
    harness.produce(topic, EVENT, [{"id": i, "url": f"/p/{i}"} for i in range(30)])

    if table_format == "hive":
        # The driver dies (SIGKILL, no cleanup) in the middle of its commit.
        crashed = submit(cluster, harness, tmp_path, LOADER_CRASH_AT=CRASH_MID_COMMIT)
        assert crashed.returncode != 0, crashed.stdout[-3000:]
        # Its lock stays on HDFS: the next run does nothing until `loader unlock` sees the owner is gone.
        locked = submit(cluster, harness, tmp_path)
        assert locked.returncode == 75, locked.stdout[-3000:] + locked.stderr[-3000:]
        unlocked = submit(cluster, harness, tmp_path, command="unlock")
        assert unlocked.returncode == 0, unlocked.stdout[-3000:] + unlocked.stderr[-3000:]

    # More records arrive, so the next run has a task to lose (and for Hive a commit to finish as well);
    # one of its executors is killed while it runs a task, and Spark runs that task again.
    harness.produce(topic, EVENT, [{"id": i, "url": f"/p/{i}"} for i in range(30, 30 + BIG_BATCH)])
    ui_port, event_log_dir = free_port(), tmp_path / "events"
    event_log_dir.mkdir()
    watch = {
        "spark.ui.port": str(ui_port),
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": event_log_dir.as_uri(),
        "spark.eventLog.compress": "false",
    }
    apps_before = len(applications(cluster))
    run = subprocess.Popen(
        submit_command(cluster, harness, "run", watch), cwd=tmp_path, env=submit_env(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while (running := executor_running_a_task(ui_port)) is None:
            if run.poll() is not None:
                pytest.fail(
                    "the run ended before a task ran on an executor:\n" + run.communicate()[1][-5000:]
                )
            assert time.monotonic() < deadline, "no task ran on an executor within 180 s"
            time.sleep(0.2)
        app_id, executor_id = running
        os.kill(executor_pid(cluster, app_id, executor_id), signal.SIGKILL)
        out, err = run.communicate(timeout=240)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, out[-3000:] + err[-5000:]
    assert executor_id in tasks_lost_with_their_executor(event_log_dir), (
        "the executor was killed between tasks"
    )
    # The run was an application of the cluster's master (its executors ran in the workers), not a local
    # Spark of the driver's own.
    loader_apps = [app for app in applications(cluster) if app["name"] == APP_NAME]
    assert len(applications(cluster)) == apps_before + 1 and loader_apps, applications(cluster)

    total = 30 + BIG_BATCH
    table = f"{harness.database}.{table_name(topic)}"
    state = f"{cluster.warehouse}/_loader_state/{harness.database}"
    read = read_back(
        cluster,
        table_format,
        f"""
        row = spark.sql(
            "SELECT count(*), count(DISTINCT id), min(id), max(id),"
            " count(DISTINCT _kafka_partition, _kafka_offset),"
            " count_if(url = concat('/p/', CAST(id AS STRING))) FROM {table}"
        ).first()
        print("ROWS", tuple(row))
        print("LOCATION", spark.sql("DESCRIBE FORMATTED {table}").where("col_name = 'Location'").first()[1])
        jvm = spark.sparkContext._jvm
        path = jvm.org.apache.hadoop.fs.Path({state!r})
        fs = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
        print("STATE", sorted(status.getPath().getName() for status in fs.listStatus(path)))
        """,
    )
    # Exactly the ids produced, each once with its url, from as many distinct Kafka offsets: none lost,
    # none twice.
    assert f"ROWS {(total, total, 0, total - 1, total, total)}" in read, read
    assert f"LOCATION {cluster.warehouse}/{harness.database}.db/" in read, read
    state_line = next(line for line in read.splitlines() if line.startswith("STATE "))
    assert state_line != "STATE []", read
    audited = submit(cluster, harness, tmp_path, command="audit")
    assert audited.returncode == 0, audited.stdout[-3000:] + audited.stderr[-3000:]
    assert "clean" in audited.stdout, audited.stdout


def hdfs_files(spark: SparkSession, directory: str) -> list[tuple[str, bool]]:
    """Every file under `directory` on HDFS, with whether its writer closed it: `(name, closed)`."""
    jvm = spark._jvm
    root = jvm.org.apache.hadoop.fs.Path(directory)
    fs = root.getFileSystem(spark._jsc.hadoopConfiguration())
    listing, files = fs.listFiles(root, True), []
    while listing.hasNext():
        path = listing.next().getPath()
        files.append((path.getName(), bool(fs.isFileClosed(path))))
    return files


def test_group_writer_closes_and_removes_every_file_when_hdfs_refuses_one(
    cluster: Cluster, spark: SparkSession
) -> None:
    """A staging directory over its HDFS space quota: closing a file (when a small ORC file's one block is
    allocated) fails. The task fails with HDFS's reason, and closes and removes every file it had open, not
    only those before the one whose close failed: no file stays open for write on the namenode."""
    jvm = spark._jvm
    base = f"{cluster.addresses['CLUSTER_HDFS']}/quota-{uuid.uuid4().hex}"
    directory = jvm.org.apache.hadoop.fs.Path(base)
    fs = directory.getFileSystem(spark._jsc.hadoopConfiguration())
    fs.mkdirs(directory)
    quota_not_set = jvm.java.lang.Long.MAX_VALUE  # HdfsConstants.QUOTA_DONT_SET: the name quota unchanged
    fs.setQuota(directory, quota_not_set, 1)  # one byte: no block can be allocated under it
    rows = group_rows(spark).coalesce(1)  # one task, which opens three files (two tables, two hours)
    with pytest.raises(Py4JJavaError, match="DSQuotaExceededException"):
        write_tables(spark, rows, [f"{base}/views", f"{base}/counts"], "hour")
    assert hdfs_files(spark, base) == []
