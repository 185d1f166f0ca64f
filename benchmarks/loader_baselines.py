"""What the loader is measured against: Spark moving the same bytes without decoding them (the limit), and
the consumer a team would write by hand without Spark (confluent-kafka + fastavro + pyarrow).

`ranges` are the loader's own `OffsetRange`s (topic, partition, start, end)."""

from __future__ import annotations

import argparse
import io
import json
import struct
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
from confluent_kafka import Consumer, TopicPartition
from loader_services import REPO_ROOT, VERSIONS, http

# The consumer baseline's Parquet columns: the latest version, written by hand as such a consumer would.
LATEST_ARROW_SCHEMA = pa.schema(
    [
        ("event_id", pa.string()),
        ("member_id", pa.int64()),
        ("session_id", pa.string()),
        ("page_key", pa.string()),
        ("url", pa.string()),
        ("referrer", pa.string()),
        ("ip_address", pa.string()),
        ("user_agent", pa.string()),
        ("country", pa.string()),
        ("device", pa.struct([("kind", pa.string()), ("os", pa.string())])),
        ("viewed_at", pa.timestamp("ms", tz="UTC")),
        ("duration_ms", pa.int64()),
        ("scroll_depth", pa.float32()),
        ("logged_in", pa.bool_()),
        ("experiment_ids", pa.list_(pa.int64())),
        ("tags", pa.map_(pa.string(), pa.string())),
        ("locale", pa.string()),
        ("app_version", pa.string()),
        ("load_time_ms", pa.int32()),
        ("consent", pa.string()),
        ("_kafka_partition", pa.int32()),
        ("_kafka_offset", pa.int64()),
    ]
)


def spark_raw_to_parquet(spark: Any, bootstrap: str, ranges: list[Any], out: Path) -> None:
    """The limit: the same ranges through Spark's Kafka source, value bytes written as they are."""
    frame = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .options(**_source_options(ranges))
        .load()
        .select("partition", "offset", "timestamp", "value")
    )
    frame.write.mode("overwrite").parquet(str(out))


def consumer_to_parquet(bootstrap: str, registry_url: str, ranges: list[Any], out: Path) -> int:
    """The hand-written baseline: one process, each value resolved from its writer schema to the latest."""
    latest = fastavro.parse_schema(VERSIONS[-1])
    writers: dict[int, Any] = {}
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "bench-baseline",
            "enable.auto.commit": False,
            "fetch.max.bytes": 52_428_800,
            "max.partition.fetch.bytes": 10_485_760,
        }
    )
    consumer.assign([TopicPartition(r.topic, r.partition, r.start) for r in ranges])
    remaining = {r.partition: r.end for r in ranges if r.span}
    rows: list[dict[str, Any]] = []
    written = 0
    with pq.ParquetWriter(out, LATEST_ARROW_SCHEMA) as parquet:
        while remaining:
            for message in consumer.consume(num_messages=10_000, timeout=5):
                if message.error():
                    raise RuntimeError(message.error())
                partition, offset = message.partition(), message.offset()
                if partition not in remaining or offset >= remaining[partition]:
                    continue
                value = message.value()
                schema_id = struct.unpack(">I", value[1:5])[0]
                if schema_id not in writers:
                    text = http(f"{registry_url}/schemas/ids/{schema_id}")["schema"]
                    writers[schema_id] = fastavro.parse_schema(json.loads(text))
                record = fastavro.schemaless_reader(io.BytesIO(value[5:]), writers[schema_id], latest)
                record["device"] = dict(record["device"])
                record["tags"] = list(record["tags"].items())
                record["_kafka_partition"], record["_kafka_offset"] = partition, offset
                rows.append(record)
                if offset + 1 >= remaining[partition]:
                    del remaining[partition]
            if len(rows) >= 100_000 or (rows and not remaining):
                parquet.write_table(pa.Table.from_pylist(rows, schema=LATEST_ARROW_SCHEMA))
                written += len(rows)
                rows = []
    consumer.close()
    return written


def _source_options(ranges: list[Any]) -> dict[str, str]:
    assign: dict[str, list[int]] = {}
    starting: dict[str, dict[str, int]] = {}
    ending: dict[str, dict[str, int]] = {}
    for r in ranges:
        if r.end > r.start:
            assign.setdefault(r.topic, []).append(r.partition)
            starting.setdefault(r.topic, {})[str(r.partition)] = r.start
            ending.setdefault(r.topic, {})[str(r.partition)] = r.end
    return {
        "assign": json.dumps(assign),
        "startingOffsets": json.dumps(starting),
        "endingOffsets": json.dumps(ending),
    }


def main() -> None:
    """The limit as a whole process, the way `loader run` is measured beside it (the JVM's start and
    Spark's session included): `python loader_baselines.py <bootstrap> <ranges as JSON> <out>`."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("bootstrap")
    parser.add_argument("ranges", help='[{"topic": ..., "partition": ..., "start": ..., "end": ...}, ...]')
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO_ROOT))
    from pyspark.sql import SparkSession

    from loader.runtime.spark_session import connector_jars

    spark = (
        SparkSession.builder.master("local[2]")  # as `loader run` without a master
        .config("spark.jars", ",".join(connector_jars()))
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    try:
        ranges = [SimpleNamespace(**r) for r in json.loads(args.ranges)]
        spark_raw_to_parquet(spark, args.bootstrap, ranges, args.out)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
