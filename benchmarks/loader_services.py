"""What the loader benchmark runs against: its own Kafka broker and registry, the page-view schema in
three versions, and records produced in Confluent's wire format."""

from __future__ import annotations

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
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import fastavro
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

REPO_ROOT = Path(__file__).resolve().parents[1]

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


@contextmanager
def rest_catalog_on_object_store(workdir: Path) -> Iterator[dict[str, str]]:
    """`scripts/object-store` and `scripts/iceberg-rest` (Iceberg's REST server, its warehouse on the
    store) on free ports in `workdir`; yields the environment of a `loader run` on them (the store's keys
    vended by the catalog, the client credentials from a variable, as a cron job would have them)."""
    store_port, catalog_port = free_port(), free_port()
    store = dict(
        os.environ,
        OBJECT_STORE_PORT=str(store_port),
        OBJECT_STORE_DATA_DIR=str(workdir / "object-store"),
        OBJECT_STORE_BUCKETS="warehouse",
    )
    catalog = dict(
        store,
        ICEBERG_REST_PORT=str(catalog_port),
        ICEBERG_REST_DATA_DIR=str(workdir / "iceberg-rest"),
        ICEBERG_REST_WAREHOUSE="s3://warehouse/iceberg",
        ICEBERG_REST_S3_ENDPOINT=f"http://127.0.0.1:{store_port}",
        ICEBERG_REST_S3_KEYS_DIR=str(workdir / "object-store" / "secrets"),
    )
    scripts = [
        (REPO_ROOT / "scripts" / "object-store", store),
        (REPO_ROOT / "scripts" / "iceberg-rest", catalog),
    ]
    started = []
    try:
        for script, env in scripts:
            done = subprocess.run([str(script), "start"], env=env, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"{script.name} start failed:\n{done.stdout}\n{done.stderr}")
            started.append((script, env))
        yield {
            "LOADER_TABLE_FORMAT": "iceberg",
            "LOADER_ICEBERG_CATALOG": "rest",
            "LOADER_ICEBERG_REST_URI": f"http://127.0.0.1:{catalog_port}",
            "LOADER_ICEBERG_REST_CREDENTIAL": "bench:any",
            "LOADER_ICEBERG_VENDED_CREDENTIALS": "true",
            "LOADER_S3_ENDPOINT": f"http://127.0.0.1:{store_port}",
            "LOADER_S3_REGION": "us-east-1",
            "LOADER_S3_PATH_STYLE": "true",
        }
    finally:
        for script, env in reversed(started):
            subprocess.run([str(script), "stop"], env=env, capture_output=True)


@contextmanager
def spark_cluster() -> Iterator[dict[str, str]]:
    """`scripts/cluster` (HDFS, Spark standalone with two workers, the metastore on PostgreSQL) in a data
    directory of its own, made with mode 755 so that PostgreSQL's system user reaches it under root; yields
    the addresses it printed (cluster.env's names)."""
    data_dir = Path(tempfile.mkdtemp(prefix="loader-bench-cluster-"))
    data_dir.chmod(0o755)
    # Each worker offers the executor memory the local run's driver has (1g), and one core.
    env = dict(os.environ, CLUSTER_DATA_DIR=str(data_dir), CLUSTER_WORKER_MEMORY="1536m")
    script = str(REPO_ROOT / "scripts" / "cluster")
    try:
        started = subprocess.run([script, "start"], env=env, capture_output=True, text=True)
        if started.returncode != 0:
            sys.exit(f"scripts/cluster start failed:\n{started.stdout}\n{started.stderr}")
        yield dict(line.split("=", 1) for line in started.stdout.splitlines() if line.startswith("CLUSTER_"))
    finally:
        subprocess.run([script, "stop"], env=env, capture_output=True)
        shutil.rmtree(data_dir, ignore_errors=True)


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


