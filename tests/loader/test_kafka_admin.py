"""A run asks Kafka everything through one admin client (`loader.reading.kafka_metadata.KafkaAdmin`):
a new librdkafka client's first request may wait some 3 s for a retry, so the run makes one, not one per
question. Against the real broker of scripts/kafka; the client class is counted, not replaced."""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka import Producer

from loader.reading import kafka_access
from loader.reading.kafka_metadata import KafkaAdmin, KafkaUnavailable
from tests.fixtures.kafka import KafkaBroker
from tests.fixtures.ports import free_port

pytestmark = pytest.mark.integration


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The configurations of the admin clients made meanwhile."""
    configs: list[dict[str, Any]] = []
    real = kafka_access.AdminClient

    class Counted(real):  # type: ignore[misc,valid-type]
        def __init__(self, config: dict[str, Any], **kwargs: Any) -> None:
            configs.append(config)
            super().__init__(config, **kwargs)

    monkeypatch.setattr(kafka_access, "AdminClient", Counted)
    return configs


def test_every_question_of_a_run_goes_through_one_client(
    kafka_broker: KafkaBroker, made: list[dict[str, Any]]
) -> None:
    plain = kafka_broker.create_topic(partitions=2)
    compacted = kafka_broker.create_topic(config={"cleanup.policy": "compact"})
    producer = Producer({"bootstrap.servers": kafka_broker.bootstrap})
    for i in range(3):
        producer.produce(plain, value=b"v", partition=i % 2)
    producer.flush(30)

    kafka = KafkaAdmin(kafka_broker.bootstrap, 30)
    found = kafka.topics(include=f"{plain}|{compacted}")
    marks = kafka.watermarks([(plain, 0), (plain, 1)])
    ids = kafka.topic_ids([plain, compacted])
    allowed = kafka.compacted_topics_allowed([plain, compacted])

    assert found.partitions == {plain: 2, compacted: 1}
    assert {p: (m.earliest, m.end) for (_, p), m in marks.items()} == {0: (0, 2), 1: (0, 1)}
    assert len(set(ids.values())) == 2 and all(len(i) == 32 for i in ids.values())
    assert kafka.compacted_topics([plain, compacted]) == {compacted} == allowed.compacted
    assert len(made) == 1


def test_the_offsets_of_a_topic_created_a_moment_ago_wait_for_its_leader(kafka_broker: KafkaBroker) -> None:
    """Right after a topic is created, its partitions' leader may not be elected yet (Kafka answers "not
    leader for partition" to about one such request in ten here, and now and then "leader epoch is newer
    than broker epoch"): the run asks again, it does not fail."""
    kafka = KafkaAdmin(kafka_broker.bootstrap, 30)
    for _ in range(30):
        topic = kafka_broker.create_topic(partitions=2)
        marks = kafka.watermarks([(topic, 0), (topic, 1)])
        assert [(m.earliest, m.end) for m in marks.values()] == [(0, 0), (0, 0)]


def test_a_broker_that_does_not_answer_is_named_by_the_first_question(made: list[dict[str, Any]]) -> None:
    where = f"127.0.0.1:{free_port()}"
    kafka = KafkaAdmin(where, timeout_s=1)
    with pytest.raises(KafkaUnavailable, match=f"could not reach Kafka at {where}"):
        kafka.watermarks([("t", 0)])
