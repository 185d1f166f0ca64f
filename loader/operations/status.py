"""`loader status`: how far behind Kafka each topic's table is, from the saved state, without loading."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from pyspark.sql import SparkSession
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from loader.config import LoaderSettings
from loader.formats.lookup import open_state, recorded_valid_through
from loader.planning.commit_protocol import Manifest
from loader.planning.freshness import parse_timestamp
from loader.planning.kafka_identity import comparable_topic_ids
from loader.planning.offsets import plan_ranges
from loader.reading.event_types import event_table
from loader.reading.kafka_metadata import KafkaAdmin
from loader.runtime.loader_session import spark_for
from loader.schema.naming import table_name


@dataclass
class TopicStatus:
    topic: str
    tables: list[str]  # none when never loaded
    partitions: int
    saved: int | None  # the saved offsets summed; None when never loaded
    end: int  # Kafka's end offsets summed
    lag: int  # offsets the next run would read
    notes: list[str] = field(default_factory=list)
    # The time through which every partition is loaded, as the tables record it (the oldest of its
    # tables'; see `loader.planning.freshness`); None when no table records one.
    valid_through: str | None = None


@dataclass
class StatusReport:
    state: str
    last_load: str  # "never", or when the last commit was written (UTC)
    cluster_id: str
    saved_cluster_id: str | None
    kafka: str  # which security settings were used (never a secret)
    registry: str
    topics: list[TopicStatus] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)


def show(settings: LoaderSettings, console: Console, spark: SparkSession | None = None) -> int:
    """Prints the lag table; uses `spark` when given (and leaves it running), else starts its own."""
    render(collect(settings, spark), console)
    return 0


def collect(settings: LoaderSettings, spark: SparkSession | None = None) -> StatusReport:
    """Per topic, how far behind Kafka its tables are; uses `spark` when given (and leaves it running),
    else starts its own."""
    own_session = spark is None
    spark = spark or spark_for(settings)
    try:
        store = open_state(spark, settings.state_location, settings.iceberg)
        manifests = [m for m in store.list(store.path("commits")) if m.endswith(".json")]
        manifest = Manifest(0, "", {})
        last_load = "never"
        if manifests:
            latest = manifests[-1]
            manifest = Manifest.from_json(store.read_text(latest))
            last_load = store.modified_at(latest).strftime("%Y-%m-%d %H:%M:%S UTC")
        admin = KafkaAdmin(settings.bootstrap_servers, settings.metadata_timeout_s, settings.kafka_security)
        kafka = admin.topics(settings.include_topics, settings.exclude_topics)
        topics = kafka.partitions
        partitions = [(t, p) for t, n in topics.items() for p in range(n)]
        marks = admin.watermarks(partitions)
        ids = admin.topic_ids(topics)
        saved = manifest.offsets
        # What the next run would read, and what it would say about offsets that changed meaning.
        plan = plan_ranges(saved, marks, comparable_topic_ids(manifest, kafka.cluster_id), ids)
        report = StatusReport(
            posixpath.basename(settings.state_location),
            last_load,
            kafka.cluster_id,
            manifest.cluster_id,
            settings.kafka_security.describe(),
            settings.registry_access.describe(),
        )
        for topic in sorted(topics):
            parts = [(topic, p) for p in range(topics[topic])]
            loaded = any(tp in saved for tp in parts)
            tables = _tables(settings.database, topic, manifest) if loaded else []
            report.topics.append(
                TopicStatus(
                    topic,
                    tables,
                    len(parts),
                    sum(saved.get(tp, marks[tp].earliest) for tp in parts) if loaded else None,
                    sum(marks[tp].end for tp in parts),
                    sum(r.span for r in plan.ranges if r.topic == topic),
                    [
                        f"partition {g.partition} {g.describe()}"
                        for g in plan.discontinuities
                        if g.topic == topic
                    ],
                    _oldest(table_valid_through(spark, settings.table_format, t) for t in tables),
                )
            )
    finally:
        if own_session:
            spark.stop()
    return report


def render(report: StatusReport, console: Console) -> None:
    cluster = f"Kafka cluster {escape(str(report.cluster_id))}"
    if report.saved_cluster_id and report.saved_cluster_id != report.cluster_id:
        cluster += f" [bold red](the saved offsets are of cluster {escape(report.saved_cluster_id)})[/]"
    title = f"loader state {escape(str(report.state))}, last load {escape(str(report.last_load))}, {cluster}"
    table = Table(title=title, title_justify="left")
    # Which security settings were used (never a secret's text): a refusal is then easier to place.
    table.caption = escape(f"Kafka {report.kafka}; registry {report.registry}")
    # Offsets, not records: transaction markers, aborted records and compaction leave gaps, so the lag
    # is an upper bound of the records a run would load.
    for column in ("topic", "table", "partitions", "saved", "end", "lag (offsets)", "valid through", "note"):
        table.add_column(column, justify="left" if column in ("topic", "table", "note") else "right")
    for topic in report.topics:
        table.add_row(
            topic.topic,
            escape("\n".join(topic.tables)) if topic.tables else "- (never loaded)",
            str(topic.partitions),
            str(topic.saved) if topic.saved is not None else "-",
            str(topic.end),
            str(topic.lag),
            topic.valid_through or "-",
            escape("; ".join(topic.notes)),
        )
    console.print(table)


def table_valid_through(spark: SparkSession, table_format: str, table: str) -> str | None:
    """The table's recorded `loader.valid-through` (`loader.formats.lookup.recorded_valid_through`); None
    when it has none or cannot be read."""
    try:
        return recorded_valid_through(spark, table_format, table)
    except Exception:  # a table dropped or unreadable: its freshness is unknown, not a failed status
        return None


def _oldest(values: Iterable[str | None]) -> str | None:
    known = [v for v in values if v]
    return min(known, key=lambda v: parse_timestamp(v) or datetime.min.replace(tzinfo=UTC)) if known else None


def _tables(database: str, topic: str, manifest: Manifest) -> list[str]:
    """The topic's table, or the tables of its event types (see `loader.reading.event_types`)."""
    types = manifest.event_types.get(topic)
    if not types:
        return [f"{database}.{table_name(topic)}"]
    # Its `<topic>-value` table too, when the saved schemas say it has one.
    own = [table_name(topic)] if not manifest.table_schemas.get(topic, "").startswith("value -") else []
    return [f"{database}.{t}" for t in [*own, *(event_table(topic, n) for n in types)]]
