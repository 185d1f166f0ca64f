"""The run's second step: what each discovered topic's pass loads. The offsets are fixed now: from the
saved ones to Kafka's end offsets (committed records only), at most `max_records_per_partition` of each
partition (see `loader.planning.offsets`). A topic with no new records whose schemas its tables already
hold is up to date and costs no pass; a topic the loader may not read is skipped when it was only to be
looked into for event types (see `loader.reading.kafka_access`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from loader.outcome.report import TopicReport
from loader.planning.commit_protocol import Manifest
from loader.planning.freshness import timestamp_text, valid_through
from loader.planning.kafka_identity import comparable_topic_ids
from loader.planning.offsets import OffsetRange, plan_ranges
from loader.reading.event_lookup import schemas_signature
from loader.reading.event_types import event_table
from loader.reading.kafka_access import require_read_access
from loader.reading.registry_client import SubjectSchemas
from loader.run.discover import Discovery
from loader.run.work import QUARANTINE_TABLE, TopicWork
from loader.schema.partitioning import Granularity


@dataclass(frozen=True)
class Limits:
    """What bounds and shapes a run's plan."""

    max_records_per_partition: int
    granularity: Granularity
    skip_tombstones: bool  # of topics that are not compacted (see `loader.config`)


@dataclass(frozen=True)
class Plan:
    """What the run loads: each topic's pass, and what its commit records."""

    ranges: list[OffsetRange]  # every planned partition's range, of every topic still planned
    work: list[TopicWork]  # the topics with a pass to run
    topic_ids: dict[str, str]  # Kafka's id of each planned topic
    # Per planned topic, the signature of the schemas its tables hold once its pass made sure of them.
    signatures: dict[str, str] = field(default_factory=dict)
    keys: dict[str, SubjectSchemas | None] = field(default_factory=dict)
    # Topics deleted and created again since the last commit: their saved offsets are dropped.
    recreated: frozenset[str] = frozenset()

    def tables(self) -> list[str]:
        """Every table the run's passes may write: the topics' own, their event types', the quarantine."""
        return (
            [w.table for w in self.work]
            + [event_table(w.topic, name) for w in self.work for name in w.event_types]
            + [QUARANTINE_TABLE]
        )


def plan(found: Discovery, last: Manifest, limits: Limits, started: datetime) -> Plan:
    values, reports = dict(found.values), found.reports  # the discovery's own stays as it found them
    kafka = found.kafka
    looking = {t for t, value in values.items() if value is None and not last.event_types.get(t)}
    loading = [t for t in values if t not in looking]
    unreadable = require_read_access(
        kafka.client(), kafka.bootstrap_servers, kafka.security, loading, kafka.timeout_s, looking
    )
    for topic in unreadable:
        del values[topic]  # only to be looked into, and the loader may not read it: skipped as before
        reports[topic].status, reports[topic].reason = (
            "skipped",
            f"no schema registered for subject {topic}-value",
        )
        reports[topic].notes.append("not looked into for event types named by record: no READ access")
    partitions = [(t, p) for t in values for p in range(found.partitions[t])]
    marks = kafka.watermarks(partitions)
    ids = kafka.topic_ids(values)
    ranges = plan_ranges(
        last.offsets,
        marks,
        comparable_topic_ids(last, found.cluster_id),
        ids,
        limits.max_records_per_partition,
    )
    for gap in ranges.discontinuities:
        reports[gap.topic].notes.append(f"partition {gap.partition} {gap.describe()}")
    keys = {t: found.schemas.get(f"{t}-key") for t in values}
    signatures = {
        t: schemas_signature(
            values[t], keys[t], last.event_types.get(t, {}), found.lookup, limits.granularity
        )
        for t in values
    }
    work = [
        w
        for topic in values
        if (w := _topic_work(found, last, topic, ranges.ranges, signatures[topic], keys[topic], ids, started))
    ]
    if limits.skip_tombstones:
        # The setting skips tombstones only where they are not the topic's deletes.
        compacted = kafka.compacted_topics([w.topic for w in work])
        work = [replace(w, skip_tombstones=w.topic not in compacted) for w in work]
    return Plan(ranges.ranges, work, ids, signatures, keys, ranges.recreated())


def _topic_work(
    found: Discovery,
    last: Manifest,
    topic: str,
    planned: list[OffsetRange],
    signature: str,
    keys: SubjectSchemas | None,
    ids: dict[str, str],
    started: datetime,
) -> TopicWork | None:
    """The topic's pass; None when it has none (up to date, or nothing to look into)."""
    report, value = found.reports[topic], found.values[topic]
    ranges = [r for r in planned if r.topic == topic]
    describe_ranges(report, ranges)
    through = valid_through(started, ranges)
    report.valid_through = timestamp_text(through) if through else None
    known = last.event_types.get(topic, {})
    if not any(r.span for r in ranges):
        if value is None and not known:
            report.status = "skipped"
            report.reason = f"no schema registered for subject {topic}-value"
            return None
        if last.table_schemas.get(topic) == signature:
            report.status = "up to date"  # quiet, its tables already hold its schemas
            return None
    return TopicWork(
        topic,
        found.tables[topic],
        value,
        keys,
        ranges,
        event_types=dict(known),
        looked_at=last.looked_at.get(topic, {}),
        topic_id=ids.get(topic),
    )


def with_found_event_types(planned: Plan, found: Discovery, granularity: Granularity) -> Plan:
    """The plan after the passes: the event types a pass found are part of what its tables were made to
    hold, so they are part of the signature its commit records."""
    found_now = {
        w.topic: schemas_signature(
            found.values[w.topic],
            planned.keys[w.topic],
            found.reports[w.topic].event_types,
            found.lookup,
            granularity,
        )
        for w in planned.work
    }
    return replace(planned, signatures={**planned.signatures, **found_now})


def describe_ranges(report: TopicReport, ranges: list[OffsetRange]) -> None:
    report.partitions = len(ranges)
    report.offsets = {r.partition: (r.start, r.end) for r in ranges}
    report.lost = sum(r.lost for r in ranges)
    report.remaining = sum(r.remaining for r in ranges)
    if report.lost:
        report.reason = f"{report.lost} record(s) deleted by retention before they were loaded"
