"""Which event type a record's schema id is, in a topic that may carry several: pure rules, no I/O.

Confluent's serializers name a schema's subject by a strategy. TopicNameStrategy (the default) registers
`<topic>-value`: one event type per topic, loaded into the topic's own table as always. RecordNameStrategy
registers `<record full name>`, TopicRecordNameStrategy `<topic>-<record full name>`: a topic may then carry
several event types, each loaded into a table of its own, `<topic>__<record name>`. Nothing is declared: a
schema id is placed by the subjects it is registered under and its writer schema's full name.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from loader.schema.naming import table_name

# The type of a topic's `<topic>-value` records: they keep the topic's own table.
VALUE_TYPE = ""


@dataclass(frozen=True)
class Placement:
    """Where one schema id's records of a topic go: an event type (a record full name, or VALUE_TYPE)
    projected onto the latest version of `subject`, or nowhere, for `reason`."""

    schema_id: int
    event_type: str | None
    subject: str | None
    reason: str | None = None


def record_full_name(schema_text: str) -> str | None:
    """`com.example.Click` for a record schema (namespace from the name or the namespace field); None for
    a schema that is not a record, which no record-named strategy can register."""
    try:
        schema = json.loads(schema_text)
    except ValueError:
        return None
    if not (
        isinstance(schema, dict) and schema.get("type") == "record" and isinstance(schema.get("name"), str)
    ):
        return None
    name = schema["name"]
    namespace = schema.get("namespace")
    if "." in name or not namespace:
        return name
    return f"{namespace}.{name}"


def topic_record_subjects(topic: str, subjects: Iterable[str]) -> list[str]:
    """The subjects TopicRecordNameStrategy would have registered for this topic (`<topic>-<name>`,
    neither `-value` nor `-key`)."""
    prefix = f"{topic}-"
    return sorted(s for s in subjects if s.startswith(prefix) and s not in (f"{topic}-value", f"{topic}-key"))


def is_record_named(subject: str, latest_schema: str) -> bool:
    """A subject RecordNameStrategy registered: its name is its schema's record full name."""
    return record_full_name(latest_schema) == subject


def place(topic: str, schema_id: int, subjects: Iterable[str], full_name: str | None) -> Placement:
    """The event type of `schema_id` in `topic`, from the subjects the id is registered under.

    The topic's own `<topic>-value` comes first (today's single type), then `<topic>-<full name>`
    (TopicRecordNameStrategy), then `<full name>` (RecordNameStrategy). An id under any other subject
    only belongs to another topic's data: it is not placed.
    """
    subjects = sorted(set(subjects))
    if f"{topic}-value" in subjects:
        return Placement(schema_id, VALUE_TYPE, f"{topic}-value")
    if full_name is not None:
        for subject in (f"{topic}-{full_name}", full_name):
            if subject in subjects:
                return Placement(schema_id, full_name, subject)
    if not subjects:
        reason = f"schema id {schema_id} is unknown to the registry"
    else:
        reason = (
            f"schema id {schema_id} belongs to subject(s) {', '.join(subjects)}, none of which places it in "
            f"topic {topic} (by {topic}-value, {topic}-<record name> or <record name>)"
        )
    return Placement(schema_id, None, None, reason)


def event_types(placements: Iterable[Placement], known: Mapping[str, str] | None = None) -> dict[str, str]:
    """Record full name -> the subject its rows project onto, for the record-named types among
    `placements` and those `known` already. A type registered under both `<topic>-<name>` and `<name>`
    projects onto the topic's own subject."""
    found = dict(known or {})
    for p in placements:
        if p.event_type and p.subject:
            current = found.get(p.event_type)
            if current is None or (current == p.event_type and p.subject != p.event_type):
                found[p.event_type] = p.subject
    return dict(sorted(found.items()))


def event_table(topic: str, full_name: str) -> str:
    """`orders` and `com.example.Order.Created` -> `orders__created`: the record's name (not its
    namespace) after the topic's table name, by the same mapping as topic names."""
    return table_name(f"{topic}__{full_name.rsplit('.', 1)[-1]}")


def types_signature(types: Mapping[str, tuple[str, int]]) -> str:
    """What a multi-type topic's tables were made to hold: each type's subject and latest schema id."""
    return "; types " + ", ".join(
        f"{name}={subject}:{latest}" for name, (subject, latest) in sorted(types.items())
    )