def topic_versions(variant: int | None = None) -> list[dict[str, Any]]:
    """The three versions; with `variant`, each with one more field of its own, so that topics have
    schemas (and tables) that differ, as real topics do."""
    if variant is None:
        return VERSIONS
    extra = {"name": f"extra_{variant}", "type": "long", "default": variant}
    return [{**schema, "fields": [*schema["fields"], extra]} for schema in VERSIONS]


def register_versions(registry_url: str, topic: str, variant: int | None = None) -> list[int]:
    """The three versions under the topic's value subject (the registry checks each is compatible)."""
    subject = f"{registry_url}/subjects/{topic}-value/versions"
    return [http(subject, {"schema": json.dumps(schema)})["id"] for schema in topic_versions(variant)]


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


def encoded_events(
    schema_ids: list[int], per_version: int, seed: int = 11, variant: int | None = None
) -> list[bytes]:
    """Confluent wire-format values, the versions interleaved: magic byte, schema id, Avro body."""
    rng = random.Random(seed)
    parsed = [fastavro.parse_schema(schema) for schema in topic_versions(variant)]
    values = []
    for i in range(per_version * len(VERSIONS)):
        version = i % len(VERSIONS)
        body = io.BytesIO()
        body.write(b"\x00" + struct.pack(">I", schema_ids[version]))
        fastavro.schemaless_writer(body, parsed[version], event(version + 1, rng))
        values.append(body.getvalue())
    return values


def json_schema_of(avro: Any) -> Any:
    """The JSON Schema a JSON producer of the page-view event would register for an Avro version of it
    (closed objects, so that each version's added property is BACKWARD-compatible)."""
    if isinstance(avro, list):
        [single] = [t for t in avro if t != "null"]
        return {"oneOf": [{"type": "null"}, json_schema_of(single)]}
    if isinstance(avro, str):
        return {"type": {"string": "string", "boolean": "boolean", "float": "number"}.get(avro, "integer")}
    kind = avro["type"]
    if kind == "record":
        properties = {f["name"]: json_schema_of(f["type"]) for f in avro["fields"]}
        return {"type": "object", "properties": properties, "additionalProperties": False}
    if kind == "enum":
        return {"type": "string", "enum": avro["symbols"]}
    if kind == "array":
        return {"type": "array", "items": json_schema_of(avro["items"])}
    if kind == "map":
        return {"type": "object", "additionalProperties": json_schema_of(avro["values"])}
    return {"type": "integer"}  # timestamp-millis: the epoch milliseconds a JSON producer sends


def register_json_versions(registry_url: str, topic: str) -> list[int]:
    """The three versions, as JSON Schemas, under the topic's value subject."""
    subject = f"{registry_url}/subjects/{topic}-value/versions"
    return [
        http(subject, {"schema": json.dumps(json_schema_of(v)), "schemaType": "JSON"})["id"] for v in VERSIONS
    ]


def encoded_json_events(schema_ids: list[int], per_version: int, seed: int = 11) -> list[bytes]:
    """`encoded_events`' records as Confluent-framed JSON (magic byte, schema id, UTF-8 JSON text), as
    confluent-kafka's `JSONSerializer` writes them."""
    rng = random.Random(seed)
    values = []
    for i in range(per_version * len(VERSIONS)):
        version = i % len(VERSIONS)
        text = json.dumps(event(version + 1, rng), separators=(",", ":")).encode()
        values.append(b"\x00" + struct.pack(">I", schema_ids[version]) + text)
    return values


PAGE_VIEW_PROTO = """syntax = "proto3";
package bench;
import "google/protobuf/timestamp.proto";

message PageViewEvent {
  string event_id = 1;
  int64 member_id = 2;
  string session_id = 3;
  string page_key = 4;
  string url = 5;
  optional string referrer = 6;
  string ip_address = 7;
  string user_agent = 8;
  string country = 9;
  Device device = 10;
  google.protobuf.Timestamp viewed_at = 11;
  int64 duration_ms = 12;
  float scroll_depth = 13;
  bool logged_in = 14;
  repeated int64 experiment_ids = 15;
  map<string, string> tags = 16;
  string locale = 17;
  string app_version = 18;
  int32 load_time_ms = 19;
  optional string consent = 20;

  message Device {
    Kind kind = 1;
    string os = 2;
    enum Kind {
      DESKTOP = 0;
      MOBILE = 1;
    }
  }
}
"""


