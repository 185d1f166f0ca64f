"""Benchmark of the loader: `python benchmarks/loader_bench.py` (after `scripts/setup`).

Starts its own broker (`scripts/kafka`, on free ports, data in a temporary directory) and registry
(`registry serve` on SQLite), produces one topic of `--records` events of a 20-field schema written with
three interleaved versions, and times in one Spark session, side by side:

- the loader (`loader.job.run`: plan, read, decode each record with its writer schema, project onto the
  latest, write ORC, commit);
- the limit: Spark reading the same offset ranges and writing the undecoded value bytes to Parquet;
- a hand-written single-process consumer: confluent-kafka + fastavro (writer -> latest schema
  resolution) + pyarrow to Parquet, as a team would write without Spark;

then the per-topic cost: `--many-topics` topics of `--records-per-topic` records each against one topic
holding as many records in all. Prints a Markdown table of seconds, records/s and ratios.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from pyspark.sql import SparkSession
from rich.console import Console

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from loader import job  # noqa: E402
from loader.config import LoaderSettings  # noqa: E402
from loader.kafka_metadata import watermarks  # noqa: E402
from loader.planning import OffsetRange, kafka_source_options  # noqa: E402

CT = "application/vnd.schemaregistry.v1+json"
DISTINCT_EVENTS_PER_VERSION = 5_000  # encoded once, then produced round-robin

# A page-view event as a web tier would send it: 18 fields in version 1, a field added in version 2,
# another added and an int widened to long in version 3 (each BACKWARD-compatible with the one before).
V1_FIELDS: list[dict[str, Any]] = [
    {"name": "event_id", "type": "string"},
    {"name": "member_id", "type": "long"},
    {"name": "session_id", "type": "string"},
    {"name": "page_key", "type": "string"},
    {"name": "url", "type": "string"},
    {"name": "referrer", "type": ["null", "string"], "default": None},
    {"name": "ip_address", "type": "string"},
    {"name": "user_agent", "type": "string"},
    {"name": "country", "type": "string"},
    {
        "name": "device",
        "type": {
            "type": "record",
            "name": "Device",
            "fields": [
                {
                    "name": "kind",
                    "type": {"type": "enum", "name": "DeviceKind", "symbols": ["DESKTOP", "MOBILE"]},
                },
                {"name": "os", "type": "string"},
            ],
        },
    },
    {"name": "viewed_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "duration_ms", "type": "int"},
    {"name": "scroll_depth", "type": "float"},
    {"name": "logged_in", "type": "boolean"},
    {"name": "experiment_ids", "type": {"type": "array", "items": "long"}},
    {"name": "tags", "type": {"type": "map", "values": "string"}},
    {"name": "locale", "type": "string"},
    {"name": "app_version", "type": "string"},
]
V2_FIELDS = [*V1_FIELDS, {"name": "load_time_ms", "type": "int", "default": 0}]
V3_FIELDS = [
    *[dict(f, type="long") if f["name"] == "duration_ms" else f for f in V2_FIELDS],
    {"name": "consent", "type": ["null", "string"], "default": None},
]
VERSIONS = [
    {"type": "record", "name": "PageViewEvent", "namespace": "com.example.bench", "fields": fields}
    for fields in (V1_FIELDS, V2_FIELDS, V3_FIELDS)
]

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


@dataclass
class Row:
    work: str
    records: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.records / self.seconds


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def kafka_broker(workdir: Path) -> Iterator[str]:
    port = free_port()
    env = dict(
        os.environ,
        KAFKA_PORT=str(port),
        KAFKA_CONTROLLER_PORT=str(free_port()),
        KAFKA_DATA_DIR=str(workdir / "kafka"),
        KAFKA_HEAP_MB="1024",
    )
    script = str(REPO_ROOT / "scripts" / "kafka")
    started = subprocess.run([script, "start"], env=env, capture_output=True, text=True)
    if started.returncode != 0:
        sys.exit(f"scripts/kafka start failed:\n{started.stdout}\n{started.stderr}")
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([script, "stop"], env=env, capture_output=True)


def http(url: str, body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": CT})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@contextmanager
def registry_server(workdir: Path) -> Iterator[str]:
    port = free_port()
    command = [sys.executable, "-m", "registry.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--workers", "1", "--database-url", f"sqlite:///{workdir / 'registry.db'}"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    log = (workdir / "registry.log").open("wb")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                http(url + "/")
                break
            except OSError:
                if server.poll() is not None:
                    sys.exit((workdir / "registry.log").read_text())
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(30)


def register_versions(registry_url: str, topic: str) -> list[int]:
    """The three versions under the topic's value subject (the registry checks each is compatible)."""
    subject = f"{registry_url}/subjects/{topic}-value/versions"
    return [http(subject, {"schema": json.dumps(schema)})["id"] for schema in VERSIONS]


