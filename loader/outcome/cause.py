"""Which dependency of a run failed, and why in plain words, decided from an exception's chain alone.

The chain (`loader.outcome.chain`) gives each exception's class name and message; nothing here talks to
anything. A cause is named only when a link of the chain says it (a class, an errno's text): a chain that
names no known cause is a failure of no known dependency (`classify` gives None), and the run reports it
as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from loader.outcome.chain import Link


class Dependency(StrEnum):
    KAFKA = "kafka"
    REGISTRY = "registry"
    METASTORE = "metastore"
    WAREHOUSE = "warehouse"
    STATE = "state"  # a file of the loader's state directory: a commit manifest, its marker, the lock
    OBJECT_STORE = "object store"  # an S3-compatible store of the tables' files (and the state, under REST)


@dataclass(frozen=True)
class Places:
    """Where each dependency of a run is, as its settings name it."""

    bootstrap_servers: str
    registry_url: str
    metastore_uri: str | None
    warehouse: str
    state_location: str
    # The object store the tables' files are on (Iceberg's under a REST catalog), as the settings name
    # it: its endpoint (`AWS S3` when the SDK's own), and the state directory's bucket on it, if any.
    object_store: str | None = None
    bucket: str | None = None


@dataclass(frozen=True)
class Failure:
    """A dependency that failed: which, the cause in plain words, the message that says so (its class's
    short name and first line) and the file it names, if it names one."""

    dependency: Dependency
    cause: str
    detail: str
    path: str | None = None


# (cause in plain words, class names that mean it, message fragments that mean it), first match wins
# over the chain's innermost link first: the innermost exception is the closest to what happened.
_CAUSES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("no space left on device", (), ("no space left on device", "disk quota exceeded")),
    ("checksum mismatch", ("ChecksumException",), ("checksum error",)),
    ("unreadable JSON", ("JSONDecodeError",), ()),
    (
        "authentication failed",
        ("SaslAuthenticationException", "AuthenticationException", "SslAuthenticationException"),
        ("authentication failed",),
    ),
    # An object store's refusals (the AWS SDK's S3 errors): a bucket it does not have, keys it does not
    # take; before "permission denied", which S3 also says of a forbidden key.
    ("bucket not found", ("NoSuchBucketException",), ("the specified bucket does not exist",)),
    (
        "credentials refused",
        (),
        (
            "the aws access key id you provided does not exist",
            "the request signature we calculated does not match",
            "invalidaccesskeyid",
            "signaturedoesnotmatch",
        ),
    ),
    (
        "permission denied",
        ("AccessControlException", "PermissionError", "AuthorizationException"),
        ("permission denied", "access denied (service: s3"),
    ),
    ("connection refused", ("ConnectException", "ConnectionRefusedError"), ("connection refused",)),
    ("host not found", ("UnknownHostException",), ("name or service not known", "nodename nor servname")),
    (
        "timed out",
        ("TimeoutException", "SocketTimeoutException", "ReadTimeout", "ConnectTimeout", "TimeoutError"),
        ("timed out", "timeout of ", "timeout expired"),
    ),
    ("file not found", ("FileNotFoundException", "FileNotFoundError"), ()),
    ("read-only file system", (), ("read-only file system",)),
    # A state file whose content the loader cannot read, and no link says more (valid JSON of another shape).
    ("content not a loader manifest", ("DamagedStateFile",), ()),
)

# The loader's own errors that name their dependency.
_LOADER_ERRORS = {
    "KafkaUnavailable": Dependency.KAFKA,
    "KafkaRefused": Dependency.KAFKA,
    "RegistryUnavailable": Dependency.REGISTRY,
    "RegistryRefused": Dependency.REGISTRY,
    "MetastoreUnavailable": Dependency.METASTORE,
    "DamagedStateFile": Dependency.STATE,
}
_KAFKA_CLASSES = ("org.apache.kafka.", "confluent_kafka.", "cimpl.KafkaException")
_METASTORE_CLASSES = ("org.apache.hadoop.hive.metastore.", "org.apache.thrift.", "HiveException")
_METASTORE_WORDS = ("metastore", "meta store")
_REGISTRY_CLASSES = ("requests.",)
_OBJECT_STORE_CLASSES = ("software.amazon.awssdk.", "com.amazonaws.", "org.apache.hadoop.fs.s3a.")
# A file a message names: a URI of a file system, or an absolute path after a space, a quote or a colon.
_PATH = re.compile(r"(?:^|(?<=[\s'\"(=]))((?:file|hdfs|s3a|gs|abfss?|wasbs?):/[^\s'\",;)]*|/[^\s'\",;:)]+)")
# Causes of a file system: they are the warehouse's (or the state directory's), whoever hit them.
_STORAGE_CAUSES = ("no space left on device", "read-only file system", "checksum mismatch")


def classify(chain: Sequence[Link], places: Places) -> Failure | None:
    """The failed dependency and its cause, or None when the chain names no known cause of a known
    dependency (a bug, a record the loader cannot take)."""
    found = _cause(chain)
    if found is None:
        return None
    cause, link = found
    path = _path(chain)
    dependency = _dependency(chain, cause, path, places)
    if dependency is None:
        return None
    return Failure(dependency, cause, _detail(link), path)


def shared_by_every_topic(failure: Failure) -> bool:
    """Whether the failure is one every topic of the run meets alike (a service gone, a full or read-only
    file system), not one of a topic's own table or files: trying topics again one by one only waits for
    it again."""
    if failure.dependency in (
        Dependency.KAFKA, Dependency.REGISTRY, Dependency.METASTORE, Dependency.OBJECT_STORE
    ):  # fmt: skip
        return True
    return failure.cause in ("no space left on device", "read-only file system")


def _cause(chain: Sequence[Link]) -> tuple[str, Link] | None:
    for link in reversed(chain):
        short = link.kind.rsplit(".", 1)[-1]
        text = link.message.lower()
        for cause, classes, words in _CAUSES:
            if short in classes or any(word in text for word in words):
                return cause, link
    return None


def _dependency(chain: Sequence[Link], cause: str, path: str | None, places: Places) -> Dependency | None:
    for link in chain:  # the loader's own error says best what it was doing
        named = _LOADER_ERRORS.get(link.kind.rsplit(".", 1)[-1])
        if named is not None:
            return named
    if places.object_store and _names_the_store(chain, places.object_store):
        return Dependency.OBJECT_STORE
    if cause in _STORAGE_CAUSES or (path and cause in ("file not found", "permission denied")):
        return _storage(path, places)
    for link in reversed(chain):
        if link.kind.startswith(_KAFKA_CLASSES):
            return Dependency.KAFKA
        if link.kind.startswith(_METASTORE_CLASSES) or any(
            word in link.message.lower() for word in _METASTORE_WORDS
        ):
            return Dependency.METASTORE
        if link.kind.startswith(_REGISTRY_CLASSES) and _host(places.registry_url) in link.message:
            return Dependency.REGISTRY
        if _names_brokers(link.message, places.bootstrap_servers):
            return Dependency.KAFKA
    return None


def _names_the_store(chain: Sequence[Link], endpoint: str) -> bool:
    """Whether a link is the store's: an error of the AWS SDK (or S3A's), or one naming its endpoint's
    host and port (the HTTP client's `Connect to http://host:port failed`)."""
    host = _host(endpoint) if "://" in endpoint else ""
    return any(
        link.kind.startswith(_OBJECT_STORE_CLASSES) or (host and host in link.message) for link in chain
    )


def _storage(path: str | None, places: Places) -> Dependency:
    """A file system's failure: the state directory's when the file is under it and the state directory
    is not inside the warehouse (by default it is: then it is the warehouse's file system that failed)."""
    state = _plain(places.state_location).rstrip("/") + "/"
    if path and _plain(path).startswith(state) and not _inside(state, places.warehouse):
        return Dependency.STATE
    return Dependency.WAREHOUSE


def _inside(directory: str, parent: str) -> bool:
    return _plain(directory).startswith(_plain(parent).rstrip("/") + "/")


def _path(chain: Sequence[Link]) -> str | None:
    """The file the chain names, innermost first: a link's own, else the first path in a message."""
    for link in reversed(chain):
        if link.path:
            return link.path
    for link in reversed(chain):
        for line in link.message.splitlines():
            match = None if line.lstrip().startswith("at ") else _PATH.search(line)
            if match and len(match.group(1)) > 1:
                return match.group(1).rstrip(".")
    return None


def _plain(path: str) -> str:
    """`file:/x` and `file:///x` as `/x`."""
    return "/" + path.removeprefix("file:").lstrip("/") if path.startswith("file:") else path


def _host(url: str) -> str:
    return url.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1]


def _names_brokers(message: str, bootstrap_servers: str) -> bool:
    return any(server.strip() and server.strip() in message for server in bootstrap_servers.split(","))


def _detail(link: Link) -> str:
    """The link that says the cause: `IOException: No space left on device`."""
    first = (link.message.splitlines() or [""])[0].strip()
    short = link.kind.rsplit(".", 1)[-1]
    return f"{short}: {first[:300]}" if first else short
