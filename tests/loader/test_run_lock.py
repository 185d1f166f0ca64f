"""The loader's state on a file system other than the local disk: the run lock, `loader unlock` for the
lock a killed run leaves there, and a table that is not on the state's file system. Hadoop's
ViewFileSystem (`viewfs://`) stands in for HDFS: a real non-local Hadoop file system, mounted onto a
temporary directory, so the state takes the same path through Hadoop as on HDFS."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.operations.lock import RunLock
from loader.outcome.report import EXIT_LOCKED
from loader.planning.state_store import StateStore
from loader.runtime.spark_session import embedded_metastore
from tests.loader.harness import Harness, record_schema

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

EVENT = record_schema("Tick", [{"name": "n", "type": "long", "doc": "Sequence number."}])


@dataclass
class MountedState:
    """A state directory at `uri` whose files are under `local` on this disk."""

    mount: str
    uri: str
    local: Path
    spark_conf_dir: Path

    @property
    def hadoop_setting(self) -> tuple[str, str]:
        """The mount table entry that puts `uri` onto `local`."""
        return f"fs.viewfs.mounttable.{self.mount}.link./state", self.local.as_uri()

    @property
    def lock_file(self) -> Path:
        return self.local / "lock"

    def leave_lock(self, host: str, pid: int) -> None:
        """What a run killed on `host` leaves behind."""
        self.local.mkdir(parents=True, exist_ok=True)
        self.lock_file.write_text(json.dumps({"host": host, "pid": pid, "since": time.time() - 3600}))

    def env(self) -> dict[str, str]:
        """How a `loader` process learns of the mount: Spark's own defaults file, as on a cluster."""
        return {"SPARK_CONF_DIR": str(self.spark_conf_dir)}


@pytest.fixture
def mounted_state(tmp_path: Path) -> MountedState:
    mount = f"lock{uuid.uuid4().hex[:8]}"
    local = tmp_path / "state"
    conf_dir = tmp_path / "spark-conf"
    conf_dir.mkdir()
    mounted = MountedState(mount=mount, uri=f"viewfs://{mount}/state", local=local, spark_conf_dir=conf_dir)
    key, value = mounted.hadoop_setting
    (conf_dir / "spark-defaults.conf").write_text(f"spark.hadoop.{key} {value}\n")
    return mounted


def mount_in_session(spark: SparkSession, mounted_state: MountedState) -> None:
    spark._jsc.hadoopConfiguration().set(*mounted_state.hadoop_setting)  # type: ignore[union-attr]


def test_a_second_process_of_a_warehouse_exits_75_before_its_embedded_metastore_boots(
    cli_harness: Harness, mounted_state: MountedState
) -> None:
    """Derby admits one process: while another holds the warehouse's embedded metastore, a run whose own
    state lock is not local (here on a non-local file system; a REST catalog's on an object store, taken
    later through Spark) exits 75 at once, naming the metastore, without starting its JVM."""
    metastore = embedded_metastore(cli_harness.warehouse)
    with RunLock(str(metastore.home), file_name="metastore_db.lock"):  # another process's, in effect
        done = cli_harness.run_cli("--state-dir", mounted_state.uri, env=mounted_state.env())
    said = " ".join(done.stderr.split())
    assert done.returncode == EXIT_LOCKED, said[-3000:]
    assert f"not started: another loader run holds the lock {metastore.home / 'metastore_db.lock'}" in said
    assert f"the embedded metastore {metastore.database} admits one process" in said
    assert "Using Spark's default log4j profile" not in done.stderr  # no JVM started
    assert not mounted_state.lock_file.exists()


def test_a_remote_lock_stops_a_second_run_and_names_its_owner(
    harness: Harness, spark: SparkSession, mounted_state: MountedState
) -> None:
    mount_in_session(spark, mounted_state)
    first = RunLock(mounted_state.uri, StateStore(spark, mounted_state.uri))
    first.acquire()
    try:
        assert json.loads(mounted_state.lock_file.read_text())["pid"] == os.getpid()

        second = harness.run(spark, state_dir=mounted_state.uri)

        assert second.exit_code == EXIT_LOCKED
        assert f"pid {os.getpid()} on {socket.gethostname()}" in (second.error or "")
        assert "`loader unlock` removes the lock" in (second.error or "")
    finally:
        first.release()
    assert not mounted_state.lock_file.exists(), "release removes the lock file"