def event(version: int, rng: random.Random) -> dict[str, Any]:
    record: dict[str, Any] = {
        "event_id": f"{rng.getrandbits(64):016x}",
        "member_id": rng.randint(1, 50_000_000),
        "session_id": f"{rng.getrandbits(48):012x}",
        "page_key": rng.choice(["feed", "profile", "jobs", "messaging", "notifications"]),
        "url": f"https://www.example.com/{rng.choice(['feed', 'in/someone', 'jobs/view/4242'])}",
        "referrer": rng.choice([None, "https://www.example.com/", "https://search.example.org/?q=x"]),
        "ip_address": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
        "user_agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)",
        "country": rng.choice(["us", "de", "in", "br", "fr"]),
        "device": {"kind": rng.choice(["DESKTOP", "MOBILE"]), "os": rng.choice(["linux", "ios", "android"])},
        "viewed_at": 1_790_000_000_000 + rng.randint(0, 3_600_000),
        "duration_ms": rng.randint(10, 600_000),
        "scroll_depth": rng.random(),
        "logged_in": rng.random() < 0.8,
        "experiment_ids": [rng.randint(1, 500) for _ in range(rng.randint(0, 4))],
        "tags": {"ab": rng.choice(["a", "b"])} if rng.random() < 0.5 else {},
        "locale": rng.choice(["en_US", "de_DE", "pt_BR"]),
        "app_version": f"5.{rng.randint(0, 40)}.{rng.randint(0, 9)}",
    }
    if version >= 2:
        record["load_time_ms"] = rng.randint(40, 2_000)
    if version >= 3:
        record["consent"] = rng.choice([None, "analytics"])
    return record


def encoded_events(schema_ids: list[int], per_version: int, seed: int = 11) -> list[bytes]:
    """Confluent wire-format values, the versions interleaved: magic byte, schema id, Avro body."""
    rng = random.Random(seed)
    parsed = [fastavro.parse_schema(schema) for schema in VERSIONS]
    values = []
    for i in range(per_version * len(VERSIONS)):
        version = i % len(VERSIONS)
        body = io.BytesIO()
        body.write(b"\x00" + struct.pack(">I", schema_ids[version]))
        fastavro.schemaless_writer(body, parsed[version], event(version + 1, rng))
        values.append(body.getvalue())
    return values


def create_topics(bootstrap: str, names: list[str], partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics(
        [NewTopic(n, num_partitions=partitions, replication_factor=1) for n in names]
    )
    for future in futures.values():
        future.result(timeout=60)


def produce(bootstrap: str, topic: str, values: list[bytes], count: int) -> None:
    producer = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.size": 1_000_000, "compression.type": "lz4"}
    )
    for i in range(count):
        while True:
            try:
                producer.produce(topic, value=values[i % len(values)])
                break
            except BufferError:
                producer.poll(0.1)
        if i % 10_000 == 0:
            producer.poll(0)
    if producer.flush(120):
        sys.exit("the producer could not deliver every record")


def offset_ranges(bootstrap: str, topic: str, partitions: int) -> list[OffsetRange]:
    marks = watermarks(bootstrap, [(topic, p) for p in range(partitions)], 30)
    return [OffsetRange(topic, p, m.earliest, m.end) for (_, p), m in sorted(marks.items())]


def timed(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def loader_run(spark: SparkSession, settings: LoaderSettings, expected: int) -> float:
    report = job.run(settings, spark, Console(stderr=True, quiet=True))
    loaded = sum(t.records for t in report.topics)
    if report.exit_code != 0 or loaded != expected:
        sys.exit(
            f"the loader run failed (exit {report.exit_code}, {loaded} of {expected}): {report.to_json()}"
        )
    return report.seconds


def spark_raw_to_parquet(spark: SparkSession, bootstrap: str, ranges: list[OffsetRange], out: Path) -> None:
    """The limit: the same ranges through Spark's Kafka source, value bytes written as they are."""
    frame = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .options(**kafka_source_options(ranges))
        .load()
        .select("partition", "offset", "timestamp", "value")
    )
    frame.write.mode("overwrite").parquet(str(out))


def consumer_to_parquet(bootstrap: str, registry_url: str, ranges: list[OffsetRange], out: Path) -> int:
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


