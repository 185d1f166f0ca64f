"""What Kafka has: topics, partitions and their offsets, asked once at the start of a run."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable

from confluent_kafka import Consumer, KafkaException, TopicPartition

from loader.kafka_access import cluster_metadata
from loader.kafka_security import KafkaSecurity, librdkafka_config
from loader.planning import TopicPartition as TP
from loader.planning import Watermarks


class KafkaUnavailable(RuntimeError):
    """The brokers did not answer; nothing was loaded and no offset moved."""


def is_internal(topic: str) -> bool:
    """Kafka's own topics (`__consumer_offsets`, `__transaction_state`) and Confluent's `_schemas`."""
    return topic.startswith("__") or topic in {"_schemas", "_confluent-metrics"}


def list_topics(
    bootstrap_servers: str,
    include: str | None = None,
    exclude: str | None = None,
    timeout_s: float = 30,
    security: KafkaSecurity | None = None,
) -> dict[str, int]:
    """Topic -> number of partitions, without internal topics, filtered by the global patterns."""
    security = security or KafkaSecurity()
    config = {
        "bootstrap.servers": bootstrap_servers,
        "socket.timeout.ms": int(timeout_s * 1000),
        **librdkafka_config(security),
    }
    try:
        _, metadata = cluster_metadata(config, security, timeout_s)
    except KafkaException as exc:
        raise KafkaUnavailable(f"could not list topics from {bootstrap_servers}: {exc}") from exc
    topics = {}
    for name, topic in metadata.topics.items():
        if is_internal(name) or topic.error is not None:
            continue
        if include and not re.fullmatch(include, name):
            continue
        if exclude and re.fullmatch(exclude, name):
            continue
        topics[name] = len(topic.partitions)
    return topics


def watermarks(
    bootstrap_servers: str,
    partitions: Iterable[TP],
    timeout_s: float = 30,
    security: KafkaSecurity | None = None,
) -> dict[TP, Watermarks]:
    """The earliest and end offset of each partition, as Kafka has them now."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap_servers,
            "group.id": f"loader-metadata-{uuid.uuid4().hex}",  # never commits; only asks for offsets
            "enable.auto.commit": False,
            **librdkafka_config(security or KafkaSecurity()),
        }
    )
    try:
        result = {}
        for topic, partition in partitions:
            try:
                low, high = consumer.get_watermark_offsets(
                    TopicPartition(topic, partition), timeout=timeout_s
                )
            except KafkaException as exc:
                raise KafkaUnavailable(f"could not read offsets of {topic}[{partition}]: {exc}") from exc
            result[(topic, partition)] = Watermarks(earliest=low, end=high)
        return result
    finally:
        consumer.close()
