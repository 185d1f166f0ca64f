"""The audit as a stream (LinkedIn's section 6): after a run's commit, its per-topic, per-window counts
are produced to a Kafka topic (the `audit-topic` setting) as Confluent-framed Avro of a schema registered
as `<audit-topic>-value`, so that another system can reconcile producers' counts with what was loaded.

Each record is marked with the run's id (and keyed by run, topic and window): a record read twice (a
retried produce, a consumer's replay) is recognisable as the same run's. They are produced after the
commit point, by the run that committed: at most once per commit, never for a run that did not commit. A
produce that fails is a warning (the committed audit file, `loader audit`, still has the counts).
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Callable
from typing import Any

from fastavro import parse_schema, schemaless_writer

from loader.config import LoaderSettings
from loader.observability.metrics import committed
from loader.outcome.report import RunReport

SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "LoaderAuditCount",
    "namespace": "loader.audit",
    "doc": "Records one committed loader run read of one topic in one 10-minute window of record time.",
    "fields": [
        {"name": "run_id", "type": "string", "doc": "The run that committed them."},
        {"name": "database", "type": "string"},
        {"name": "topic", "type": "string"},
        {"name": "table", "type": "string", "doc": "The topic's table (its tables, comma-separated)."},
        {"name": "window_start", "type": "string", "doc": "Start of the window, UTC: 2026-11-28 12:10."},
        {"name": "records", "type": "long", "doc": "Records read (loaded, quarantined or skipped)."},
        {"name": "skipped", "type": "long", "doc": "Tombstones among them not loaded (skip-tombstones)."},
    ],
}


def audit_counts(report: RunReport) -> list[dict[str, Any]]:
    """The run's counts as the stream's records: what its committed audit file says (topics that loaded
    or were up to date, with windows), one record per topic and window."""
    rows = []
    for topic in report.topics:
        if topic.status not in ("loaded", "up to date") or not topic.windows:
            continue
        table = ", ".join(sorted(topic.tables)) if topic.event_types else topic.table or ""
        for window, records in sorted(topic.windows.items()):
            rows.append(
                {
                    "run_id": report.run_id,
                    "database": report.database,
                    "topic": topic.topic,
                    "table": table,
                    "window_start": window,
                    "records": records,
                    "skipped": topic.skipped_windows.get(window, 0),
                }
            )
    return rows


def framed(schema_id: int, record: dict[str, Any]) -> bytes:
    """Confluent's wire format: magic byte 0, the schema id (4 bytes, big-endian), the Avro body."""
    out = io.BytesIO()
    out.write(struct.pack(">bI", 0, schema_id))
    schemaless_writer(out, parse_schema(SCHEMA), record)
    return out.getvalue()


def key_of(record: dict[str, Any]) -> bytes:
    return f"{record['run_id']}/{record['topic']}/{record['window_start']}".encode()


def publish(settings: LoaderSettings, reports: list[RunReport], warn: Callable[[str], None]) -> int:
    """Produces the committed runs' counts to `settings.audit_topic`; returns how many records."""
    if not settings.audit_topic:
        return 0
    rows = [row for report in reports if committed(report) for row in audit_counts(report)]
    if not rows:
        return 0
    from confluent_kafka import KafkaException, Producer

    from loader.reading.kafka_security import client_config

    subject = f"{settings.audit_topic}-value"
    try:
        session = settings.registry_access.session(settings.registry_url, settings.kafka_security.sasl_login)
        answer = session.post(
            f"{settings.registry_url.rstrip('/')}/subjects/{subject}/versions",
            data=json.dumps({"schema": json.dumps(SCHEMA)}),
            headers={"Content-Type": "application/vnd.schemaregistry.v1+json"},
            timeout=settings.metadata_timeout_s,
        )
        answer.raise_for_status()
        schema_id = int(answer.json()["id"])
    except Exception as exc:  # the run is committed: the stream is a copy of its audit file
        warn(f"the audit stream's schema could not be registered as {subject}: {exc}")
        return 0
    producer = Producer(
        {
            "bootstrap.servers": settings.bootstrap_servers,
            "enable.idempotence": True,
            **client_config(settings.kafka_security),
        }
    )
    failures: list[str] = []

    def delivered(error: Any, _message: Any) -> None:
        if error is not None:
            failures.append(str(error))

    try:
        for row in rows:
            producer.produce(
                settings.audit_topic, key=key_of(row), value=framed(schema_id, row), on_delivery=delivered
            )
            producer.poll(0)
        left = producer.flush(settings.metadata_timeout_s)
    except (KafkaException, BufferError) as exc:
        warn(f"the audit stream could not be produced to {settings.audit_topic}: {exc}")
        return 0
    if left or failures:
        warn(
            f"{left + len(failures)} audit record(s) not delivered to {settings.audit_topic}: {failures[:1]}"
        )
    return len(rows) - left - len(failures)
