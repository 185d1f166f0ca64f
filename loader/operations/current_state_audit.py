"""The audit of a current-state table (see docs/loader.md, "Current-state tables"): a full read of the
topic up to the offsets the table holds by its own account (its format's `held_offsets`), reduced to the
live keys and the offset of each key's latest record, against the table's keys and offsets. Keys are
compared as Kafka's bytes (`_kafka_key`), whatever their schema."""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

from loader.planning.offsets import OffsetRange
from loader.reading.topic_read import KafkaReadSettings, read_ranges


@dataclass(frozen=True)
class CurrentStateAudit:
    table: str
    live_keys: int  # in Kafka, up to the offsets the table holds
    rows: int  # in the table
    missing: int  # live in Kafka, not in the table
    extra: int  # in the table, deleted in Kafka or never there
    stale: int  # in both, from another record than the key's latest

    @property
    def agrees(self) -> bool:
        return not (self.missing or self.extra or self.stale)


def reconcile_current(
    spark: SparkSession, read: KafkaReadSettings, topic: str, held: dict[int, int], qualified_table: str
) -> CurrentStateAudit:
    """The table's live keys and their latest offsets against a full read of the topic up to `held`, the
    offsets the table holds by its own account (tombstones delete; a topic of Debezium envelopes is not
    reduced by `op` here: its deletes are its tombstones)."""
    ranges = [OffsetRange(topic, p, 0, end) for p, end in sorted(held.items()) if end > 0]
    if ranges:
        records = read_ranges(spark, read, ranges).where(F.col("key").isNotNull())
        order = Window.partitionBy("key").orderBy(F.col("offset").desc(), F.col("partition").desc())
        latest = records.withColumn("__rank", F.row_number().over(order)).where("__rank = 1")
        live = latest.where(F.col("value").isNotNull()).select(
            F.col("key").alias("k"), F.col("partition").alias("kp"), F.col("offset").alias("ko")
        )
    else:
        live = spark.createDataFrame([], "k binary, kp int, ko long")
    table = spark.table(qualified_table).select(
        F.col("_kafka_key").alias("k"),
        F.col("_kafka_partition").alias("tp"),
        F.col("_kafka_offset").alias("to"),
    )
    joined = live.join(table, "k", "full_outer")
    counts = joined.agg(
        F.count("kp").alias("live"),
        F.count("tp").alias("rows"),
        F.sum(F.when(F.col("tp").isNull(), 1).otherwise(0)).alias("missing"),
        F.sum(F.when(F.col("kp").isNull(), 1).otherwise(0)).alias("extra"),
        F.sum(
            F.when(
                F.col("kp").isNotNull()
                & F.col("tp").isNotNull()
                & ((F.col("kp") != F.col("tp")) | (F.col("ko") != F.col("to"))),
                1,
            ).otherwise(0)
        ).alias("stale"),
    ).first()
    assert counts is not None
    return CurrentStateAudit(
        qualified_table,
        int(counts["live"]),
        int(counts["rows"]),
        int(counts["missing"] or 0),
        int(counts["extra"] or 0),
        int(counts["stale"] or 0),
    )
