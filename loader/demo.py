"""The quickstart's demo: the example schemas registered, events produced with two versions of each, one
load, and the resulting tables shown through Spark SQL (old records projected onto the new schema). The
`.avsc` schemas are produced with confluent-kafka's `AvroSerializer`, the `.json` one (a JSON Schema) with
its `JSONSerializer`, the `.proto` one with its `ProtobufSerializer` (the message class compiled from the
file by protoc, as a producer's build would generate it).

    python -m loader.demo --bootstrap-servers HOST:PORT --registry-url URL --warehouse DIR
        [--table-format hive|iceberg]
"""

from __future__ import annotations

import random
import sys
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import click
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import descriptor_pool, message_factory
from rich.console import Console
from rich.markup import escape

from loader import job
from loader.config import LoaderSettings
from loader.formats.preflight import FORMAT_NAMES
from loader.outcome.report import render
from loader.reading.value_formats.lookup import Document
from loader.reading.value_formats.protobuf_files import compiled

REPO_ROOT = Path(__file__).resolve().parent.parent
EVENTS_PER_VERSION = 50
SHOWN_COLUMNS = {
    "page_view": "_kafka_key_string AS key, page_key, device.kind AS device, referrer, load_time_ms",
    "search": "query, vertical, result_count, member_id",
    "ad_click": "_kafka_key_string AS key, cost, currency, placement",
    "cart_update": "_kafka_key_string AS key, action, sku, quantity, unit_price",
    "profile_edit": "_kafka_key_string AS key, section, skills_added, edited_at",
}


def protobuf_serializer(schema_str: str, schema_registry_client: SchemaRegistryClient) -> Callable:
    """A `ProtobufSerializer` of the file's first message, taking the event as a dict (timestamps as
    datetimes)."""
    *imports, own = compiled(Document(schema_str), {})
    pool = descriptor_pool.DescriptorPool()
    for file in (*imports, own):
        pool.Add(file)
    name = f"{own.package}.{own.message_type[0].name}"
    message = message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
    serializer = ProtobufSerializer(message, schema_registry_client, {"use.deprecated.format": False})

    def serialize(event: dict[str, Any], context: SerializationContext) -> bytes | None:
        built = message(**{k: v for k, v in event.items() if not isinstance(v, datetime)})
        for field, value in event.items():
            if isinstance(value, datetime):
                getattr(built, field).FromDatetime(value)
        return serializer(built, context)

    return serialize


# a schema file's type -> its serializer
SERIALIZERS: dict[str, Callable] = {
    ".avsc": AvroSerializer,
    ".json": JSONSerializer,
    ".proto": protobuf_serializer,
}
ROWS_PER_VERSION = 3


def rows_of_each_version(table: str, columns: str) -> str:
    """SQL for the first few rows written with each schema id, so old and new sit side by side."""
    return (
        f"SELECT _schema_id, {columns} FROM (SELECT *, row_number() OVER "
        "(PARTITION BY _schema_id ORDER BY _kafka_timestamp, _kafka_partition, _kafka_offset) AS n "
        f"FROM {table}) "
        f"WHERE n <= {ROWS_PER_VERSION} ORDER BY _schema_id, n"
    )


def _event(topic: str, version: int, rng: random.Random, now: datetime) -> dict[str, Any]:
    """A plausible event of the topic, as a producer on schema `version` (1 = previous, 2 = current) makes."""
    at = now - timedelta(seconds=rng.randint(0, 3600))
    if topic == "page_view":
        event: dict[str, Any] = {
            "member_id": rng.randint(1, 10_000),
            "page_key": rng.choice(["feed", "profile", "jobs", "messaging"]),
            "url": f"/{rng.choice(['feed', 'in/someone', 'jobs/view/42'])}",
            "viewed_at": at,
            "device": {"kind": rng.choice(["DESKTOP", "MOBILE", "TABLET"]), "user_agent": "Mozilla/5.0"},
        }
        if version == 2:
            event |= {
                "referrer": rng.choice([None, "https://www.example.com/"]),
                "load_time_ms": rng.randint(40, 900),
            }
        return event
    if topic == "cart_update":
        event = {
            "cart_id": uuid.UUID(int=rng.getrandbits(128)).hex,
            "member_id": rng.randint(1, 10_000),
            "action": rng.choice(["ADD", "ADD", "REMOVE"]),
            "sku": f"SKU-{rng.randint(100, 999)}",
            "quantity": rng.randint(0, 5),
            "updated_at": at.isoformat(),  # JSON has no timestamps: the schema's `date-time` text
        }
        if version == 2:
            event["unit_price"] = rng.choice([None, round(rng.uniform(1, 90), 2)])
        return event
    if topic == "profile_edit":
        event = {
            "edit_id": uuid.UUID(int=rng.getrandbits(128)).hex,
            "member_id": rng.randint(1, 10_000),
            "section": rng.choice(["HEADLINE", "EXPERIENCE", "SKILLS"]),
            "edited_at": at,
        }
        if version == 2 and event["section"] == "SKILLS":
            event["skills_added"] = rng.sample(["kafka", "spark", "avro", "sql", "python"], 2)
        return event
    if topic == "search":
        return {
            "search_id": uuid.UUID(int=rng.getrandbits(128)).hex,
            "member_id": rng.choice([None, rng.randint(1, 10_000)]),
            "query": rng.choice(["data engineer", "kafka", "avro schema", "spark jobs"]),
            "vertical": rng.choice(["ALL", "PEOPLE", "JOBS"]),
            "filters": {"location": "remote"} if rng.random() < 0.3 else {},
            "result_count": rng.randint(0, 5000) * (1 if version == 1 else 1_000_000),
            "searched_at": at,
        }
    event = {
        "click_id": uuid.UUID(int=rng.getrandbits(128)).hex,
        "member_id": rng.randint(1, 10_000),
        "campaign_id": rng.randint(100, 120),
        "creative_id": rng.randint(1000, 1100),
        "placement": rng.choice(["FEED", "SIDEBAR", "SEARCH"]),
        "cost": Decimal(rng.randint(10, 500)) / Decimal(100),
        "clicked_at": at,
    }
    if version == 2:
        event["currency"] = rng.choice(["USD", "EUR"])
    return event


