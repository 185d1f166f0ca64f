"""The driver JVM's class archive: its key, the JVM options that write or map it, and how a written
archive is moved into place (the JVM's own part is in test_run_process.py)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from loader.runtime.driver_class_archive import (
    ABANDONED_AFTER_S,
    UNUSED_AFTER_S,
    WRITING_WITHIN_S,
    ClassArchive,
    archive_key,
    archive_refused_by,
    class_path_directories,
    usable_archive,
)
from loader.runtime.spark_session import SparkSettings, class_archive_for


def test_the_key_changes_with_any_part_and_only_then() -> None:
    parts = ["/jdk/bin/java:1:2", "4.0.0:/spark:a.jar,b.jar", "SPARK_CONF_DIR=", "-XX:TieredStopAtLevel=1"]
    assert archive_key(parts) == archive_key(list(parts))
    for i in range(len(parts)):
        changed = [*parts[:i], parts[i] + "x", *parts[i + 1 :]]
        assert archive_key(changed) != archive_key(parts)
    # Parts are kept apart: moving a character from one part to the next is another key.
    assert archive_key(["ab", "c"]) != archive_key(["a", "bc"])


def test_a_missing_archive_is_written_under_a_name_of_this_process_and_its_log_kept_off_stdout(
    tmp_path: Path,
) -> None:
    archive = ClassArchive(tmp_path, "k1", pid=4242)
    assert archive.missing()
    options = archive.java_options(writing=True)
    assert options[0] == f"-XX:ArchiveClassesAtExit={tmp_path / 'driver-k1.jsa.4242.pending'}"
    assert "-Xlog:cds*=off:stdout" in options
    assert f'-Xlog:cds*=warning:file="{tmp_path / "driver-k1.log"}"::filecount=0' in options
    assert archive.java_options(writing=False) == (f"-XX:SharedArchiveFile={tmp_path / 'driver-k1.jsa'}",)


def test_the_written_archive_is_moved_into_place_whole(tmp_path: Path) -> None:
    archive = ClassArchive(tmp_path, "k1", pid=4242)
    archive.pending.write_bytes(b"archive")
    assert archive.keep_written() is None
    assert archive.path.read_bytes() == b"archive"
    assert not archive.pending.exists()
    assert not archive.missing()


def test_no_archive_written_is_said_and_the_next_run_tries_again(tmp_path: Path) -> None:
    archive = ClassArchive(tmp_path, "k1", pid=4242)
    problem = archive.keep_written()
    assert problem is not None and "wrote no class archive" in problem and str(archive.dump_log) in problem
    archive.pending.write_bytes(b"")  # a JVM that failed while writing
    assert archive.keep_written() is not None
    assert not archive.pending.exists() and archive.missing()


def test_pending_archives_of_killed_runs_are_removed_after_a_day(tmp_path: Path) -> None:
    old = ClassArchive(tmp_path, "k1", pid=1).pending
    recent = ClassArchive(tmp_path, "k1", pid=2).pending
    kept = ClassArchive(tmp_path, "k1", pid=3).path
    for path in (old, recent, kept):
        path.write_bytes(b"x")
    then = time.time() - ABANDONED_AFTER_S - 60
    os.utime(old, (then, then))
    os.utime(kept, (then, then))
    ClassArchive(tmp_path, "k1", pid=4).prepare()
    assert not old.exists()
    assert recent.exists()  # perhaps a JVM still writing it
    assert kept.exists()  # an archive in use is never removed


def test_an_archive_another_run_s_jvm_is_writing_is_not_written_again(tmp_path: Path) -> None:
    archive = ClassArchive(tmp_path, "k1", pid=4)
    assert not archive.being_written()  # nothing pending: this run writes it
    archive.pending.write_bytes(b"x")
    assert not archive.being_written()  # its own pending archive is not another run's
    other_key = ClassArchive(tmp_path, "k2", pid=5).pending
    other_key.write_bytes(b"x")
    assert not archive.being_written()  # another configuration's archive is another file
    killed = ClassArchive(tmp_path, "k1", pid=6).pending  # a killed run's JVM, writing at its exit
    killed.write_bytes(b"x")
    assert archive.being_written()
    # Written to long enough ago: that JVM is done or gone, and a run writes the archive again.
    assert not archive.being_written(now=killed.stat().st_mtime + WRITING_WITHIN_S + 1)
    killed.unlink()  # moved into place (or removed) meanwhile
    assert not archive.being_written()


def test_archives_of_other_configurations_unused_for_a_week_are_removed(tmp_path: Path) -> None:
    used = ClassArchive(tmp_path, "k1")
    unused, lately_used = ClassArchive(tmp_path, "k2"), ClassArchive(tmp_path, "k3")
    for archive in (used, unused, lately_used):
        archive.path.write_bytes(b"x")
        archive.dump_log.write_text("")
    week_ago = time.time() - UNUSED_AFTER_S - 60
    for archive in (used, unused):
        os.utime(archive.path, (week_ago, week_ago))
    used.prepare()
    assert not unused.path.exists() and not unused.dump_log.exists()
    assert lately_used.path.exists() and lately_used.dump_log.exists()
    # The archive a run uses is marked as used: no other configuration's run removes it a week on.
    assert used.path.exists() and time.time() - used.path.stat().st_mtime < 60


def test_prepare_makes_the_directory(tmp_path: Path) -> None:
    ClassArchive(tmp_path / "a" / "b", "k1").prepare()
    assert (tmp_path / "a" / "b").is_dir()


def test_a_directory_that_cannot_be_made_leaves_the_run_without_archive_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    assert usable_archive(blocker / "jvm", "k1") is None
    assert f"no driver class archive in {blocker / 'jvm'}" in capsys.readouterr().err
    assert usable_archive(tmp_path / "jvm", "k1") == ClassArchive(tmp_path / "jvm", "k1")


def test_a_class_path_with_files_in_a_directory_is_not_archived_and_the_run_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spark_home = tmp_path / "spark"
    (spark_home / "conf").mkdir(parents=True)  # empty: Spark's own default, archived fine
    hadoop = tmp_path / "hadoop-conf"
    hadoop.mkdir()
    environ = {
        "HADOOP_CONF_DIR": str(hadoop),
        "SPARK_DIST_CLASSPATH": f"/opt/h/*:/opt/h/x.jar:{tmp_path / 'nothing'}",
    }
    directories = class_path_directories(environ, spark_home)
    assert directories == [
        ("SPARK_CONF_DIR", spark_home / "conf"),
        ("HADOOP_CONF_DIR", hadoop),
        ("SPARK_DIST_CLASSPATH", tmp_path / "nothing"),
    ]
    assert archive_refused_by(directories) is None
    (hadoop / "core-site.xml").write_text("<configuration/>")
    refused = archive_refused_by(class_path_directories(environ, spark_home))
    assert refused == f"the driver's class path holds the non-empty directory {hadoop} (HADOOP_CONF_DIR)"
    with pytest.MonkeyPatch.context() as env:
        env.delenv("SPARK_HOME", raising=False)
        env.delenv("SPARK_DIST_CLASSPATH", raising=False)
        env.setenv("HADOOP_CONF_DIR", str(hadoop))
        settings = SparkSettings(str(tmp_path / "warehouse"), class_archive_dir=tmp_path / "jvm")
        assert class_archive_for(settings) is None
    assert f"no driver class archive: {refused}, which Java cannot archive" in capsys.readouterr().err
    assert not (tmp_path / "jvm").exists()  # nothing written for an archive that cannot be
    conf = tmp_path / "conf"
    (conf / "log4j2.properties").parent.mkdir()
    (conf / "log4j2.properties").write_text("")
    assert "(SPARK_CONF_DIR)" in (
        archive_refused_by(class_path_directories({"SPARK_CONF_DIR": str(conf)}, spark_home)) or ""
    )
