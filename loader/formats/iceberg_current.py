"""Current-state tables in Iceberg (see `loader.schema.current_state` for which topics, names and rows,
and docs/loader.md, "Current-state tables"): one topic's records of one run become at most one change per
key, applied by one `MERGE INTO` whose snapshot carries the topic's offsets in its summary, like an
append's (`loader.formats.iceberg`). The rows and the offsets commit together: a rerun skips the records
the table holds by its own account, so none is applied twice and none is lost.

The tables are merge-on-read: a run writes its new rows and a deletion vector per data file it touched,
instead of rewriting every file that holds a changed key (copy-on-write). A run changes a small share of
the keys, spread over every file, so copy-on-write would rewrite most of the table each run; `loader
maintain` folds the deletion vectors back in (`rewrite_data_files`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from pyspark.java_gateway import ensure_callback_server_started
from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from loader.formats import already_held
from loader.runtime.java_values import java_string_map
from loader.schema.current_state import CURRENT_STATE_PROPERTY, DELETES, UPSERTS

# Row-level changes as deletion vectors (format version 3), not rewritten files.
MERGE_ON_READ = {
    "write.merge.mode": "merge-on-read",
    "write.update.mode": "merge-on-read",
    "write.delete.mode": "merge-on-read",
    CURRENT_STATE_PROPERTY: "true",
}
DELETE = "__loader_delete"  # the change removes its key
ACTION = "__loader_action"
KEY_COLUMNS = ("_kafka_key_avro", "_kafka_key")  # the key decoded by `<topic>-key`, else its bytes
# What a current-state row leaves out of the history row's metadata (a live row is never a deletion).
DROPPED = ("_kafka_deleted",)
ENVELOPE_FIELDS = ("before", "after", "op", "source")


def key_column(columns: list[str]) -> str:
    """The column a current-state table is keyed by: the decoded key when the topic has a key subject
    (Debezium's: its primary key's fields), else the key's bytes."""
    return next(c for c in KEY_COLUMNS if c in columns)


def _action(envelope: bool) -> Column:
    deleted = F.coalesce(F.col("_kafka_deleted"), F.lit(False))
    if not envelope:
        return F.when(deleted, F.lit("delete")).otherwise(F.lit("upsert"))
    op = F.col("op")
    return (
        F.when(deleted, F.lit("delete"))
        .when(op.isin(*UPSERTS), F.lit("upsert"))
        .when(op.isin(*DELETES), F.lit("delete"))
        .otherwise(F.lit("ignore"))
    )


def current_changes(rows: DataFrame, envelope: bool, held: dict[int, int]) -> DataFrame:
    """One change per key from a topic's history rows (the columns of its append table): records the
    table holds already, records without a key and operations that change no row left out; per key the
    highest offset (then partition) wins; `DELETE` says whether it removes the key. A Debezium envelope's
    row is its `after` record's fields, with the Kafka metadata."""
    key = key_column(rows.columns)
    is_held = already_held(held, "_kafka_partition", "_kafka_offset") if held else F.lit(False)
    keyed = rows.where(F.col(key).isNotNull() & ~is_held).withColumn(ACTION, _action(envelope))
    keyed = keyed.where(F.col(ACTION) != "ignore")
    order = Window.partitionBy(key).orderBy(F.col("_kafka_offset").desc(), F.col("_kafka_partition").desc())
    latest = keyed.withColumn("__loader_rank", F.row_number().over(order)).where("__loader_rank = 1")
    metadata = [c for c in rows.columns if c.startswith("_kafka_") or c == "_schema_id"]
    kept = [c for c in metadata if c not in DROPPED]
    if envelope:
        data = [F.col(f"after.{f.name}").alias(f.name) for f in rows.schema["after"].dataType.fields]
    else:
        data = [F.col(c) for c in rows.columns if c not in metadata]
    return latest.select(*data, *[F.col(c) for c in kept], (F.col(ACTION) == "delete").alias(DELETE))


def merge_sql(target: str, source_view: str, key: str) -> str:
    return (
        f"MERGE INTO {target} t USING {source_view} s ON t.`{key}` = s.`{key}` "
        f"WHEN MATCHED AND s.`{DELETE}` THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET * "
        f"WHEN NOT MATCHED AND NOT s.`{DELETE}` THEN INSERT *"
    )


class _Callable:
    """A Python function as the `java.util.concurrent.Callable` Iceberg's commit properties run."""

    def __init__(self, body: Callable[[], Any]) -> None:
        self.body = body

    def call(self) -> None:
        self.body()

    class Java:
        implements = ["java.util.concurrent.Callable"]


def merge_with_properties(
    spark: SparkSession, target: str, changes: DataFrame, properties: dict[str, str]
) -> None:
    """`MERGE INTO target` from `changes` as one Iceberg snapshot whose summary carries `properties`
    (Iceberg's `CommitMetadata.withCommitProperties`: thread-local, so the merge runs in the calling JVM
    thread, which PySpark's pinned threads keep the same for a call back into Python)."""
    gateway = spark.sparkContext._gateway
    assert gateway is not None
    ensure_callback_server_started(gateway)
    jvm = spark._jvm
    assert jvm is not None
    view = f"loader_changes_{uuid.uuid4().hex}"
    changes.createOrReplaceTempView(view)
    try:
        java_properties = java_string_map(spark, properties)
        sql = merge_sql(target, view, key_column(changes.columns))
        body = _Callable(lambda: spark.sql(sql))
        refusal = jvm.java.lang.Class.forName("java.lang.RuntimeException")
        jvm.org.apache.iceberg.spark.CommitMetadata.withCommitProperties(java_properties, body, refusal)
    finally:
        spark.catalog.dropTempView(view)