def test_unlock_removes_a_lock_whose_run_is_gone_and_keeps_one_whose_run_is_alive(
    cli_harness: Harness, mounted_state: MountedState, ended_pid: int
) -> None:
    def unlock() -> subprocess.CompletedProcess[str]:
        args = ("--state-dir", mounted_state.uri)
        return cli_harness.run_cli(*args, command="unlock", env=mounted_state.env())

    mounted_state.leave_lock(socket.gethostname(), os.getpid())
    alive = unlock()
    assert alive.returncode == 1, alive.stderr[-3000:]
    assert "kept" in alive.stderr and "its run is alive" in alive.stderr
    assert mounted_state.lock_file.exists()

    mounted_state.leave_lock(socket.gethostname(), ended_pid)
    gone = unlock()
    assert gone.returncode == 0, gone.stderr[-3000:]
    assert f"removed {mounted_state.uri}/lock (pid {ended_pid}" in gone.stderr
    assert not mounted_state.lock_file.exists()

    nothing = unlock()
    assert nothing.returncode == 0, nothing.stderr[-3000:]
    assert "no lock at" in nothing.stderr


def test_unlock_asks_before_removing_a_lock_from_another_host(
    cli_harness: Harness, mounted_state: MountedState
) -> None:
    mounted_state.leave_lock("another-loader-host", 4242)
    args = ("--state-dir", mounted_state.uri)

    declined = cli_harness.run_cli(*args, command="unlock", env=mounted_state.env(), answer="n\n")
    assert declined.returncode == 1, declined.stderr[-3000:]
    assert "pid 4242 on another-loader-host" in declined.stderr
    assert "Is no loader run alive there?" in declined.stderr
    assert mounted_state.lock_file.exists()

    confirmed = cli_harness.run_cli(*args, "--yes", command="unlock", env=mounted_state.env())
    assert confirmed.returncode == 0, confirmed.stderr[-3000:]
    assert not mounted_state.lock_file.exists()


def test_unlock_never_removes_a_local_lock(cli_harness: Harness, tmp_path: Path) -> None:
    state = tmp_path / "local-state"
    running = RunLock(str(state))
    running.acquire()
    try:
        held = cli_harness.run_cli("--state-dir", str(state), command="unlock")
        assert held.returncode == 1, held.stderr[-3000:]
        assert "a run is alive" in held.stderr and str(os.getpid()) in held.stderr
        assert (state / "lock").exists()
    finally:
        running.release()

    free = cli_harness.run_cli("--state-dir", str(state), command="unlock")
    assert free.returncode == 0, free.stderr[-3000:]
    assert "no run holds the lock" in free.stderr


def test_a_table_on_another_file_system_than_the_state_fails_its_topic_before_anything_is_written(
    harness: Harness, spark: SparkSession, mounted_state: MountedState
) -> None:
    mount_in_session(spark, mounted_state)
    topic = harness.topic()
    harness.produce(topic, EVENT, [{"n": i} for i in range(3)])

    refused = harness.run(spark, state_dir=mounted_state.uri)

    assert refused.exit_code == 1
    (report,) = refused.topics
    assert report.status == "failed"
    assert f"is on file:/// but the loader's state directory is on viewfs://{mounted_state.mount}" in (
        report.reason or ""
    )
    assert "set --state-dir on the table's" in (report.reason or "")
    staged = [p for p in mounted_state.local.rglob("*") if p.is_file() and "staging" in p.parts]
    assert staged == [], "nothing is written before the check"

    loaded = harness.run(spark)
    (report,) = loaded.topics
    assert (loaded.exit_code, report.status, report.records) == (0, "loaded", 3)
    assert spark.table(report.table or "").count() == 3
