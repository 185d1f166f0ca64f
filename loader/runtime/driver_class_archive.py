"""A class data sharing archive of the driver JVM, kept between runs.

Every cron run starts a fresh driver JVM, which loads and verifies tens of thousands of Spark, Hive and
Hadoop classes before the run reads its first record: a run with nothing new spends most of its time
there. The JVM can write the classes it loaded into an archive when it exits
(`-XX:ArchiveClassesAtExit`) and map them from that archive at the next start (`-XX:SharedArchiveFile`),
already parsed and verified. Measured in benchmarks/JOURNAL.md ("The driver JVM's class archive").

The JVM only writes the archive as it exits, after the run (15 to 40 s on 2 CPUs, about 200 MB), so
the first run with an archive directory pays that once, and each later run starts from the archive.
The archive is named after everything its validity depends on (the Java installation, Spark's jars and
the JVM options), so a Java or Spark upgrade writes a new one instead of starting without sharing; the
JVM itself checks again and, on any mismatch, starts without the archive rather than failing.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

# Environment variables that add to the driver's class path (spark-class and load-spark-env.sh read them):
# configuration directories, and a class path of directories and jars.
CONF_DIR_ENV = ("SPARK_CONF_DIR", "HADOOP_CONF_DIR", "YARN_CONF_DIR")
DIST_CLASSPATH_ENV = "SPARK_DIST_CLASSPATH"
CLASSPATH_ENV = (*CONF_DIR_ENV, DIST_CLASSPATH_ENV)
# How long to wait for the JVM to write the archive after the run: 15 to 40 s on 2 CPUs.
DUMP_TIMEOUT_S = 300.0
# A pending archive this old was left by a run killed while its JVM wrote it.
ABANDONED_AFTER_S = 24 * 3600.0
# Another run's pending archive written to within this long: a JVM is writing it (see `being_written`).
WRITING_WITHIN_S = DUMP_TIMEOUT_S
# An archive no run has used for this long was written for a Java, Spark or setting since replaced.
UNUSED_AFTER_S = 7 * 24 * 3600.0


def archive_key(parts: Iterable[str]) -> str:
    """A short digest of what an archive's validity depends on (one string each)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def java_installation() -> str:
    """The Java that spark-class starts (JAVA_HOME's, else the one on PATH), with its size and time,
    so that an upgrade of the JDK in place changes the key too."""
    home = os.environ.get("JAVA_HOME")
    java = Path(home, "bin", "java") if home else Path(shutil.which("java") or "java")
    try:
        real = java.resolve()
        stat = real.stat()
        return f"{real}:{stat.st_size}:{stat.st_mtime_ns}"
    except OSError:
        return str(java)


def spark_home() -> Path:
    import pyspark

    return Path(os.environ.get("SPARK_HOME") or Path(pyspark.__file__).parent)


def spark_installation() -> str:
    """This pyspark's version and jars directory: the driver's class path."""
    import pyspark

    home = spark_home()
    jars = sorted(path.name for path in (home / "jars").glob("*.jar"))
    return f"{pyspark.__version__}:{home}:{','.join(jars)}"


def class_path_directories(environ: Mapping[str, str], home: Path) -> list[tuple[str, Path]]:
    """The directories spark-class puts on the driver's class path, each with the variable naming it:
    Spark's configuration directory (`<SPARK_HOME>/conf` by default), Hadoop's and YARN's, and the
    directories of SPARK_DIST_CLASSPATH."""
    defaults = {"SPARK_CONF_DIR": str(home / "conf")}
    found = [
        (name, Path(value)) for name in CONF_DIR_ENV if (value := environ.get(name) or defaults.get(name))
    ]
    for entry in environ.get(DIST_CLASSPATH_ENV, "").split(os.pathsep):
        if entry and not entry.endswith("*") and not entry.endswith(".jar"):
            found.append((DIST_CLASSPATH_ENV, Path(entry)))
    return found


def archive_refused_by(directories: Iterable[tuple[str, Path]]) -> str | None:
    """Why the JVM cannot write an archive of this class path, or None. A class path that holds a
    directory with files in it (a `core-site.xml` in HADOOP_CONF_DIR, say) cannot be archived: the JVM
    writes nothing at exit ("non-empty directory"), every run would try again and pay for it."""
    for name, directory in directories:
        if directory.is_dir() and any(directory.iterdir()):
            return f"the driver's class path holds the non-empty directory {directory} ({name})"
    return None


