"""The commit protocol: a record lands in its table exactly once, however often a run is killed.

A run writes everything it read to a staging directory of its own. Then it publishes a manifest
(written under a temporary name, then renamed): the manifest lists every staged file with its final
place in a table, the partitions to register, and the offsets every partition is loaded up to. Its
appearance is the commit point: before it, the run never happened (its staging is deleted on the next
start); after it, the run will be completed, by itself or by the next start. Completing a manifest moves
each file to its final name (a file already moved is skipped, so moves can be redone), registers the
partitions (IF NOT EXISTS), and leaves an `.applied` marker. The saved offsets are those of the newest
manifest, so they advance only together with the data they describe.

    commits/000000000007.json        manifest of the 7th commit (offsets of every partition)
    commits/000000000007.applied     its files are in place and its partitions registered
    staging/<run id>/<table>/...     files of a run not yet moved into their tables
    audit/<run id>.json              what a committed run read from Kafka, per topic and window

On a local disk (and any file system Hadoop checks sums on) each file has a checksum file beside it,
`.<name>.crc`, written with it: a manifest changed afterwards (cut short, overwritten in place) fails its
check when read, and `recover` refuses it as `DamagedStateFile` naming the file, as it does a manifest
whose content is not one.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import unquote

from py4j.protocol import Py4JJavaError

from loader.outcome.chain import exception_chain
from loader.outcome.fault_injection import crash_point
from loader.planning.offsets import TopicPartition
from loader.planning.state_store import StateFiles


class DamagedStateFile(RuntimeError):
    """A file of the state directory cannot be trusted: its checksum (the `.crc` file beside it) does
    not match, or its content is not what the loader wrote. Nothing was loaded and no offset moved."""

    def __init__(self, path: str, part: str, detail: str) -> None:
        super().__init__(f"{path}: its {part} is damaged ({detail})")
        self.path, self.part = path, part


class CompletionPending(RuntimeError):
    """A committed run could not be completed: its offsets moved and its files are (or will be) in their
    tables, but `unregistered` of its partitions are not registered yet; the next run completes it."""

    def __init__(self, seq: int, unregistered: int) -> None:
        left = "its last steps not done"  # no partition to register: an Iceberg run's
        if unregistered:
            left = f"{unregistered} partition(s) not yet registered"
        super().__init__(f"commit {seq} is not complete: {left}")
        self.seq, self.unregistered = seq, unregistered


@dataclass(frozen=True)
class StagedTable:
    table: str
    files: list[tuple[str, str]]  # (staged path, final path)
    partitions: list[dict[str, str]]


@dataclass(frozen=True)
class Manifest:
    seq: int
    run_id: str
    offsets: dict[TopicPartition, int]
    tables: list[StagedTable] = field(default_factory=list)
    # Files beside the tables, moved with them: the run's audit record (see `loader.operations.audit`).
    extra_files: list[tuple[str, str]] = field(default_factory=list)
    # Which Kafka the offsets are of (see `loader.planning.kafka_identity`): None in manifests of older
    # versions.
    cluster_id: str | None = None
    topic_ids: dict[str, str] = field(default_factory=dict)
    # Per topic, the schemas its table was last made to hold: a quiet topic whose schemas did not change
    # since costs a run nothing (see `loader.job`).
    table_schemas: dict[str, str] = field(default_factory=dict)
    # Per topic of several event types, the record-named ones loaded so far (record full name -> subject,
    # see `loader.reading.event_types`): later runs load them without looking for them again.
    event_types: dict[str, dict[str, str]] = field(default_factory=dict)
    # Per topic without any, the offset (per partition) up to which its records were looked into for
    # event types and none was found: the next run looks only at newer ones.
    looked_at: dict[str, dict[int, int]] = field(default_factory=dict)

    def to_json(self) -> str:
        offsets: dict[str, dict[str, int]] = {}
        for (topic, partition), offset in sorted(self.offsets.items()):
            offsets.setdefault(topic, {})[str(partition)] = offset
        return json.dumps(
            {
                "seq": self.seq,
                "run_id": self.run_id,
                "offsets": offsets,
                "tables": [
                    {"table": t.table, "files": [list(f) for f in t.files], "partitions": t.partitions}
                    for t in self.tables
                ],
                "extra_files": [list(f) for f in self.extra_files],
                "cluster_id": self.cluster_id,
                "topic_ids": dict(sorted(self.topic_ids.items())),
                "table_schemas": dict(sorted(self.table_schemas.items())),
                "event_types": {t: dict(sorted(e.items())) for t, e in sorted(self.event_types.items())},
                "looked_at": {
                    t: {str(p): o for p, o in sorted(parts.items())}
                    for t, parts in sorted(self.looked_at.items())
                },
            },
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        data = json.loads(text)
        return cls(
            seq=int(data["seq"]),
            run_id=str(data["run_id"]),
            offsets={(t, int(p)): int(o) for t, parts in data["offsets"].items() for p, o in parts.items()},
            tables=[
                StagedTable(t["table"], [(s, d) for s, d in t["files"]], list(t["partitions"]))
                for t in data["tables"]
            ],
            extra_files=[(s, d) for s, d in data.get("extra_files", [])],
            cluster_id=data.get("cluster_id"),
            topic_ids=dict(data.get("topic_ids", {})),
            table_schemas=dict(data.get("table_schemas", {})),
            event_types={t: dict(e) for t, e in data.get("event_types", {}).items()},
            looked_at={
                t: {int(p): int(o) for p, o in parts.items()}
                for t, parts in data.get("looked_at", {}).items()
            },
        )


def relative_to(path: str, directory: str) -> str:
    """`path` relative to `directory`, whether or not either carries a `file:` scheme."""
    return posixpath.relpath(_strip_scheme(path), _strip_scheme(directory))


def final_file_name(staged_file: str, staging_dir: str, table_location: str, run_id: str) -> str:
    """Where a staged file goes: the same partition directory under the table, its name prefixed with
    the run id, so that names never clash across runs and a redone move finds its own file."""
    directory, name = posixpath.split(relative_to(staged_file, staging_dir))
    return posixpath.join(table_location.rstrip("/"), directory, f"{run_id}-{name}")


def partition_spec(relative_dir: str) -> dict[str, str]:
    """`dt=2026-11-23/hour=04` -> {"dt": "2026-11-23", "hour": "04"}. Spark's writers escape a name or
    value's `/`, `=`, `:`, `%` and the like in a directory name as `%XX` (Hive's `escapePathName`); the
    metastore is given them as they are."""
    spec = {}
    for part in relative_dir.strip("/").split("/"):
        if "=" in part:
            key, value = part.split("=", 1)
            spec[unquote(key)] = unquote(value)
    return spec


def _strip_scheme(path: str) -> str:
    """`file:/x` and `file:///x` -> `/x`, as Hadoop lists local files with a scheme and we may not."""
    return "/" + path.removeprefix("file:").lstrip("/") if path.startswith("file:") else path


@dataclass
class CommitLog:
    store: StateFiles
    add_partitions: Callable[[str, list[dict[str, str]]], None]

    @property
    def commits_dir(self) -> str:
        return self.store.path("commits")

    def staging_dir(self, run_id: str) -> str:
        return self.store.path(f"staging/{run_id}")

    def _manifest_path(self, seq: int) -> str:
        return f"{self.commits_dir}/{seq:012d}.json"

    def _applied_path(self, seq: int) -> str:
        return f"{self.commits_dir}/{seq:012d}.applied"

    def _sequences(self) -> tuple[list[int], set[int]]:
        manifests, applied = [], set()
        for entry in self.store.list(self.commits_dir):
            name = posixpath.basename(entry)
            stem, _, extension = name.partition(".")
            if not stem.isdigit():
                continue
            if extension == "json":
                manifests.append(int(stem))
            elif extension == "applied":
                applied.add(int(stem))
        return sorted(manifests), applied

    def recover(self, before_completing: Callable[[], None] = lambda: None) -> Manifest:
        """Completes every committed run, drops uncommitted ones; returns the newest manifest (its seq,
        offsets and Kafka identity), or an empty one of seq 0 when nothing was ever committed.

        `before_completing` runs once, before the first committed run is completed, and only if one is
        left to complete: a check the completion needs (the job's claim of its database) that a run with
        nothing to complete need not pay for."""
        manifests, applied = self._sequences()
        if set(manifests) - applied:
            before_completing()
        latest: Manifest | None = None
        for seq in manifests:
            manifest = self.read_manifest(seq)
            if seq not in applied:
                self.apply(manifest)
            latest = manifest
        # Nothing staged is wanted now: committed runs are complete, uncommitted ones never happened.
        self.store.delete(self.store.path("staging"))
        for entry in self.store.list(self.commits_dir):
            if entry.endswith(".tmp"):
                self.store.delete(entry, recursive=False)
        if latest is None:
            return Manifest(0, "", {})
        for seq in manifests[:-1]:  # older manifests are superseded by the newest one's offsets
            self.store.delete(self._manifest_path(seq), recursive=False)
            self.store.delete(self._applied_path(seq), recursive=False)
        return latest

    def read_manifest(self, seq: int) -> Manifest:
        """The manifest of commit `seq`; raises `DamagedStateFile` when its checksum or content is not as
        the loader wrote it."""
        path = self._manifest_path(seq)
        try:
            text = self.store.read_text(path)
        except Py4JJavaError as exc:
            checksum = [link for link in exception_chain(exc) if link.kind.endswith("ChecksumException")]
            if not checksum:
                raise
            detail = f"ChecksumException: {checksum[-1].message.splitlines()[0][:300]}"
            raise DamagedStateFile(path, "checksum", detail) from exc
        try:
            manifest = Manifest.from_json(text)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            first = (str(exc).splitlines() or [""])[0][:300]
            raise DamagedStateFile(path, "content", f"{type(exc).__name__}: {first}") from exc
        if manifest.seq != seq:
            raise DamagedStateFile(path, "content", f"it says it is commit {manifest.seq}")
        return manifest

    def commit(self, manifest: Manifest) -> None:
        """The commit point: publishes the manifest, then completes it."""
        self.store.mkdirs(self.commits_dir)
        temporary = f"{self._manifest_path(manifest.seq)}.tmp"
        self.store.write_text(temporary, manifest.to_json(), overwrite=True)
        crash_point("after_manifest_temp")
        self.store.publish(self._manifest_path(manifest.seq), manifest.to_json())
        self.store.delete(temporary, recursive=False)
        crash_point("after_manifest")
        self.apply(manifest)

    def apply(self, manifest: Manifest) -> None:
        """Moves the files and registers the partitions; every step may be redone after a crash. When a
        step fails, raises `CompletionPending` (from what failed): the manifest stays committed, and the
        next run completes it."""
        registered = [0]
        try:
            self._apply(manifest, registered)
        except Exception as exc:
            pending = sum(len(staged.partitions) for staged in manifest.tables) - registered[0]
            raise CompletionPending(manifest.seq, pending) from exc

    def _apply(self, manifest: Manifest, registered: list[int]) -> None:
        moved_one = False
        moves = [f for staged in manifest.tables for f in staged.files] + list(manifest.extra_files)
        for source, target in moves:
            self.store.move(source, target)
            if not moved_one:
                moved_one = True
                crash_point("after_first_move")
        crash_point("after_moves")
        for staged in manifest.tables:
            self.add_partitions(staged.table, staged.partitions)
            registered[0] += len(staged.partitions)
        crash_point("after_partitions")
        self.store.write_text(self._applied_path(manifest.seq), manifest.run_id, overwrite=True)
        crash_point("after_applied_marker")
        self.store.delete(self.staging_dir(manifest.run_id))
