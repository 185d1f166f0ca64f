"""Debezium's change envelope as Kafka Connect's JSON Schema converter registers it, for the tests of its
table (`test_json_schema_tables.py`) and of its current-state table (`test_current_state_runs.py`)."""

from __future__ import annotations

from typing import Any

CUSTOMER_KEY_JSON = {
    "type": "object",
    "title": "dbserver1.inventory.customers.Key",
    "properties": {"id": {"type": "integer"}},
}


def debezium_json_envelope(after: Any = None) -> dict:
    """A change event's schema as Kafka Connect's JSON Schema converter registers Debezium's envelope of
    a `customers` table; `after`: another row's schema there (no envelope then)."""
    row = {
        "type": "object",
        "title": "dbserver1.inventory.customers.Value",
        "properties": {"id": {"type": "integer"}, "email": {"type": "string"}},
    }
    source = {
        "type": "object",
        "title": "io.debezium.connector.postgresql.Source",
        "properties": {"db": {"type": "string"}, "lsn": {"type": "integer"}},
    }
    return {
        "type": "object",
        "title": "dbserver1.inventory.customers.Envelope",
        "properties": {
            "before": {"oneOf": [{"type": "null"}, row]},
            "after": {"oneOf": [{"type": "null"}, after if after is not None else row]},
            "source": source,
            "op": {"type": "string"},
            "ts_ms": {"oneOf": [{"type": "null"}, {"type": "integer"}]},
        },
    }