@dataclass(frozen=True)
class ClassArchive:
    """The archive for one driver configuration in `directory`, and this process's part in it: use it
    when it is there, else have the JVM write it at exit under a name of this process's own, moved into
    place once the JVM is gone (two first runs side by side each write their own; the last move wins,
    and both archives are whole)."""

    directory: Path
    key: str
    pid: int = field(default_factory=os.getpid)

    @property
    def path(self) -> Path:
        return self.directory / f"driver-{self.key}.jsa"

    @property
    def pending(self) -> Path:
        return self.directory / f"driver-{self.key}.jsa.{self.pid}.pending"

    @property
    def dump_log(self) -> Path:
        """What the JVM said while writing the archive (classes it skipped, or why it wrote none)."""
        return self.directory / f"driver-{self.key}.log"

    def java_options(self, writing: bool) -> tuple[str, ...]:
        """The JVM's options to map the archive, or (`writing`) to write it at exit."""
        if not writing:
            return (f"-XX:SharedArchiveFile={self.path}",)
        # The JVM names every class it cannot archive (hundreds: signed jars, classes that failed to
        # verify) as a warning on stdout; they go to the log instead, beside the archive: one file, not
        # rotated (`filecount=0`), its name quoted (a path may hold `,` or `=`, the option's separators).
        return (
            f"-XX:ArchiveClassesAtExit={self.pending}",
            "-Xlog:cds*=off:stdout",
            f'-Xlog:cds*=warning:file="{self.dump_log}"::filecount=0',
        )

    def missing(self) -> bool:
        return not self.path.is_file()

    def being_written(self, now: float | None = None) -> bool:
        """Whether another run's JVM is writing this archive: a pending archive of the same key, not this
        process's, written to within `WRITING_WITHIN_S`. A run killed before its end leaves its JVM behind,
        which exits as the run's process is gone and writes its archive then, a pending one that nobody
        moves into place; a run that wrote one more beside it would take another 15 to 40 s of a CPU, and
        runs killed one after another (a test's kill at every step, a deployment killed by its timeout)
        each did, side by side with the next run."""
        now = time.time() if now is None else now
        for pending in self.directory.glob(f"driver-{self.key}.jsa.*.pending"):
            if pending == self.pending:
                continue
            try:
                if now - pending.stat().st_mtime < WRITING_WITHIN_S:
                    return True
            except OSError:
                continue  # moved into place or removed meanwhile
        return False

    def prepare(self) -> None:
        """Makes the directory, marks this configuration's archive as used (its modification time), and
        removes what no run will use again: pending archives of runs killed while their JVM wrote them,
        and other configurations' archives no run has used for a week (left by a Java or Spark upgrade,
        or a changed setting: about 200 MB each)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):  # not written yet, or another user's
            os.utime(self.path)
        now = time.time()
        stale: list[tuple[Path, float, Path | None]] = [
            (left, ABANDONED_AFTER_S, None) for left in self.directory.glob("driver-*.jsa.*.pending")
        ]
        stale += [
            (other, UNUSED_AFTER_S, other.with_suffix(".log"))
            for other in self.directory.glob("driver-*.jsa")
            if other != self.path
        ]
        for path, after, log in stale:
            try:
                if now - path.stat().st_mtime > after:
                    path.unlink()
                    if log is not None:
                        log.unlink(missing_ok=True)
            except OSError:
                pass  # another run removed or finished it

    def keep_written(self) -> str | None:
        """After the JVM exited: the archive it wrote moved into place. A message when it wrote none."""
        if not self.pending.is_file() or self.pending.stat().st_size == 0:
            self.pending.unlink(missing_ok=True)
            return f"the driver JVM wrote no class archive (see {self.dump_log}); the next run tries again"
        try:
            os.replace(self.pending, self.path)
        except OSError as exc:
            return f"the driver JVM's class archive could not be kept ({exc}); the next run tries again"
        return None


def say_refused(reason: str) -> None:
    """Says on stderr why this run starts without an archive (see `archive_refused_by`); the run goes on,
    only slower to start."""
    print(f"note: no driver class archive: {reason}, which Java cannot archive", file=sys.stderr)


def usable_archive(directory: Path, key: str) -> ClassArchive | None:
    """The archive in `directory`, or None (said on stderr) when the directory cannot be made or
    cleaned: the run goes on without the archive, which only makes it start slower."""
    archive = ClassArchive(directory, key)
    try:
        archive.prepare()
    except OSError as exc:
        print(
            f"note: no driver class archive in {directory} ({exc}); the JVM starts without", file=sys.stderr
        )
        return None
    return archive


def keep_at_exit(archive: ClassArchive, jvm: subprocess.Popen[bytes] | None) -> None:
    """At the end of this process, lets the JVM exit (it stops when its stdin closes), waits while it
    writes the archive, and moves the archive into place. The run's own work is done by then: its
    report is printed and its exit status fixed, only the process's end waits."""

    def finish() -> None:
        if jvm is None:
            return
        try:
            if jvm.stdin is not None:
                jvm.stdin.close()
            jvm.wait(timeout=DUMP_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            jvm.kill()
            archive.pending.unlink(missing_ok=True)
            return
        problem = archive.keep_written()
        if problem:
            print(f"note: {problem}", file=sys.stderr)

    atexit.register(finish)
