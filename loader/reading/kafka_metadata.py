"""What Kafka has: topics, partitions and their offsets, asked once at the start of a run."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from confluent_kafka import IsolationLevel, KafkaError, KafkaException, TopicCollection, TopicPartition
from confluent_kafka.admin import AdminClient, ClusterMetadata, ConfigResource, OffsetSpec, ResourceType

from loader.planning.offsets import TopicPartition as TP
from loader.planning.offsets import Watermarks
from loader.reading.kafka_access import cluster_metadata
from loader.reading.kafka_security import KafkaSecurity, client_config

_LONG = (1 << 64) - 1
# A partition's leader is being elected or has moved: asked again after a pause (doubling up to 1 s).
# What a partition's offset request may be answered while its leadership settles (a topic created a moment
# ago, a broker restarting): no leader yet, another leader, or a leader epoch the broker asked has not
# reached yet (or has passed); each is retriable in Kafka's protocol.
LEADER_MOVING = frozenset(
    {
        KafkaError.NOT_LEADER_FOR_PARTITION,
        KafkaError.LEADER_NOT_AVAILABLE,
        KafkaError.UNKNOWN_LEADER_EPOCH,
        KafkaError.FENCED_LEADER_EPOCH,
    }
)
LEADER_PAUSE_S = 0.1


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


class KafkaAdmin:
    """One admin client for everything a run (or `loader status`) asks Kafka: its topics, their ids, offsets
    and settings, and what the loader may read.

    One client, not one per question: librdkafka (2.10 and later) drops its bootstrap connection as soon as
    the first metadata answer names the brokers, and a request a new client sent on that connection in the
    meantime is failed and retried some 3 s later. Every new client risks that; one whose first request
    was the metadata itself (`cluster_metadata`, which waits for it) no longer does.
    """

    def __init__(
        self, bootstrap_servers: str, timeout_s: float = 30, security: KafkaSecurity | None = None
    ) -> None:
        self.bootstrap_servers = bootstrap_servers
        self.timeout_s = timeout_s
        self.security = security or KafkaSecurity()
        self._client: AdminClient | None = None
        self._lock = threading.Lock()

    def client(self) -> AdminClient:
        """The run's admin client, made on first use once the cluster's metadata has come."""
        client, _ = self._asked(metadata=False, failure="could not reach Kafka at")
        return client

    def _asked(self, metadata: bool, failure: str) -> tuple[AdminClient, ClusterMetadata | None]:
        """The client, made on first use by asking the cluster's metadata and waiting for it (that answer
        comes with it); with `metadata`, a client made before asks for the metadata again."""
        try:
            with self._lock:
                if self._client is None:
                    config = {
                        "bootstrap.servers": self.bootstrap_servers,
                        "socket.timeout.ms": int(self.timeout_s * 1000),
                        **client_config(self.security),
                    }
                    self._client, found = cluster_metadata(config, self.security, self.timeout_s)
                    return self._client, found
                if not metadata:
                    return self._client, None
                return self._client, self._client.list_topics(timeout=self.timeout_s)
        except KafkaException as exc:
            raise KafkaUnavailable(f"{failure} {self.bootstrap_servers}: {exc}") from exc

    def topics(self, include: str | None = None, exclude: str | None = None) -> KafkaTopics:
        """The cluster's id and topics, without internal topics, filtered by the global patterns; a broker
        that refuses the loader raises ``KafkaRefused`` at once."""
        _, metadata = self._asked(metadata=True, failure="could not list topics from")
        assert metadata is not None
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

    def topic_ids(self, topics: Iterable[str]) -> dict[str, str]:
        """Each topic's id (one request for all): a topic deleted and created again gets a new one."""
        names = sorted(topics)
        if not names:
            return {}
        found = {}
        try:
            futures = self.client().describe_topics(TopicCollection(names), request_timeout=self.timeout_s)
            for name, future in futures.items():
                uuid = future.result(timeout=self.timeout_s).topic_id
                high, low = uuid.get_most_significant_bits(), uuid.get_least_significant_bits()
                found[name] = f"{high & _LONG:016x}{low & _LONG:016x}"  # the bits come as signed longs
        except KafkaException as exc:
            raise KafkaUnavailable(f"could not describe topics on {self.bootstrap_servers}: {exc}") from exc
        return found

    def watermarks(self, partitions: Iterable[TP]) -> dict[TP, Watermarks]:
        """The earliest offset and the end of the committed data of each partition, as Kafka has them now:
        two requests for all partitions, whatever their number.

        The end is the last stable offset (read_committed): records of a transaction still open, and every
        record after them, are left for a later run, once the transaction is committed or aborted. On a
        topic without transactions it is the high watermark.
        """
        wanted = [TopicPartition(topic, partition) for topic, partition in partitions]
        if not wanted:
            return {}
        try:
            earliest = self._list_offsets(wanted, OffsetSpec.earliest())
            end = self._list_offsets(wanted, OffsetSpec.latest())
        except KafkaException as exc:
            raise KafkaUnavailable(f"could not read offsets from {self.bootstrap_servers}: {exc}") from exc
        return {(tp.topic, tp.partition): Watermarks(earliest[tp], end[tp]) for tp in wanted}

    def _list_offsets(self, partitions: list[TopicPartition], spec: OffsetSpec) -> dict[TopicPartition, int]:
        """Each partition's offset by `spec`; a partition without a leader just then (a topic created a
        moment ago, a broker restarting) is asked again until it has one, within the timeout."""
        found: dict[TopicPartition, int] = {}
        deadline = time.monotonic() + self.timeout_s
        pause_s = LEADER_PAUSE_S
        while True:
            futures = self.client().list_offsets(
                {tp: spec for tp in partitions},
                isolation_level=IsolationLevel.READ_COMMITTED,
                request_timeout=self.timeout_s,
            )
            leaderless = []
            for tp, future in futures.items():
                try:
                    found[tp] = int(future.result(timeout=self.timeout_s).offset)
                except KafkaException as exc:
                    if exc.args[0].code() not in LEADER_MOVING or time.monotonic() + pause_s > deadline:
                        raise
                    leaderless.append(tp)
            if not leaderless:
                return found
            time.sleep(pause_s)
            partitions, pause_s = leaderless, min(pause_s * 2, 1.0)

    def compacted_topics(self, topics: Iterable[str]) -> set[str]:
        """The topics whose `cleanup.policy` contains `compact` (one request for all of them); a topic
        whose settings the user may not describe fails the request."""
        policies = self.compacted_topics_allowed(topics)
        if policies.refused:
            refused = ", ".join(f"{topic} ({code})" for topic, code in sorted(policies.refused.items()))
            raise KafkaUnavailable(f"could not read topic settings from {self.bootstrap_servers}: {refused}")
        return policies.compacted

    def compacted_topics_allowed(self, topics: Iterable[str]) -> CleanupPolicies:
        """Which topics' `cleanup.policy` contains `compact` (one request for all of them); a topic whose
        settings the user may not describe is a refusal of its own (in `refused`) rather than the request's
        failure (any other error still fails it)."""
        resources = [ConfigResource(ResourceType.TOPIC, topic) for topic in topics]
        if not resources:
            return CleanupPolicies(set(), {})
        found, refused = set(), {}
        futures = self.client().describe_configs(resources, request_timeout=self.timeout_s)
        for resource, future in futures.items():
            try:
                policy = future.result(timeout=self.timeout_s).get("cleanup.policy")
            except KafkaException as exc:
                code = str(exc.args[0].name())
                if not code.endswith("_AUTHORIZATION_FAILED"):
                    raise KafkaUnavailable(
                        f"could not read topic settings from {self.bootstrap_servers}: {exc}"
                    ) from exc
                refused[resource.name] = code
                continue
            if policy is not None and "compact" in str(policy.value).split(","):
                found.add(resource.name)
        return CleanupPolicies(found, refused)


@dataclass(frozen=True)
class CleanupPolicies:
    """Which topics are compacted, as far as the loader may see: the topics whose settings Kafka refused
    to describe (no DescribeConfigs ACL) are in `refused`, with Kafka's error, and in neither set."""

    compacted: set[str]
    refused: dict[str, str]


# One question each, for a caller that asks Kafka once (a test, a benchmark, a current-state seed).


def list_topics(
    bootstrap_servers: str,
    include: str | None = None,
    exclude: str | None = None,
    timeout_s: float = 30,
    security: KafkaSecurity | None = None,
) -> KafkaTopics:
    return KafkaAdmin(bootstrap_servers, timeout_s, security).topics(include, exclude)


def watermarks(
    bootstrap_servers: str,
    partitions: Iterable[TP],
    timeout_s: float = 30,
    security: KafkaSecurity | None = None,
) -> dict[TP, Watermarks]:
    return KafkaAdmin(bootstrap_servers, timeout_s, security).watermarks(partitions)
