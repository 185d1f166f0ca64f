"""The registry answers the event-type rules need (see `loader.reading.event_types`): which subjects a schema
id is registered under, its writer schema, a subject's schemas. From the run's snapshot of the registry
when it could take one (no request at all), else one request per id or subject, each asked once per run.
"""

from __future__ import annotations

import threading

from loader.reading.event_types import Placement, is_record_named, place, record_full_name, types_signature
from loader.reading.registry_client import RegistryClient, RegistrySnapshot, SubjectSchemas


class SchemaLookup:
    """Shared by a run's topic passes (thread-safe)."""

    def __init__(
        self,
        registry: RegistryClient,
        snapshot: RegistrySnapshot | None,
        subjects: set[str],
        lock: threading.RLock | None = None,  # the run's lock on the registry client's one HTTP session
    ) -> None:
        self.registry = registry
        self.snapshot = snapshot
        self.subjects = subjects
        self._lock = lock or threading.RLock()
        self._schemas: dict[str, SubjectSchemas | None] = {}
        self._placements: dict[tuple[str, int], Placement] = {}

    def has_record_named_subjects(self) -> bool:
        """Whether any subject was registered by RecordNameStrategy (named like its record). Without a
        snapshot, a subject with a dot that is no topic's `-value` or `-key` is taken for one."""
        if self.snapshot is not None:
            return any(is_record_named(s, text) for s, (_, text) in self.snapshot.latest.items())
        return any("." in s and not s.endswith(("-value", "-key")) for s in self.subjects)

    def schemas(self, subject: str) -> SubjectSchemas | None:
        with self._lock:
            if subject not in self._schemas:
                self._schemas[subject] = (
                    self.snapshot.schemas(subject)
                    if self.snapshot is not None
                    else self.registry.subject_schemas(subject)
                )
            return self._schemas[subject]

    def placement(self, topic: str, schema_id: int) -> Placement:
        key = (topic, schema_id)
        with self._lock:
            if key in self._placements:
                return self._placements[key]
        if self.snapshot is not None:
            subjects, text = self.snapshot.subjects_of(schema_id), self.snapshot.schema_text(schema_id)
        else:
            with self._lock:
                subjects = sorted({s for s, _ in self.registry.schema_usages(schema_id)})
            found = [self.schemas(s) for s in subjects]
            text = next(
                (f.writer_schemas[schema_id] for f in found if f and schema_id in f.writer_schemas), None
            )
        placement = place(topic, schema_id, subjects, record_full_name(text) if text else None)
        with self._lock:
            self._placements[key] = placement
        return placement


def schemas_signature(
    values: SubjectSchemas | None,
    keys: SubjectSchemas | None,
    types: dict[str, str],
    lookup: SchemaLookup,
    granularity: str,
) -> str:
    """What a topic's tables were made to hold: the latest value and key schema ids, the time
    partitioning, and the latest schema id of each record-named event type (a topic whose signature
    did not change since its last commit and has no new records costs a run nothing)."""
    key = keys.latest_id if keys else "-"
    signature = f"value {values.latest_id if values else '-'}, key {key}, {granularity}"
    if not types:
        return signature
    latest = {}
    for name, subject in types.items():
        schemas = lookup.schemas(subject)
        latest[name] = (subject, schemas.latest_id if schemas else -1)
    return signature + types_signature(latest)
