"""What Kafka has: topics, partitions and their offsets, asked once at the start of a run."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from confluent_kafka import IsolationLevel, KafkaException, TopicCollection, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, OffsetSpec, ResourceType

from loader.planning.offsets import TopicPartition as TP
from loader.planning.offsets import Watermarks
from loader.reading.kafka_access import cluster_metadata
from loader.reading.kafka_security import KafkaSecurity, client_config

_LONG = (1 << 64) - 1


class KafkaUnavailable(RuntimeError):
    """The brokers did not answer; nothing was loaded and no offset moved."""


def is_internal(topic: str) -> bool:
    """Kafka's own topics (`__consumer_offsets`, `__transaction_state`) and Confluent's `_schemas`."""
    return topic.startswith("__") or topic in {"_schemas", "_confluent-metrics"}


@dataclass(frozen=True)
class KafkaTopics:
    """Which cluster answered, and its topics (name -> number of partitions)."""

    cluster_id: str
    partitions: dict[str, int]


def list_topics(
    bootstrap_servers: str,
    include: str | None = None,
    exclude: str | None = None,
    timeout_s: float = 30,
    security: KafkaSecurity | None = None,
) -> KafkaTopics:
    """The cluster's id and topics, without internal topics, filtered by the global patterns; a broker
    that refuses the loader raises ``KafkaRefused`` at once."""
    security = security or KafkaSecurity()
    try:
        _, metadata = cluster_metadata(_config(bootstrap_servers, timeout_s, security), security, timeout_s)
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
    return KafkaTopics(str(metadata.cluster_id), topics)


def topic_ids(
    bootstrap_servers: str,
    topics: Iterable[str],
    timeout_s: float = 30,
    security: KafkaSecurity | None = None,
) -> dict[str, str]:
    """Each topic's id (one request for all): a topic deleted and created again gets a new one."""
    names = sorted(topics)
    if not names:
        return {}
    admin = AdminClient(_config(bootstrap_servers, timeout_s, security))
    found = {}
    try:
        for name, future in admin.describe_topics(TopicCollection(names), request_timeout=timeout_s).items():
            uuid = future.result(timeout=timeout_s).topic_id
            high, low = uuid.get_most_significant_bits(), uuid.get_least_significant_bits()
            found[name] = f"{high & _LONG:016x}{low & _LONG:016x}"  # the bits come as signed longs
    except KafkaException as exc:
        raise KafkaUnavailable(f"could not describe topics on {bootstrap_servers}: {exc}") from exc
    return found


def watermarks(
    bootstrap_servers: str,
    partitions: Iterable[TP],
    timeout_s: float = 30,
    security: KafkaSecurity | None = None,
) -> dict[TP, Watermarks]:
    """The earliest offset and the end of the committed data of each partition, as Kafka has them now:
    two requests for all partitions, whatever their number.

    The end is the last stable offset (read_committed): records of a transaction still open, and every
    record after them, are left for a later run, once the transaction is committed or aborted. On a
    topic without transactions it is the high watermark.
    """
    wanted = [TopicPartition(topic, partition) for topic, partition in partitions]
    if not wanted:
        return {}
    admin = AdminClient(_config(bootstrap_servers, timeout_s, security))
    try:
        earliest = _list_offsets(admin, wanted, OffsetSpec.earliest(), timeout_s)
        end = _list_offsets(admin, wanted, OffsetSpec.latest(), timeout_s)
    except KafkaException as exc:
        raise KafkaUnavailable(f"could not read offsets from {bootstrap_servers}: {exc}") from exc
    return {(tp.topic, tp.partition): Watermarks(earliest[tp], end[tp]) for tp in wanted}


def _list_offsets(
    admin: AdminClient, partitions: list[TopicPartition], spec: OffsetSpec, timeout_s: float
) -> dict[TopicPartition, int]:
    futures = admin.list_offsets(
        {tp: spec for tp in partitions},
        isolation_level=IsolationLevel.READ_COMMITTED,
        request_timeout=timeout_s,
    )
    return {tp: int(future.result(timeout=timeout_s).offset) for tp, future in futures.items()}


def compacted_topics(
    bootstrap_servers: str,
    topics: Iterable[str],
    timeout_s: float = 30,
    security: KafkaSecurity | None = None,
) -> set[str]:
    """The topics whose `cleanup.policy` contains `compact` (one request for all of them)."""
    resources = [ConfigResource(ResourceType.TOPIC, topic) for topic in topics]
    if not resources:
        return set()
    admin = AdminClient(_config(bootstrap_servers, timeout_s, security))
    found = set()
    try:
        for resource, future in admin.describe_configs(resources, request_timeout=timeout_s).items():
            policy = future.result(timeout=timeout_s).get("cleanup.policy")
            if policy is not None and "compact" in str(policy.value).split(","):
                found.add(resource.name)
    except KafkaException as exc:
        raise KafkaUnavailable(f"could not read topic settings from {bootstrap_servers}: {exc}") from exc
    return found


@dataclass(frozen=True)
class CleanupPolicies:
    """Which topics are compacted, as far as the loader may see: the topics whose settings Kafka refused
    to describe (no DescribeConfigs ACL) are in `refused`, with Kafka's error, and in neither set."""

    compacted: set[str]
    refused: dict[str, str]


def compacted_topics_allowed(
    bootstrap_servers: str,
    topics: Iterable[str],
    timeout_s: float = 30,
    security: KafkaSecurity | None = None,
) -> CleanupPolicies:
    """`compacted_topics`, except that a topic whose settings the user may not describe is a refusal of
    its own rather than the request's failure (any other error still fails it)."""
    resources = [ConfigResource(ResourceType.TOPIC, topic) for topic in topics]
    if not resources:
        return CleanupPolicies(set(), {})
    admin = AdminClient(_config(bootstrap_servers, timeout_s, security))
    found, refused = set(), {}
    for resource, future in admin.describe_configs(resources, request_timeout=timeout_s).items():
        try:
            policy = future.result(timeout=timeout_s).get("cleanup.policy")
        except KafkaException as exc:
            code = str(exc.args[0].name())
            if not code.endswith("_AUTHORIZATION_FAILED"):
                raise KafkaUnavailable(
                    f"could not read topic settings from {bootstrap_servers}: {exc}"
                ) from exc
            refused[resource.name] = code
            continue
        if policy is not None and "compact" in str(policy.value).split(","):
            found.add(resource.name)
    return CleanupPolicies(found, refused)


def _config(bootstrap_servers: str, timeout_s: float, security: KafkaSecurity | None) -> dict[str, object]:
    return {
        "bootstrap.servers": bootstrap_servers,
        "socket.timeout.ms": int(timeout_s * 1000),
        **client_config(security or KafkaSecurity()),
    }