def markdown(rows: list[Row], baseline: dict[str, str]) -> str:
    lines = ["| work | records | seconds | records/s | ratio |", "|---|---:|---:|---:|---|"]
    by_name = {row.work: row for row in rows}
    for row in rows:
        against = baseline.get(row.work)
        ratio = ""
        if against:
            other = by_name[against]
            ratio = f"{row.rate / other.rate:.2f}x of {against}"
        lines.append(f"| {row.work} | {row.records:,} | {row.seconds:.1f} | {row.rate:,.0f} | {ratio} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000, help="records of the big topic")
    parser.add_argument("--partitions", type=int, default=4, help="partitions of the big topic")
    parser.add_argument("--many-topics", type=int, default=200)
    parser.add_argument("--records-per-topic", type=int, default=500)
    args = parser.parse_args()
    say = Console(stderr=True).log

    workdir = Path(tempfile.mkdtemp(prefix="loader-bench-"))
    try:
        with kafka_broker(workdir) as bootstrap, registry_server(workdir) as registry_url:
            big = "bench_page_view"
            create_topics(bootstrap, [big], args.partitions)
            values = encoded_events(register_versions(registry_url, big), DISTINCT_EVENTS_PER_VERSION)
            say(f"producing {args.records:,} records to {big}")
            produce(bootstrap, big, values, args.records)
            many = [f"bench_small_{i:03d}" for i in range(args.many_topics)]
            one = "bench_one_topic"
            small_total = args.many_topics * args.records_per_topic
            create_topics(bootstrap, many, 1)
            create_topics(bootstrap, [one], 1)
            for topic in [*many, one]:
                ids = register_versions(registry_url, topic)
                count = small_total if topic == one else args.records_per_topic
                produce(bootstrap, topic, encoded_events(ids, max(1, min(count, 3_000) // 3)), count)
            say(f"produced {args.many_topics} x {args.records_per_topic:,} and {small_total:,} to {one}")

            many_name = f"loader run, {args.many_topics} topics x {args.records_per_topic}"
            warehouse = workdir / "warehouse"
            base = LoaderSettings(
                bootstrap_servers=bootstrap, registry_url=registry_url, warehouse=str(warehouse)
            )
            spark_started = time.perf_counter()
            spark = job.spark_for(base)
            spark_seconds = time.perf_counter() - spark_started
            ranges = offset_ranges(bootstrap, big, args.partitions)
            total = sum(r.span for r in ranges)
            rows: list[Row] = []
            try:
                say("Spark: raw value bytes to Parquet (the limit)")
                seconds = timed(lambda: spark_raw_to_parquet(spark, bootstrap, ranges, workdir / "raw"))
                rows.append(Row("Spark raw bytes to Parquet (limit)", total, seconds))
                say("loader run on the big topic")
                settings = LoaderSettings(**{**base.__dict__, "database": "bench_big", "include_topics": big})
                rows.append(Row("loader run, 1 topic, 3 versions", total, loader_run(spark, settings, total)))
                say("hand-written consumer")
                out = workdir / "consumer.parquet"
                seconds = timed(lambda: consumer_to_parquet(bootstrap, registry_url, ranges, out))
                if pq.ParquetFile(out).metadata.num_rows != total:
                    sys.exit("the consumer baseline did not write every record")
                rows.append(Row("confluent-kafka + fastavro + pyarrow", total, seconds))
                say(f"loader run on {args.many_topics} topics")
                settings = LoaderSettings(
                    **{**base.__dict__, "database": "bench_many", "include_topics": "bench_small_.*"}
                )
                many_seconds = loader_run(spark, settings, small_total)
                rows.append(Row(many_name, small_total, many_seconds))
                say(f"{args.many_topics} topics again, each with {args.records_per_topic} new records")
                for topic in many:
                    produce(
                        bootstrap,
                        topic,
                        encoded_events(register_versions(registry_url, topic), 100),
                        args.records_per_topic,
                    )
                rows.append(
                    Row(f"{many_name}, next run", small_total, loader_run(spark, settings, small_total))
                )
                say("loader run on one topic of as many records")
                settings = LoaderSettings(**{**base.__dict__, "database": "bench_one", "include_topics": one})
                rows.append(
                    Row(
                        "loader run, 1 topic, same total",
                        small_total,
                        loader_run(spark, settings, small_total),
                    )
                )
            finally:
                spark.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    baselines = {
        "loader run, 1 topic, 3 versions": "Spark raw bytes to Parquet (limit)",
        "confluent-kafka + fastavro + pyarrow": "loader run, 1 topic, 3 versions",
        many_name: "loader run, 1 topic, same total",
        f"{many_name}, next run": "loader run, 1 topic, same total",
    }
    print(markdown(rows, baselines))
    print(
        f"\nSpark session start (not in the figures): {spark_seconds:.1f} s; "
        f"{os.cpu_count()} CPUs; per topic in the many-topics run: {many_seconds / args.many_topics:.2f} s"
    )


if __name__ == "__main__":
    main()
