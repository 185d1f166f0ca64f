"""The external metastore stops after the commit point (the offsets moved, the files are in the table's
directory, the partition not registered yet): the run says it committed, how many partitions are left to
register and that the next run registers them, and exits 4; once the metastore is back, the next run
registers them and every record is in the table exactly once."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from loader.outcome.report import EXIT_INCOMPLETE
from loader.schema.naming import table_name
from tests.fixtures.hive_metastore import METASTORE_SCRIPT, HiveMetastore
from tests.fixtures.ports import free_port
from tests.loader.harness import Harness, committed_offsets, record_schema
from tests.loader.test_run_process import start_cli

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

EVENT = record_schema("Visit", [{"name": "n", "type": "long", "doc": "Sequence number."}])


class Metastore:
    """A metastore service of this test's own, which it stops and starts again."""

    def __init__(self, data_dir: Path) -> None:
        self.env = dict(
            os.environ,
            HIVE_METASTORE_PORT=str(free_port()),
            HIVE_METASTORE_DATA_DIR=str(data_dir),
            HIVE_METASTORE_WAREHOUSE=f"file://{data_dir / 'warehouse'}",
            HIVE_METASTORE_HEAP_MB="384",
        )
        self.service = HiveMetastore(uri="", warehouse=self.env["HIVE_METASTORE_WAREHOUSE"])

    def script(self, action: str) -> str:
        done = subprocess.run(
            [str(METASTORE_SCRIPT), action], env=self.env, capture_output=True, text=True, timeout=180
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout.strip()

    def start(self) -> str:
        uri = self.script("start").splitlines()[-1]
        self.service = HiveMetastore(uri=uri, warehouse=self.service.warehouse)
        return uri


@pytest.fixture
def metastore(tmp_path: Path) -> Iterator[Metastore]:
    service = Metastore(tmp_path / "metastore")
    service.start()
    try:
        yield service
    finally:
        service.script("stop")


def test_a_metastore_gone_after_the_commit_point_leaves_partitions_to_the_next_run(
    cli_harness: Harness, metastore: Metastore, tmp_path: Path
) -> None:
    topic = cli_harness.topic()
    cli_harness.produce(topic, EVENT, [{"n": i} for i in range(5)])
    cli_harness.warehouse = Path(metastore.service.warehouse.removeprefix("file://"))  # the service's
    commits = cli_harness.warehouse / "_loader_state" / cli_harness.database / "commits"

    uri = metastore.service.uri
    paused = tmp_path / "paused"
    env = {"LOADER_PAUSE_AT": "after_moves:60", "LOADER_PAUSED_FILE": str(paused)}
    run = start_cli(cli_harness, {**env, "LOADER_METASTORE_URI": uri})
    try:
        deadline = time.monotonic() + 240
        while not paused.exists():  # the run waits before registering its partitions
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "the run never reached its partitions"
            time.sleep(0.1)
        assert (commits / "000000000001.json").exists()  # the commit point has passed
        metastore.script("stop")
        paused.unlink()  # the run goes on, without its metastore
        out, err = run.communicate(timeout=300)
    finally:
        run.kill()

    assert run.returncode == EXIT_INCOMPLETE, out[-3000:] + err[-3000:]
    line = out.strip().splitlines()[-1]
    assert line.startswith(f"error: the Hive metastore at {uri}: "), line
    assert "committed; 1 partition(s) not yet registered; the next run registers them" in line

    assert metastore.start() == uri
    # The next run, then its table read and audited through the metastore, in one application.
    table = f"{cli_harness.database}.{table_name(topic)}"
    done, [rows], audited = cli_harness.run_query_and_audit_cli(
        f"SELECT _kafka_partition AS p, _kafka_offset AS o FROM {table}", metastore_uri=uri
    )
    assert done["exit_code"] == 0, done
    assert sorted((r["p"], r["o"]) for r in rows) == committed_offsets(cli_harness, topic)
    assert audited["ok"], audited
