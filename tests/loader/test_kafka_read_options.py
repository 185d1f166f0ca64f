"""The options of Spark's Kafka source for a run's ranges (pure; no broker): the broker does not hold a
fetch at the end of a partition, and the settings' own `kafka.` properties win over the loader's."""

from __future__ import annotations

import json
from dataclasses import replace

from loader.config import LoaderSettings
from loader.planning.offsets import OffsetRange
from loader.reading.kafka_security import KafkaSecurity
from loader.reading.topic_read import FETCH_MAX_WAIT_MS, kafka_read_options

RANGES = [OffsetRange("clicks", 0, 5, 9), OffsetRange("clicks", 1, 0, 0)]


def settings(**kafka: str) -> LoaderSettings:
    return LoaderSettings(
        "broker:9092", "http://registry", "/lake", kafka_security=KafkaSecurity(java_properties=kafka)
    )


def test_a_read_asks_for_its_ranges_committed_records_and_a_short_fetch_wait() -> None:
    options = kafka_read_options(settings(), RANGES)
    assert options["kafka.bootstrap.servers"] == "broker:9092"
    assert options["kafka.isolation.level"] == "read_committed"
    assert options["includeHeaders"] == "true"
    # Kafka's default is 500 ms, paid at the end of every partition a task reads (topic_read's comment).
    assert options["kafka.fetch.max.wait.ms"] == FETCH_MAX_WAIT_MS == "1"
    assert json.loads(options["startingOffsets"]) == {"clicks": {"0": 5}}
    assert json.loads(options["endingOffsets"]) == {"clicks": {"0": 9}}


def test_the_settings_own_fetch_wait_wins_and_committed_records_stay_the_loaders() -> None:
    options = kafka_read_options(settings(**{"fetch.max.wait.ms": "200", "client.id": "etl"}), RANGES)
    assert options["kafka.fetch.max.wait.ms"] == "200"
    assert options["kafka.client.id"] == "etl"
    assert options["kafka.isolation.level"] == "read_committed"


def test_a_read_is_bounded_by_the_metadata_timeout() -> None:
    options = kafka_read_options(replace(settings(), metadata_timeout_s=7.5), RANGES)
    # Kafka's own defaults: 30 s a request, 60 s a call (Spark's offset lookups, tried 3 times), 120 s a poll.
    assert options["kafka.request.timeout.ms"] == options["kafka.default.api.timeout.ms"] == "7500"
    assert options["kafkaConsumer.pollTimeoutMs"] == "7500"
    assert options["fetchOffset.numRetries"] == "1"
