"""`loader status`: how far behind Kafka each topic's table is, from the saved state, without loading."""

from __future__ import annotations

import posixpath
from datetime import UTC, datetime

from pyspark.sql import SparkSession
from rich.console import Console
from rich.table import Table

from loader.commit_protocol import Manifest
from loader.config import LoaderSettings
from loader.job import spark_for
from loader.kafka_metadata import list_topics, watermarks
from loader.naming import table_name
from loader.state_store import StateStore


def show(settings: LoaderSettings, console: Console, spark: SparkSession | None = None) -> int:
    """Prints the lag table; uses `spark` when given (and leaves it running), else starts its own."""
    own_session = spark is None
    spark = spark or spark_for(settings)
    try:
        store = StateStore(spark, settings.state_location)
        manifests = [m for m in store.list(store.path("commits")) if m.endswith(".json")]
        saved: dict[tuple[str, int], int] = {}
        last_load = "never"
        if manifests:
            latest = manifests[-1]
            saved = Manifest.from_json(store.read_text(latest)).offsets
            modified = store._fs_for(latest).getFileStatus(store._p(latest)).getModificationTime()
            last_load = datetime.fromtimestamp(modified / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        topics = list_topics(
            settings.bootstrap_servers,
            settings.include_topics,
            settings.exclude_topics,
            settings.metadata_timeout_s,
            settings.kafka_security,
        )
        partitions = [(t, p) for t, n in topics.items() for p in range(n)]
        marks = watermarks(
            settings.bootstrap_servers, partitions, settings.metadata_timeout_s, settings.kafka_security
        )
    finally:
        if own_session:
            spark.stop()
    table = Table(title=f"loader state {posixpath.basename(settings.state_location)}, last load {last_load}")
    # Which security settings were used (never a secret's text): a refusal is then easier to place.
    table.caption = (
        f"Kafka {settings.kafka_security.describe()}; registry {settings.registry_access.describe()}"
    )
    for column in ("topic", "table", "partitions", "saved", "end", "lag"):
        table.add_column(column, justify="left" if column in ("topic", "table") else "right")
    for topic in sorted(topics):
        parts = [(topic, p) for p in range(topics[topic])]
        loaded = any(tp in saved for tp in parts)
        saved_total = sum(saved.get(tp, marks[tp].earliest) for tp in parts)
        end_total = sum(marks[tp].end for tp in parts)
        table.add_row(
            topic,
            f"{settings.database}.{table_name(topic)}" if loaded else "- (never loaded)",
            str(len(parts)),
            str(saved_total) if loaded else "-",
            str(end_total),
            str(end_total - saved_total),
        )
    console.print(table)
    return 0
