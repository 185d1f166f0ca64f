"""A broker killed as the read starts (its table ready, its Spark job about to start): the run ends within
`metadata-timeout-s` of Kafka going away, with a line naming Kafka at its address and the cause, and moves
no offset; once the broker is back, the next run loads every record exactly once. The broker is this
test's own: the session's broker stays up for the other tests."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.outcome.report import EXIT_FAILED
from tests.fixtures.kafka import KafkaBroker
from tests.fixtures.ports import free_port
from tests.loader.harness import Harness, committed_offsets, record_schema

pytestmark = pytest.mark.integration

EVENT = record_schema("Pulse", [{"name": "n", "type": "long", "doc": "Sequence number."}])
TIMEOUT_S = 10.0


@pytest.fixture
def own_broker(tmp_path: Path) -> Iterator[KafkaBroker]:
    port = free_port()
    env = dict(
        os.environ,
        KAFKA_PORT=str(port),
        KAFKA_CONTROLLER_PORT=str(free_port()),
        KAFKA_DATA_DIR=str(tmp_path / "kafka"),
        KAFKA_HEAP_MB="384",
    )
    broker = KafkaBroker(bootstrap=f"127.0.0.1:{port}", env=env)
    assert broker.run("start").splitlines()[-1] == broker.bootstrap
    try:
        yield broker
    finally:
        broker.run("stop")


def kill_broker(broker: KafkaBroker) -> None:
    """SIGKILL, as a crashed host or the OOM killer ends it: no goodbye to its clients."""
    pid = int((Path(broker.env["KAFKA_DATA_DIR"]) / "broker.pid").read_text())
    os.kill(pid, signal.SIGKILL)
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def rows(spark: SparkSession, table: str) -> list[tuple[int, int]]:
    spark.catalog.refreshTable(table)
    found = spark.sql(f"SELECT _kafka_partition, _kafka_offset FROM {table}").collect()
    return sorted((r[0], r[1]) for r in found)


def test_a_broker_killed_as_the_read_starts_ends_the_run_within_the_timeout(
    own_broker: KafkaBroker,
    registry_url: str,
    spark_warehouse: Path,
    spark: SparkSession,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    harness = Harness(kafka=own_broker, registry_url=registry_url, warehouse=spark_warehouse)
    # Small topics, read in one query (a Hive run's group): its failure must not be tried again topic by
    # topic, each waiting for the broker again.
    topics = [harness.topic(partitions=2) for _ in range(3)]
    for topic in topics:
        harness.produce(topic, EVENT, [{"n": i} for i in range(10)])
    paused = tmp_path / "paused"
    monkeypatch.setenv("LOADER_PAUSE_AT", "after_table_ready:3")
    monkeypatch.setenv("LOADER_PAUSED_FILE", str(paused))
    killed: list[float] = []

    def kill_as_the_read_starts() -> None:
        while not paused.exists():
            time.sleep(0.05)
        kill_broker(own_broker)
        killed.append(time.monotonic())

    killer = threading.Thread(target=kill_as_the_read_starts, daemon=True)
    killer.start()
    down = harness.run(spark, metadata_timeout_s=TIMEOUT_S)
    ended = time.monotonic()
    killer.join(timeout=5)

    assert killed, "the run never reached its read"
    assert down.exit_code == EXIT_FAILED
    assert down.error is not None
    assert down.error.startswith(f"3 topic(s) failed: Kafka at {own_broker.bootstrap}: "), down.error
    assert {t.status for t in down.topics} == {"failed"}
    assert "nothing was committed, no offset moved" in down.error
    assert "check that the brokers run and answer" in down.error
    # Within the timeout of the pause's end (the read's start), with a few seconds for Spark's own work.
    assert ended - killed[0] < 3 + TIMEOUT_S + 10, (ended - killed[0], down.error)

    monkeypatch.delenv("LOADER_PAUSE_AT")
    assert own_broker.run("start").splitlines()[-1] == own_broker.bootstrap
    back = harness.run(spark)
    assert back.exit_code == 0, back.error
    for topic in topics:
        [loaded] = [t for t in back.topics if t.topic == topic]
        assert loaded.records == 10
        assert rows(spark, loaded.table or "") == committed_offsets(harness, topic)
