"""The loader's local file system: Hadoop's, with permissions set through Java instead of a `chmod`
process, for a local Spark only; the modes it leaves are Hadoop's own."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from loader.runtime.spark_session import DRIVER_CLASS_PATH, LOCAL_FILE_SYSTEM, local_file_system_conf

JARS = ["/jars/spark-avro_2.13-4.0.0.jar", "/jars/loader-4.0.0/tableloader-0123abcd.jar"]


def test_a_local_spark_with_the_loaders_jar_takes_it_on_the_driver_class_path() -> None:
    assert local_file_system_conf("local[2]", False, JARS, "") == {
        DRIVER_CLASS_PATH: "/jars/loader-4.0.0/tableloader-0123abcd.jar",
        "spark.hadoop.fs.file.impl": LOCAL_FILE_SYSTEM,
    }
    # A class path of the settings' own is kept, after the loader's jar.
    assert local_file_system_conf("local[*]", False, JARS, "/opt/x.jar")[DRIVER_CLASS_PATH] == (
        f"/jars/loader-4.0.0/tableloader-0123abcd.jar{os.pathsep}/opt/x.jar"
    )


def test_a_cluster_spark_submit_or_no_loader_jar_keep_hadoops_own() -> None:
    assert local_file_system_conf("spark://master:7077", False, JARS, "") == {}
    assert local_file_system_conf("yarn", False, JARS, "") == {}
    assert local_file_system_conf(None, False, JARS, "") == {}
    assert local_file_system_conf("local[2]", True, JARS, "") == {}  # spark-submit's class path rules
    assert local_file_system_conf("local[2]", False, JARS[:1], "") == {}


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _modes_left_by(fs: Any, jvm: Any, root: Path) -> dict[str, int]:
    """What `fs` leaves: a directory it made, a file it created (and the file's checksum file), and a
    file and a directory it set modes on (a sticky directory among them, which Java cannot set)."""
    hadoop = jvm.org.apache.hadoop.fs
    fs.mkdirs(hadoop.Path(f"file://{root}/made/deeper"))
    fs.create(hadoop.Path(f"file://{root}/made/deeper/file")).close()
    modes = {}
    for name, mode in (("0750", 0o750), ("0604", 0o604), ("0000", 0o000), ("1777", 0o1777)):
        target = root / f"set-{name}"
        target.mkdir()
        fs.setPermission(hadoop.Path(f"file://{target}"), hadoop.permission.FsPermission(mode))
        modes[f"set {name}"] = _mode(target)
        target.chmod(0o700)  # so that the test's tmp_path can be removed
    for relative in ("made", "made/deeper", "made/deeper/file", "made/deeper/.file.crc"):
        modes[relative] = _mode(root / relative)
    return modes


def test_the_loaders_local_file_system_leaves_the_modes_hadoops_does(
    spark: SparkSession, tmp_path: Path
) -> None:
    jvm = spark._jvm
    assert jvm is not None
    conf = spark._jsc.hadoopConfiguration()  # type: ignore[union-attr]
    ours = jvm.org.apache.hadoop.fs.FileSystem.get(jvm.java.net.URI("file:///"), conf)
    assert ours.getClass().getName() == LOCAL_FILE_SYSTEM  # what the loader's session reads and writes with
    hadoops = jvm.org.apache.hadoop.fs.LocalFileSystem()
    hadoops.initialize(jvm.java.net.URI("file:///"), conf)
    (tmp_path / "ours").mkdir()
    (tmp_path / "hadoops").mkdir()
    left = _modes_left_by(ours, jvm, tmp_path / "ours")
    assert left == _modes_left_by(hadoops, jvm, tmp_path / "hadoops")
    assert left == {
        "set 0750": 0o750,
        "set 0604": 0o604,
        "set 0000": 0o000,
        "set 1777": 0o1777,
        "made": 0o755,
        "made/deeper": 0o755,
        "made/deeper/file": 0o644,
        "made/deeper/.file.crc": 0o644,
    }
