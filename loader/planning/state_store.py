"""Files of the loader's state: the few operations the commit protocol, the run lock, the audit records
and `loader status` need (`StateFiles`), and their implementation through Hadoop's FileSystem API, for a
state directory on a local disk or HDFS (`StateStore`). A state directory on an object store is written
through Iceberg's S3FileIO instead (`loader.formats.object_store_files`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import ClassVar, Protocol

from pyspark.sql import SparkSession


class StateFiles(Protocol):
    """A tree of state files under a root. `atomic_create` says whether `write_text` without overwrite
    is an atomic create (two writers at once: one fails), which a run lock kept in these files needs."""

    atomic_create: ClassVar[bool]

    def path(self, relative: str) -> str: ...
    def file_system(self, location: str) -> str: ...
    def qualified(self, location: str) -> str: ...
    def exists(self, location: str) -> bool: ...
    def mkdirs(self, location: str) -> None: ...
    def list(self, location: str) -> list[str]: ...
    def list_files(self, location: str) -> list[str]: ...
    def file_sizes(self, location: str) -> list[tuple[str, int]]: ...
    def modified_at(self, location: str) -> datetime: ...
    def read_text(self, location: str) -> str: ...
    def write_text(self, location: str, text: str, overwrite: bool = False) -> None: ...
    def publish(self, location: str, text: str) -> None: ...
    def move(self, source: str, target: str) -> bool: ...
    def delete(self, location: str, recursive: bool = True) -> None: ...


@dataclass
class StateStore:
    """A directory tree under `root` on a Hadoop file system (a local disk or HDFS)."""

    spark: SparkSession
    root: str

    atomic_create: ClassVar[bool] = True  # HDFS and local disks create a file exclusively

    def __post_init__(self) -> None:
        jvm = self.spark._jvm
        self._Path = jvm.org.apache.hadoop.fs.Path
        self._conf = self.spark._jsc.hadoopConfiguration()
        self._fs = self._Path(self.root).getFileSystem(self._conf)

    def path(self, relative: str) -> str:
        return self.root.rstrip("/") + "/" + relative.lstrip("/")

    def _p(self, location: str):  # type: ignore[no-untyped-def]
        return self._Path(location)

    def _fs_for(self, location: str):  # type: ignore[no-untyped-def]
        return self._p(location).getFileSystem(self._conf)

    def file_system(self, location: str) -> str:
        """The file system `location` is on, as Hadoop names it (`file:///`, `hdfs://nn:8020`, ...): two
        locations can be renamed into each other only when they are on the same one."""
        return str(self._fs_for(location).getUri().toString())

    def qualified(self, location: str) -> str:
        """`location` as its file system names it (`/x` -> `file:/x`, `hdfs://nn/x` -> `hdfs://nn:8020/x`),
        so that two spellings of one place compare equal."""
        return str(self._fs_for(location).makeQualified(self._p(location)).toString())

    def exists(self, location: str) -> bool:
        return bool(self._fs_for(location).exists(self._p(location)))

    def mkdirs(self, location: str) -> None:
        self._fs_for(location).mkdirs(self._p(location))

    def list(self, location: str) -> list[str]:
        """Full paths of the entries directly under `location` (empty when it does not exist)."""
        if not self.exists(location):
            return []
        return sorted(
            str(s.getPath().toString()) for s in self._fs_for(location).listStatus(self._p(location))
        )

    def list_files(self, location: str) -> list[str]:
        """Every data file below `location`, recursively (Spark's `_SUCCESS` and hidden files left out)."""
        return [path for path, _ in self.file_sizes(location)]

    def file_sizes(self, location: str) -> list[tuple[str, int]]:
        """(path, bytes) of every data file below `location`, as `list_files` finds them."""
        if not self.exists(location):
            return []
        found = []
        iterator = self._fs_for(location).listFiles(self._p(location), True)
        while iterator.hasNext():
            status = iterator.next()
            path = status.getPath()
            if not path.getName().startswith(("_", ".")):
                found.append((str(path.toString()), int(status.getLen())))
        return sorted(found)

    def modified_at(self, location: str) -> datetime:
        """When the file or directory was last modified, as its file system says (UTC)."""
        millis = self._fs_for(location).getFileStatus(self._p(location)).getModificationTime()
        return datetime.fromtimestamp(millis / 1000, UTC)

    def read_text(self, location: str) -> str:
        """The whole file, as `write_text` wrote it. One JVM call for all its bytes: a manifest holds a
        line per topic partition and file, and a call per line cost a run about 60 microseconds each,
        a second a read at a thousand topics."""
        stream = self._fs_for(location).open(self._p(location))
        try:
            return bytes(stream.readAllBytes()).decode("utf-8")
        finally:
            stream.close()

    def write_text(self, location: str, text: str, overwrite: bool = False) -> None:
        """Writes a whole file; with overwrite=False it fails when the file exists (an atomic create on
        HDFS and local disks)."""
        stream = self._fs_for(location).create(self._p(location), overwrite)
        try:
            stream.write(bytearray(text.encode("utf-8")))
            stream.hsync() if hasattr(stream, "hsync") else stream.flush()
        finally:
            stream.close()

    def publish(self, location: str, text: str) -> None:
        """Makes a file appear whole or not at all: written under a temporary name, then renamed."""
        temporary = f"{location}.tmp"
        self.write_text(temporary, text, overwrite=True)
        if not self._fs_for(location).rename(self._p(temporary), self._p(location)):
            raise OSError(f"could not rename {temporary} to {location}")

    def move(self, source: str, target: str) -> bool:
        """Moves a file; False when it was already moved (source gone, target there), so it can be redone."""
        fs = self._fs_for(source)
        if not fs.exists(self._p(source)):
            if fs.exists(self._p(target)):
                return False
            raise FileNotFoundError(f"neither {source} nor {target} exists: a committed file is missing")
        fs.mkdirs(self._p(target).getParent())
        if fs.exists(self._p(target)):
            # A previous attempt copied it without removing the source (object stores): the target wins.
            fs.delete(self._p(source), False)
            return False
        if not fs.rename(self._p(source), self._p(target)):
            raise OSError(f"could not move {source} to {target}")
        return True

    def delete(self, location: str, recursive: bool = True) -> None:
        fs = self._fs_for(location)
        if fs.exists(self._p(location)):
            fs.delete(self._p(location), recursive)