def register_protobuf_version(registry_url: str, topic: str) -> int:
    """The page-view event's latest version as a `.proto` (one version: a record is read by field number
    whichever version wrote it), under the topic's value subject."""
    subject = f"{registry_url}/subjects/{topic}-value/versions"
    return int(http(subject, {"schema": PAGE_VIEW_PROTO, "schemaType": "PROTOBUF"})["id"])


def encoded_protobuf_events(schema_id: int, count: int, seed: int = 11) -> list[bytes]:
    """`encoded_events`' records (of the latest version) as Confluent-framed Protobuf (magic byte, schema
    id, message indexes `[0]`, the message), as confluent-kafka's `ProtobufSerializer` writes them."""
    from google.protobuf import descriptor_pool, message_factory

    from registry.schema_types.protobuf.parsing import parse_protobuf

    parsed = parse_protobuf(PAGE_VIEW_PROTO)
    pool = descriptor_pool.DescriptorPool()
    for file in (*parsed.dependencies, parsed.file):
        pool.Add(file)
    message = message_factory.GetMessageClass(pool.FindMessageTypeByName("bench.PageViewEvent"))
    rng = random.Random(seed)
    values = []
    for _ in range(count):
        record = event(3, rng)
        viewed_at = record.pop("viewed_at")
        record = {k: v for k, v in record.items() if v is not None}
        built = message(**record)
        built.viewed_at.FromMilliseconds(viewed_at)
        values.append(b"\x00" + struct.pack(">I", schema_id) + b"\x00" + built.SerializeToString())
    return values


def create_topics(bootstrap: str, names: list[str], partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics(
        [NewTopic(n, num_partitions=partitions, replication_factor=1) for n in names]
    )
    for future in futures.values():
        future.result(timeout=60)


HEADERS = [("trace-id", b"4bf92f3577b34da6a3ce929d0e0e4736"), ("source", b"web-frontend")]


def produce(
    bootstrap: str,
    topic: str,
    values: list[bytes],
    count: int,
    keys_and_headers: bool = False,
    spread_over_ms: int = 0,
) -> None:
    """`count` records round-robin over `values`; with `keys_and_headers`, each with a text key (a
    member id) and two headers, as instrumented applications send them; with `spread_over_ms`, their
    timestamps evenly over that many milliseconds up to now, in order (a quiet topic's retention)."""
    start_ms = int(time.time() * 1000) - spread_over_ms

    def record(i: int) -> dict[str, Any]:
        extra: dict[str, Any] = (
            {"key": str(i % 50_000).encode(), "headers": HEADERS} if keys_and_headers else {}
        )
        if spread_over_ms:
            extra["timestamp"] = start_ms + i * spread_over_ms // count
        return {"value": values[i % len(values)], **extra}

    produce_records(bootstrap, topic, (record(i) for i in range(count)))


def produce_keyed(bootstrap: str, topic: str, values: list[bytes], keys: list[int]) -> None:
    """One record per key in `keys`, in that order (key `k<n>`), its value one of `values` (round-robin)."""
    records = ({"key": b"k%d" % key, "value": values[i % len(values)]} for i, key in enumerate(keys))
    produce_records(bootstrap, topic, records)


def produce_records(bootstrap: str, topic: str, records: Iterable[dict[str, Any]]) -> None:
    """Each record (the keyword arguments of `Producer.produce`: value, key, headers, timestamp) to
    `topic`, batched and compressed, waiting whenever the producer's buffer is full."""
    producer = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.size": 1_000_000, "compression.type": "lz4"}
    )
    for i, fields in enumerate(records):
        while True:
            try:
                producer.produce(topic, **fields)
                break
            except BufferError:
                producer.poll(0.1)
        if i % 10_000 == 0:
            producer.poll(0)
    if producer.flush(120):
        sys.exit("the producer could not deliver every record")
