"""The record of one partition's compaction, kept in the state directory until its old files are gone.

It is written before the new directory is, so that whatever a kill leaves behind (a half-written
directory, a switch never confirmed, old files past their grace) a later run finds it and finishes:

    maintain/<relocation id>.json       table, partition, old location and files, new location (written once)
    maintain/<relocation id>.switched   when the metastore was seen pointing at the new location

The record itself is never rewritten (a rename cannot replace a file on every file system); the
confirmation is a marker of its own, like a commit's `.applied`.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, replace
from datetime import datetime

from loader.planning.state_store import StateFiles

RECORDS_DIR = "maintain"


@dataclass(frozen=True)
class Relocation:
    id: str
    table: str  # qualified: database.table
    spec: dict[str, str]
    old_location: str
    old_files: list[str]  # removed after the grace period; nothing else in the old location is touched
    new_location: str
    created_at: datetime
    switched_at: datetime | None = None  # set once the metastore is known to point to new_location (marker)

    def switched(self, at: datetime) -> Relocation:
        return replace(self, switched_at=at)

    def to_json(self) -> str:
        return json.dumps(
            {
                "id": self.id,
                "table": self.table,
                "spec": self.spec,
                "old_location": self.old_location,
                "old_files": self.old_files,
                "new_location": self.new_location,
                "created_at": self.created_at.isoformat(),
            },
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str) -> Relocation:
        data = json.loads(text)
        return cls(
            id=str(data["id"]),
            table=str(data["table"]),
            spec={str(k): str(v) for k, v in data["spec"].items()},
            old_location=str(data["old_location"]),
            old_files=[str(f) for f in data["old_files"]],
            new_location=str(data["new_location"]),
            created_at=datetime.fromisoformat(data["created_at"]),
        )


@dataclass
class RelocationLog:
    """The records in the state directory."""

    store: StateFiles

    def _path(self, relocation_id: str, extension: str) -> str:
        return self.store.path(f"{RECORDS_DIR}/{relocation_id}.{extension}")

    def write(self, relocation: Relocation) -> None:
        self.store.publish(self._path(relocation.id, "json"), relocation.to_json())

    def confirm(self, relocation: Relocation, at: datetime) -> Relocation:
        self.store.write_text(self._path(relocation.id, "switched"), at.isoformat(), overwrite=True)
        return relocation.switched(at)

    def read_all(self) -> list[Relocation]:
        """Every record, with its confirmation; a marker left by a kill while it was written or removed
        counts as none (the metastore then decides again)."""
        entries = self.store.list(self.store.path(RECORDS_DIR))
        markers = {
            posixpath.basename(e).removesuffix(".switched"): e for e in entries if e.endswith(".switched")
        }
        found = []
        for entry in entries:
            if not entry.endswith(".json"):
                continue
            relocation = Relocation.from_json(self.store.read_text(entry))
            if relocation.id in markers:
                try:
                    at = datetime.fromisoformat(self.store.read_text(markers[relocation.id]).strip())
                    relocation = relocation.switched(at)
                except ValueError:
                    pass
            found.append(relocation)
        return found

    def remove(self, relocation: Relocation) -> None:
        """The marker first: killed in between, the record reads as unconfirmed and is decided again."""
        self.store.delete(self._path(relocation.id, "switched"), recursive=False)
        self.store.delete(self._path(relocation.id, "json"), recursive=False)