def _key(topic: str, event: dict[str, Any]) -> bytes | None:
    """Keys as applications set them: the entity the event is about, as text (a member, a click)."""
    entity = {
        "ad_click": event.get("click_id"),
        "cart_update": event.get("cart_id"),
        "profile_edit": event.get("edit_id"),
    }.get(topic, event.get("member_id"))
    return None if entity is None else str(entity).encode()


def produce_examples(bootstrap_servers: str, registry_url: str, console: Console) -> list[str]:
    """Creates the example topics and produces events with the previous, then the current, schema."""
    files = {
        path.stem: path.suffix
        for path in (REPO_ROOT / "schemas").iterdir()
        if path.suffix in SERIALIZERS and not path.stem.endswith((".key", ".meta"))
    }
    topics = sorted(files)
    admin = AdminClient({"bootstrap.servers": bootstrap_servers})
    existing = admin.list_topics(timeout=30).topics
    new = [NewTopic(t, num_partitions=3, replication_factor=1) for t in topics if t not in existing]
    for future in admin.create_topics(new).values() if new else []:
        future.result(timeout=30)
    registry = SchemaRegistryClient({"url": registry_url})
    producer = Producer({"bootstrap.servers": bootstrap_servers, "enable.idempotence": True})
    rng = random.Random(7)
    now = datetime.now(UTC)
    for topic in topics:
        context = SerializationContext(topic, MessageField.VALUE)
        versions = [
            REPO_ROOT / "examples" / "previous-schemas" / f"{topic}{files[topic]}",
            REPO_ROOT / "schemas" / f"{topic}{files[topic]}",
        ]
        for version, path in enumerate(versions, start=1):
            serializer = SERIALIZERS[files[topic]]  # registers the version on first use
            serialize = serializer(schema_str=path.read_text(), schema_registry_client=registry)
            for _ in range(EVENTS_PER_VERSION):
                event = _event(topic, version, rng, now)
                producer.produce(topic, key=_key(topic, event), value=serialize(event, context))
            producer.flush(30)
        latest = registry.get_latest_version(f"{topic}-value")
        console.print(
            f"produced {2 * EVENTS_PER_VERSION} events to [bold]{topic}[/] with 2 schema versions "
            f"(subject {topic}-value is at version {latest.version}, schema id {latest.schema_id})"
        )
    if producer.flush(30):
        raise RuntimeError("some events were not delivered to Kafka")
    return topics


@click.command()
@click.option("--bootstrap-servers", required=True)
@click.option("--registry-url", required=True)
@click.option("--warehouse", required=True)
@click.option("--database", default="kafka", show_default=True)
@click.option(
    "--table-format",
    type=click.Choice(FORMAT_NAMES),
    default="hive",
    show_default=True,
    help="Hive ORC tables or Apache Iceberg tables (a warehouse holds tables of one format).",
)
def main(
    bootstrap_servers: str,
    registry_url: str,
    warehouse: str,
    database: str,
    table_format: str,
) -> None:
    """Register, produce, load, show."""
    console = Console()
    topics = produce_examples(bootstrap_servers, registry_url, console)
    settings = LoaderSettings(
        bootstrap_servers=bootstrap_servers,
        registry_url=registry_url,
        warehouse=str(Path(warehouse).absolute()),
        database=database,
        include_topics="|".join(topics),
        table_format=table_format,
    )
    console.print(f"\n[bold]loader run[/] ({table_format} tables, warehouse {escape(settings.warehouse)})")
    spark = job.spark_for(settings)
    try:
        report = job.run(settings, spark, console)
        render(report, Console(width=200))
        for topic in topics:
            table = f"{database}.{topic}"
            console.print(
                f"\n[bold]{escape(table)}[/]: rows written with the previous schema (lower schema id) read "
                "with the latest one; fields added since read their defaults"
            )
            frame = spark.sql(rows_of_each_version(table, SHOWN_COLUMNS[topic]))
            console.print(frame._jdf.showString(2 * ROWS_PER_VERSION, 40, False), markup=False)
            console.print(f"({spark.table(table).count()} rows in all)")
    finally:
        spark.stop()
    sys.exit(report.exit_code)


if __name__ == "__main__":
    main()
