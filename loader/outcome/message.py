"""The one line a failed run ends with: the dependency and its address, the cause, what was committed,
and what to do next (docs/loader.md, "When something fails", lists them all)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from loader.outcome.cause import Dependency, Failure, Places


@dataclass(frozen=True)
class Committed:
    """What a failed run left committed: nothing of its own; other topics' records (a topic failed, the
    rest loaded); its commit, whose partitions were not all registered yet; or its tables' own commits."""

    others: bool = False
    unregistered: int | None = None  # set: the run's (or an earlier run's) commit is not complete
    # The run's tables committed its rows themselves (Iceberg snapshots that name their offsets), and the
    # run stopped before its manifest.
    in_tables: bool = False

    def describe(self) -> str:
        if self.in_tables:
            return (
                "the loaded tables' own commits stay (each names the offsets it holds): the next run loads "
                "the rest and nothing twice"
            )
        if self.unregistered:
            return (
                f"committed; {self.unregistered} partition(s) not yet registered; the next run registers them"
            )
        if self.unregistered is not None:  # no partition to register (Iceberg's tables commit themselves)
            return "committed; the commit's last steps did not finish; the next run finishes them"
        if self.others:
            return "the other topics were committed; the failed topics' offsets did not move"
        return "nothing was committed, no offset moved"


def where(dependency: Dependency, places: Places, path: str | None = None) -> str:
    """The dependency and its address, as the run's settings name it."""
    if dependency is Dependency.KAFKA:
        return f"Kafka at {places.bootstrap_servers}"
    if dependency is Dependency.REGISTRY:
        return f"the schema registry at {places.registry_url}"
    if dependency is Dependency.METASTORE:
        if places.metastore_uri:
            return f"the Hive metastore at {places.metastore_uri}"
        return f"the embedded Hive metastore of {places.warehouse}"
    if dependency is Dependency.STATE:
        return f"the state file {path}" if path else f"the state directory {places.state_location}"
    if dependency is Dependency.OBJECT_STORE:
        bucket = f", bucket {places.bucket}" if places.bucket else ""
        return f"the object store at {places.object_store}{bucket}"
    return f"the warehouse {places.warehouse}"


def what_to_do(failure: Failure) -> str:
    dependency, cause = failure.dependency, failure.cause
    if cause == "no space left on device":
        return "free or add space on that file system, then run again"
    if dependency is Dependency.STATE:
        return state_file_remedy(failure)
    if cause == "authentication failed":
        return "check the loader's credentials for it, then run again"
    if cause == "bucket not found":
        return (
            "check the bucket in the settings (state-dir, the catalog's warehouse) and on the store, "
            "then run again"
        )
    if cause == "credentials refused":
        return (
            "check the store's keys (s3-access-key-file and s3-secret-key-file, or those the catalog "
            "vends), then run again"
        )
    if cause == "permission denied":
        return "give the loader's user access to it, then run again"
    if dependency is Dependency.KAFKA:
        return "check that the brokers run and answer from this host, then run again"
    if dependency is Dependency.REGISTRY:
        return "check that the registry runs and answers from this host, then run again"
    if dependency is Dependency.METASTORE:
        return "check that the metastore service runs and answers from this host, then run again"
    if dependency is Dependency.OBJECT_STORE:
        return "check that the object store runs and answers from this host, then run again"
    return "check that the warehouse's file system is there and writable, then run again"


def state_file_remedy(failure: Failure) -> str:
    """What to do with a damaged file of the state directory (see docs/loader.md, "A damaged state
    file")."""
    name = posixpath.basename(failure.path or "")
    crc = f".{name}.crc" if name else "its .crc file"
    if failure.cause == "checksum mismatch":
        return (
            f"the file changed after the loader wrote it (its checksum, in {crc} beside it, does not match): "
            f"restore {name or 'it'} from a backup with its {crc}, or without one; "
            'see "A damaged state file" in docs/loader.md'
        )
    return (
        f"the file is not a manifest the loader wrote: restore {name or 'it'} from a backup "
        f"(with its {crc}, or without one); "
        'see "A damaged state file" in docs/loader.md'
    )


def failure_line(failure: Failure, places: Places, committed: Committed) -> str:
    """`<dependency> <address>: <cause> (<detail>); <what was committed>; <what to do>`."""
    return (
        f"{where(failure.dependency, places, failure.path)}: {failure.cause} ({failure.detail}); "
        f"{committed.describe()}; {what_to_do(failure)}"
    )
