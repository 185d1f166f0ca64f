"""`loader status`: how far behind Kafka each topic's table is, from the saved state, without loading."""

from __future__ import annotations

import posixpath
from datetime import UTC, datetime

from pyspark.sql import SparkSession
from rich.console import Console
from rich.table import Table

from loader.config import LoaderSettings
from loader.job import spark_for
from loader.planning.commit_protocol import Manifest
from loader.planning.kafka_identity import comparable_topic_ids
from loader.planning.offsets import plan_ranges
from loader.planning.state_store import StateStore
from loader.reading.event_types import event_table
from loader.reading.kafka_metadata import list_topics, topic_ids, watermarks
from loader.schema.naming import table_name


def show(settings: LoaderSettings, console: Console, spark: SparkSession | None = None) -> int:
    """Prints the lag table; uses `spark` when given (and leaves it running), else starts its own."""
    own_session = spark is None
    spark = spark or spark_for(settings)
    try:
        store = StateStore(spark, settings.state_location)
        manifests = [m for m in store.list(store.path("commits")) if m.endswith(".json")]
        manifest = Manifest(0, "", {})
        last_load = "never"
        if manifests:
            latest = manifests[-1]
            manifest = Manifest.from_json(store.read_text(latest))
            modified = store._fs_for(latest).getFileStatus(store._p(latest)).getModificationTime()
            last_load = datetime.fromtimestamp(modified / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        kafka = list_topics(
            settings.bootstrap_servers,
            settings.include_topics,
            settings.exclude_topics,
            settings.metadata_timeout_s,
            settings.kafka_security,
        )
        topics = kafka.partitions
        partitions = [(t, p) for t, n in topics.items() for p in range(n)]
        marks = watermarks(
            settings.bootstrap_servers, partitions, settings.metadata_timeout_s, settings.kafka_security
        )
        ids = topic_ids(
            settings.bootstrap_servers, topics, settings.metadata_timeout_s, settings.kafka_security
        )
    finally:
        if own_session:
            spark.stop()
    saved = manifest.offsets
    # What the next run would read, and what it would say about offsets that changed meaning.
    plan = plan_ranges(saved, marks, comparable_topic_ids(manifest, kafka.cluster_id), ids)
    cluster = f"Kafka cluster {kafka.cluster_id}"
    if manifest.cluster_id and manifest.cluster_id != kafka.cluster_id:
        cluster += f" [bold red](the saved offsets are of cluster {manifest.cluster_id})[/]"
    title = f"loader state {posixpath.basename(settings.state_location)}, last load {last_load}, {cluster}"
    table = Table(title=title, title_justify="left")
    # Which security settings were used (never a secret's text): a refusal is then easier to place.
    table.caption = (
        f"Kafka {settings.kafka_security.describe()}; registry {settings.registry_access.describe()}"
    )
    # Offsets, not records: transaction markers, aborted records and compaction leave gaps, so the lag
    # is an upper bound of the records a run would load.
    for column in ("topic", "table", "partitions", "saved", "end", "lag (offsets)", "note"):
        table.add_column(column, justify="left" if column in ("topic", "table", "note") else "right")
    for topic in sorted(topics):
        parts = [(topic, p) for p in range(topics[topic])]
        loaded = any(tp in saved for tp in parts)
        saved_total = sum(saved.get(tp, marks[tp].earliest) for tp in parts)
        end_total = sum(marks[tp].end for tp in parts)
        notes = [f"partition {g.partition} {g.describe()}" for g in plan.discontinuities if g.topic == topic]
        table.add_row(
            topic,
            _tables(settings.database, topic, manifest) if loaded else "- (never loaded)",
            str(len(parts)),
            str(saved_total) if loaded else "-",
            str(end_total),
            str(sum(r.span for r in plan.ranges if r.topic == topic)),
            "; ".join(notes),
        )
    console.print(table)
    return 0


def _tables(database: str, topic: str, manifest: Manifest) -> str:
    """The topic's table, or the tables of its event types (see `loader.reading.event_types`)."""
    types = manifest.event_types.get(topic)
    if not types:
        return f"{database}.{table_name(topic)}"
    # Its `<topic>-value` table too, when the saved schemas say it has one.
    own = [table_name(topic)] if not manifest.table_schemas.get(topic, "").startswith("value -") else []
    return "\n".join(f"{database}.{t}" for t in [*own, *(event_table(topic, n) for n in types)])
