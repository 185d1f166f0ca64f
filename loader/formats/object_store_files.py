"""The loader's state files on an object store (S3 or an S3-compatible store), written through Iceberg's
own S3FileIO: the SDK the tables' files are written with, at the same endpoint, region, path style and
keys (`loader.formats.iceberg_catalogs.ObjectStore`; without keys, the AWS SDK's own chain).

An object store has no directories and no rename, and only a REST catalog's run keeps its state there
(`loader.config` refuses the others): the catalog's lock table (`loader.formats.catalog_lock`) is then what
keeps two runs apart, so nothing here has to be atomic beyond what one PUT is. A file appears whole or
not at all, so `publish` is one write; a "directory" is a key prefix; `move` copies and then deletes, and
may be redone (`loader.planning.commit_protocol` moves only the small audit record of an Iceberg run here).
The operations are those of `loader.planning.state_store.StateFiles`.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

from pyspark.sql import SparkSession

from loader.formats.iceberg_catalogs import S3_FILE_IO, IcebergCatalog, ObjectStore, file_io_properties
from loader.runtime.java_values import java_class, java_string_map

# The schemes S3FileIO reads and writes (one store, three spellings of Hadoop's history).
S3_SCHEMES = ("s3://", "s3a://", "s3n://")


def kept_on_object_store(state_location: str, catalog: IcebergCatalog) -> bool:
    """Whether the state directory is written here rather than through Hadoop's file system: on S3, for a
    run of a REST catalog, whose lock the catalog keeps. (A warehouse on `s3a://` under a metastore stays
    with Hadoop's S3A file system and the state directory's own lock file.)"""
    return catalog.keeps_locations and state_location.startswith(S3_SCHEMES)


@dataclass
class ObjectStoreFiles:
    """A tree of state files under `root` (`s3://bucket/prefix`) on the store `store` describes."""

    spark: SparkSession
    root: str
    store: ObjectStore | None = None
    _io: Any = field(init=False, repr=False)

    # Creating a file that exists is refused only after a look: two writers at once both succeed.
    atomic_create: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if not self.root.startswith(S3_SCHEMES):
            raise ValueError(f"{self.root} is not on an S3 object store ({', '.join(S3_SCHEMES)})")
        self._io = java_class(self.spark, "org.apache.iceberg.CatalogUtil").loadFileIO(
            S3_FILE_IO,
            java_string_map(self.spark, file_io_properties(self.store)),
            self.spark._jsc.hadoopConfiguration(),
        )

    def path(self, relative: str) -> str:
        return self.root.rstrip("/") + "/" + relative.lstrip("/")

    def file_system(self, location: str) -> str:
        """The bucket `location` is in, as `s3://bucket`: a "move" never leaves it."""
        scheme, _, rest = location.partition("://")
        return f"{scheme}://{rest.split('/', 1)[0]}"

    def qualified(self, location: str) -> str:
        return location.rstrip("/")

    def _infos(self, prefix: str) -> list[tuple[str, int, int]]:
        """(location, bytes, created millis) of every object whose key starts with `prefix`."""
        found = []
        iterator = self._io.listPrefix(prefix).iterator()
        while iterator.hasNext():
            info = iterator.next()
            found.append((str(info.location()), int(info.size()), int(info.createdAtMillis())))
        return found

    def _below(self, location: str) -> list[tuple[str, int, int]]:
        return self._infos(location.rstrip("/") + "/")

    def exists(self, location: str) -> bool:
        """A file, or a "directory": a prefix some object's key starts with."""
        return bool(self._io.newInputFile(location).exists()) or bool(self._below(location))

    def mkdirs(self, location: str) -> None:
        """Nothing: a prefix exists once an object is under it."""

    def list(self, location: str) -> list[str]:
        """Full paths of the entries directly under `location` (empty when there are none)."""
        base = location.rstrip("/") + "/"
        return sorted({base + found[len(base) :].split("/", 1)[0] for found, _, _ in self._infos(base)})

    def list_files(self, location: str) -> list[str]:
        return [path for path, _ in self.file_sizes(location)]

    def file_sizes(self, location: str) -> list[tuple[str, int]]:
        """(path, bytes) of every file below `location`, recursively (names starting `_` or `.` left out)."""
        return sorted(
            (path, size)
            for path, size, _ in self._below(location)
            if not posixpath.basename(path).startswith(("_", "."))
        )

    def modified_at(self, location: str) -> datetime:
        """When the file was written, or the newest file below a "directory" was (UTC)."""
        exact = [created for path, _, created in self._infos(location) if path == location]
        below = [created for _, _, created in self._below(location)]
        if not exact and not below:
            raise FileNotFoundError(location)
        return datetime.fromtimestamp(max(exact or below) / 1000, UTC)

    def _read(self, location: str) -> bytes:
        stream = self._io.newInputFile(location).newStream()
        try:
            return bytes(stream.readAllBytes())
        finally:
            stream.close()

    def _write(self, location: str, data: bytes, overwrite: bool) -> None:
        output = self._io.newOutputFile(location)
        stream = output.createOrOverwrite() if overwrite else output.create()
        try:
            stream.write(bytearray(data))
        finally:
            stream.close()

    def read_text(self, location: str) -> str:
        return self._read(location).decode("utf-8")

    def write_text(self, location: str, text: str, overwrite: bool = False) -> None:
        """Writes a whole file (one PUT, when the stream closes); without overwrite it fails when the file
        exists, a check made before the write (`atomic_create` is False)."""
        self._write(location, text.encode("utf-8"), overwrite)

    def publish(self, location: str, text: str) -> None:
        """Makes a file appear whole or not at all: what one PUT does."""
        self.write_text(location, text, overwrite=True)

    def move(self, source: str, target: str) -> bool:
        """Copies a file and deletes the source; False when it was already moved (or copied by an attempt
        that stopped before the delete: the target wins), so it can be redone."""
        if not self._io.newInputFile(source).exists():
            if self._io.newInputFile(target).exists():
                return False
            raise FileNotFoundError(f"neither {source} nor {target} exists: a committed file is missing")
        if self._io.newInputFile(target).exists():
            self._io.deleteFile(source)
            return False
        self._write(target, self._read(source), overwrite=True)
        self._io.deleteFile(source)
        return True

    def delete(self, location: str, recursive: bool = True) -> None:
        self._io.deleteFile(location)
        if recursive:
            self._io.deletePrefix(location.rstrip("/") + "/")
