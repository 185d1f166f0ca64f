"""The loader notices when Kafka is not the Kafka its offsets came from: a topic deleted and created again
is loaded from its start and named, and another cluster (a second real broker) stops the run unless its
id is accepted."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest
from confluent_kafka.admin import NewTopic
from pyspark.sql import SparkSession
from rich.console import Console

from loader.operations import status
from loader.operations.audit import audit
from tests.fixtures.kafka import KafkaBroker
from tests.fixtures.ports import free_port
from tests.loader.harness import Harness, record_schema

pytestmark = pytest.mark.integration

EVENT = record_schema("Tick", [{"name": "n", "type": "long"}])


@pytest.fixture(scope="module")
def second_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    """Another Kafka cluster (its own cluster id), started by the project's script on other ports."""
    port = free_port()
    env = dict(
        os.environ,
        KAFKA_PORT=str(port),
        KAFKA_CONTROLLER_PORT=str(free_port()),
        KAFKA_DATA_DIR=str(tmp_path_factory.mktemp("kafka-second")),
        KAFKA_HEAP_MB="256",
    )
    broker = KafkaBroker(bootstrap=f"127.0.0.1:{port}", env=env)
    broker.run("start")
    try:
        yield broker
    finally:
        broker.run("stop")


def recreate(kafka: KafkaBroker, topic: str) -> None:
    admin = kafka.admin()
    for future in admin.delete_topics([topic]).values():
        future.result(timeout=30)
    deadline = time.monotonic() + 60
    while True:  # the broker takes a moment to forget the old topic
        try:
            for future in admin.create_topics([NewTopic(topic, 1, 1)]).values():
                future.result(timeout=30)
            return
        except Exception:
            assert time.monotonic() < deadline, f"could not create {topic} again"
            time.sleep(0.5)


def status_text(harness: Harness, spark: SparkSession) -> str:
    console = Console(record=True, width=400)
    status.show(harness.settings(), console, spark)
    return console.export_text()


def status_line(harness: Harness, spark: SparkSession, topic: str) -> str:
    return next(line for line in status_text(harness, spark).splitlines() if topic in line)


def test_a_recreated_topic_is_loaded_from_its_start_and_named_in_report_status_and_audit(
    harness: Harness, spark: SparkSession
) -> None:
    topic = harness.topic()
    harness.produce(topic, EVENT, [{"n": i} for i in range(5)])
    assert harness.run(spark).exit_code == 0
    recreate(harness.kafka, topic)
    harness.produce(topic, EVENT, [{"n": 100 + i} for i in range(2)])

    assert "partition 0 recreated: offsets restarted at 0 (saved 5)" in status_line(harness, spark, topic)
    report = harness.run(spark)

    [loaded] = [t for t in report.topics if t.topic == topic]
    assert report.exit_code == 0
    assert (loaded.records, loaded.offsets) == (2, {0: (0, 2)})
    assert loaded.notes == ["partition 0 recreated: offsets restarted at 0 (saved 5)"]
    assert '"partition 0 recreated: offsets restarted at 0 (saved 5)"' in report.to_json()
    rows = spark.sql(f"SELECT n FROM {loaded.table} ORDER BY n").collect()
    assert [r["n"] for r in rows] == [0, 1, 2, 3, 4, 100, 101]  # both lives of the topic, named as such
    audited = audit(harness.settings(), spark, "loader_quarantine")
    assert [w for w in audited.windows if w.topic == topic and not w.ok] == []
    assert audited.notes[topic] == [
        f"run {report.run_id}: partition 0 recreated: offsets restarted at 0 (saved 5)"
    ]
    # The next run continues from the new life's offsets: nothing more to say.
    harness.produce(topic, EVENT, [{"n": 102}])
    again = next(t for t in harness.run(spark).topics if t.topic == topic)
    assert (again.records, again.notes) == (1, [])


def test_another_cluster_stops_the_run_until_its_id_is_accepted(
    harness: Harness, spark: SparkSession, second_cluster: KafkaBroker
) -> None:
    topic = harness.topic()
    harness.produce(topic, EVENT, [{"n": i} for i in range(3)])
    first = harness.run(spark)
    assert first.exit_code == 0
    # The same topic name on another cluster, with more records (as a mirror that kept offsets would).
    second_cluster.create_topic(topic)
    harness.produce(topic, EVENT, [{"n": i} for i in range(3)])  # keep the first cluster going too
    mirror = Harness(harness.kafka, harness.registry_url, harness.warehouse, harness.database, harness.prefix)
    mirror.kafka = second_cluster
    mirror.produce(topic, EVENT, [{"n": i} for i in range(5)])
    other_id = second_cluster.admin().list_topics(timeout=10).cluster_id
    commits = harness.warehouse / "_loader_state" / harness.database / "commits"
    before = sorted(p.name for p in commits.iterdir())

    refused = mirror.run(spark)

    assert refused.exit_code == 1
    assert (
        f"Kafka at {second_cluster.bootstrap} is cluster {other_id}, but the saved offsets were read from "
        f"cluster {first.cluster_id}"
    ) in (refused.error or "")
    assert f"--accept-cluster {other_id}" in (refused.error or "")
    assert sorted(p.name for p in commits.iterdir()) == before  # nothing read, nothing committed
    assert f"the saved offsets are of cluster {first.cluster_id}" in " ".join(
        status_text(mirror, spark).split()
    )

    accepted = mirror.run(spark, accept_cluster=other_id)
    assert accepted.exit_code == 0, accepted.error
    [loaded] = [t for t in accepted.topics if t.topic == topic]
    assert (loaded.records, loaded.offsets) == (2, {0: (3, 5)})  # on from the saved offset 3
    # From now on the state is the second cluster's: the flag is not needed, the first is refused.
    assert mirror.run(spark).exit_code == 0
    assert harness.run(spark).exit_code == 1
