"""The run's first step: Kafka's topics and the registry's subjects, in a few batched requests, into the
topics the run may load, their `<topic>-value` and `<topic>-key` schemas, and their tables' names.

A topic whose table name collides with another's fails; a topic with no `<topic>-value` subject is
skipped unless it may carry record-named event types (some subject is named by record, or it had such
types before): those are looked into by their pass."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from loader.outcome.report import TopicReport
from loader.planning.commit_protocol import Manifest
from loader.planning.kafka_identity import ClusterChanged, cluster_change
from loader.reading.event_lookup import SchemaLookup
from loader.reading.event_types import topic_record_subjects
from loader.reading.kafka_metadata import KafkaAdmin, list_topics
from loader.reading.kafka_security import KafkaSecurity
from loader.reading.registry_client import RegistryClient, SubjectSchemas
from loader.reading.value_formats.lookup import PROTOBUF
from loader.run.work import QUARANTINE_TABLE
from loader.schema.naming import table_names
from pipeline_client.client_settings import RegistryClientSettings


@dataclass(frozen=True)
class Sources:
    """Where the run's records and schemas come from."""

    bootstrap_servers: str
    registry_url: str
    include_topics: str | None
    exclude_topics: str | None
    timeout_s: float
    kafka_security: KafkaSecurity
    registry_access: RegistryClientSettings
    accept_cluster: str | None  # a Kafka cluster id the saved offsets may continue on


@dataclass
class Discovery:
    """What the run found: the topics it may load and what it knows of them."""

    cluster_id: str
    partitions: dict[str, int]  # topic -> its number of partitions
    kafka: KafkaAdmin  # the run's one admin client, for everything else it asks Kafka
    registry: RegistryClient
    lookup: SchemaLookup
    registry_lock: threading.RLock  # the registry's one HTTP session, shared by the passes
    schemas: dict[str, SubjectSchemas]  # subject -> its versions (the topics' value and key subjects)
    tables: dict[str, str]  # topic -> its table (unqualified)
    # Topic -> its value subject's schemas, None for a topic that may carry record-named event types.
    values: dict[str, SubjectSchemas | None] = field(default_factory=dict)
    # Every topic's report so far: loaded (to be planned), skipped or failed (a name collision).
    reports: dict[str, TopicReport] = field(default_factory=dict)


NO_PROTOBUF_DECODER = (
    "holds PROTOBUF schemas, whose records the loader decodes with its JVM module, which this Spark "
    'session does not have (docs/loader.md, "The loader\'s JVM module")'
)


def check_sources_answer(sources: Sources) -> None:
    """Raises what `discover` raises when the brokers or the registry do not answer, or refuse the
    loader (`KafkaUnavailable`, `KafkaRefused`, `RegistryUnavailable`): a `loader run` asks before its
    driver JVM starts, so that a run without them fails within their timeout, naming them."""
    list_topics(
        sources.bootstrap_servers,
        sources.include_topics,
        sources.exclude_topics,
        sources.timeout_s,
        sources.kafka_security,
    )
    RegistryClient(
        sources.registry_url, sources.timeout_s, sources.registry_access, sources.kafka_security.sasl_login
    ).subjects()


def discover(sources: Sources, last: Manifest, database: str, decodes_protobuf: bool = True) -> Discovery:
    """`decodes_protobuf`: whether the run's Spark session has the loader's Protobuf decoder (its JVM
    module); without it, a topic whose subject holds Protobuf schemas is skipped saying so."""
    admin = KafkaAdmin(sources.bootstrap_servers, sources.timeout_s, sources.kafka_security)
    kafka = admin.topics(sources.include_topics, sources.exclude_topics)
    registry = RegistryClient(
        sources.registry_url, sources.timeout_s, sources.registry_access, sources.kafka_security.sasl_login
    )
    changed = cluster_change(
        last.cluster_id, kafka.cluster_id, sources.accept_cluster, sources.bootstrap_servers
    )
    if changed:
        raise ClusterChanged(changed)
    topics = kafka.partitions
    subjects = registry.subjects()
    snapshot = registry.snapshot()
    registry_lock = threading.RLock()
    lookup = SchemaLookup(registry, snapshot, subjects, registry_lock)
    wanted = {f"{t}-{kind}" for t in topics for kind in ("value", "key")} & subjects
    names, collisions = table_names([*topics, QUARANTINE_TABLE])
    found = Discovery(
        kafka.cluster_id,
        topics,
        admin,
        registry,
        lookup,
        registry_lock,
        registry.all_subject_schemas(wanted, snapshot),
        names,
    )
    undecodable = set()
    if not decodes_protobuf:
        undecodable = {s for s, schemas in found.schemas.items() if schemas.schema_type == PROTOBUF}
        found.schemas = {s: schemas for s, schemas in found.schemas.items() if s not in undecodable}
    for collision in collisions:
        for topic in collision.topics:
            if topic != QUARANTINE_TABLE:
                found.reports[topic] = TopicReport(
                    topic, "failed", table=collision.table, reason=str(collision)
                )
    # A topic without `<topic>-value` may carry record-named event types when some subject is named by
    # record: only then is it planned (and its first new records looked at, see `loader.run.topic_pass`).
    record_named = lookup.has_record_named_subjects()
    unloaded_values = {f"{t}-value" for t in topics} & subjects
    unloadable = registry.unloadable(unloaded_values - set(found.schemas) - undecodable, snapshot)
    unloadable.update(dict.fromkeys(undecodable & unloaded_values, NO_PROTOBUF_DECODER))
    for topic in sorted(topics):
        if topic in found.reports:
            continue
        value = found.schemas.get(f"{topic}-value")
        why = unloadable.get(f"{topic}-value")
        if value is None and not last.event_types.get(topic) and why is not None:
            # A truthful skip, not "no schema", and whether or not other subjects are named by record:
            # the topic's own subject says what its producers write, and the loader cannot load it.
            found.reports[topic] = TopicReport(topic, "skipped", reason=f"subject {topic}-value {why}")
            continue
        if value is None and not (
            last.event_types.get(topic) or record_named or topic_record_subjects(topic, subjects)
        ):
            reason = f"no schema registered for subject {topic}-value"
            found.reports[topic] = TopicReport(topic, "skipped", reason=reason)
            continue
        found.values[topic] = value
        table = f"{database}.{names[topic]}" if value else None
        found.reports[topic] = TopicReport(topic, "loaded", table=table)
    return found
