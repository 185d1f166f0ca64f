"""A local driver started as a `loader run` starts it, in a process of its own: its web UI listens on
loopback only (`_web_ui_on_loopback` in loader/runtime/spark_session.py), read off the kernel's socket
tables; it leaves nothing in the temporary directory when its process ends; and its embedded metastore makes a
database's and a table's directories without a shell process (`EMBEDDED_METASTORE_CONF`), seen by an
`ls` first on the driver's PATH that notes each call."""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from loader.runtime.spark_session import LOCAL_IP_ENV
from tests.fixtures.processes import children
from tests.tiers import FULL

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

REPO_ROOT = Path(__file__).resolve().parents[2]

DRIVER = """
import ipaddress, json, sys
from pathlib import Path
from loader.runtime.spark_session import SparkSettings, build_spark_session

def listening(port):
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            address, port_hex = fields[1].split(":")
            if fields[3] == "0A" and int(port_hex, 16) == port:  # 0A: listening
                raw = bytes.fromhex(address)  # 32-bit words, each in the host's (little-endian) order
                words = [raw[i:i + 4][::-1] for i in range(0, len(raw), 4)]
                found.append(str(ipaddress.ip_address(b"".join(words))))
    return found

warehouse, temporary = sys.argv[1:]
spark = build_spark_session(SparkSettings(
    warehouse_dir=warehouse, master="local[1]", extra_conf={"spark.ui.port": "0"},
    driver_java_options=(f"-Djava.io.tmpdir={temporary}",)))
spark.sql("SHOW DATABASES").collect()  # the Hive client is made on first use
with open(Path(temporary).parent / "ls.log", "a") as log:
    log.write("made:\\n")  # the calls before this line are the session's own start
spark.sql("CREATE DATABASE lake")
spark.sql("CREATE TABLE lake.events (id BIGINT, dt STRING) USING orc PARTITIONED BY (dt)")
port = spark.sparkContext._jsc.sc().ui().get().boundPort()
print(json.dumps({"port": port, "listening": listening(port)}))
jvm = spark.sparkContext._gateway.proc
spark.stop()
jvm.stdin.close()  # the driver JVM exits when Python's end of its pipe closes; its shutdown hooks first
jvm.wait(timeout=120)
"""


def driver_environment(temporary: Path) -> dict[str, str]:
    """This checkout's loader, Python's temporary files in `temporary`, and no `SPARK_LOCAL_IP` from the
    test's own environment."""
    environment = {k: v for k, v in os.environ.items() if k != LOCAL_IP_ENV}
    return environment | {"PYTHONPATH": str(REPO_ROOT), "TMPDIR": str(temporary)}


def driver_command(script: str, tmp_path: Path, temporary: Path) -> list[str]:
    """`script` run by this Python with its arguments: the warehouse in `tmp_path` and `temporary`."""
    return [sys.executable, "-c", script, str(tmp_path / "warehouse"), str(temporary)]


def run_driver(tmp_path: Path, **env: str) -> dict[str, Any]:
    """Starts the driver with its temporary directory (Python's and Java's) in `tmp_path/tmp`, and an
    `ls` on its PATH that notes its arguments in `tmp_path/ls.log` before it runs the real one."""
    temporary = tmp_path / "tmp"
    temporary.mkdir(exist_ok=True)
    shims = tmp_path / "bin"
    shims.mkdir()
    log = tmp_path / "ls.log"
    (shims / "ls").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{shutil.which("ls")}" "$@"\n')
    (shims / "ls").chmod(0o755)
    environment = driver_environment(temporary) | env
    environment["PATH"] = f"{shims}{os.pathsep}{environment.get('PATH', '')}"
    done = subprocess.run(
        driver_command(DRIVER, tmp_path, temporary),
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["port"] > 0 and seen["listening"], seen
    seen["left in the temporary directory"] = sorted(p.name for p in temporary.iterdir())
    seen["ls after the session started"] = log.read_text().split("made:\n", 1)[1].splitlines()
    return seen


def loopback(address: str) -> bool:
    parsed = ipaddress.ip_address(address)
    mapped = getattr(parsed, "ipv4_mapped", None)
    return parsed.is_loopback or (mapped is not None and mapped.is_loopback)


def a_local_driver_s_own_start(seen: dict[str, Any], tmp_path: Path) -> None:
    """Its web UI on loopback alone. Its embedded metastore makes a database and a table without a shell
    process: Hive 2.3 would copy the parent directory's group and mode onto each new one with Hadoop's
    shell commands, which read the directory's with an `ls -ld` process (three per table on a local
    disk). Nothing left in the temporary directory."""
    assert all(loopback(a) for a in seen["listening"]), seen
    assert LOCAL_IP_ENV not in os.environ
    assert seen["ls after the session started"] == [], seen
    assert (tmp_path / "warehouse" / "lake.db" / "events").is_dir()
    # Hive's session resources directory among them (`<tmpdir>/<session id>_resources` by default).
    assert seen["left in the temporary directory"] == [], seen


@FULL
def test_a_local_driver_listens_on_loopback_only_makes_its_tables_without_a_shell_and_leaves_no_files(
    tmp_path: Path,
) -> None:
    """A driver with nothing before it. The default tier's keeper:
    test_a_driver_killed_while_its_jvm_starts_leaves_nothing_once_the_next_one_has_started, whose next
    driver is this one's and asserts all of this."""
    a_local_driver_s_own_start(run_driver(tmp_path), tmp_path)


def test_an_address_the_environment_names_is_kept(tmp_path: Path) -> None:
    seen = run_driver(tmp_path, **{LOCAL_IP_ENV: "0.0.0.0"})
    assert not any(loopback(a) for a in seen["listening"]), seen


KILLED_WHILE_THE_JVM_STARTS = """
import sys
from loader.runtime.spark_session import SparkSettings, build_spark_session
build_spark_session(SparkSettings(warehouse_dir=sys.argv[1], master="local[1]",
    driver_java_options=(f"-Djava.io.tmpdir={sys.argv[2]}",)))
"""


def running(pid: int) -> bool:
    """Whether the process is there and not a zombie (one whose parent has not reaped it yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_driver_killed_while_its_jvm_starts_leaves_nothing_once_the_next_one_has_started(
    tmp_path: Path,
) -> None:
    """PySpark waits for its JVM with a connection directory (`tmp*`) made by Python's `tempfile`: a
    driver killed then left it in the temporary directory for good. It is made in the driver's scratch
    directory, which the next driver's start removes (see `loader.runtime.driver_scratch`). That next
    driver is a local driver's whole start: its web UI on loopback, its tables made without a shell, and
    nothing left when it ends (`a_local_driver_s_own_start`; the full tier's test above, alone)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    starting = subprocess.Popen(
        driver_command(KILLED_WHILE_THE_JVM_STARTS, tmp_path, temporary),
        cwd=tmp_path,
        env=driver_environment(temporary),
    )
    deadline = time.monotonic() + 120
    while not any(p.name.startswith("tmp") for p in temporary.rglob("*")):  # PySpark is waiting
        assert starting.poll() is None and time.monotonic() < deadline, "PySpark never waited for its JVM"
        time.sleep(0.01)
    jvms = children(starting.pid)
    starting.kill()
    assert starting.wait(timeout=30) == -signal.SIGKILL
    for jvm in jvms:  # it ends when its end of the pipe to the killed driver closes
        while running(jvm):
            assert time.monotonic() < deadline, f"the killed driver's JVM {jvm} did not end"
            time.sleep(0.1)

    a_local_driver_s_own_start(run_driver(tmp_path), tmp_path)


JVM_KILLED = """
import os, signal, sys
from loader.runtime.spark_session import SparkSettings, build_spark_session
spark = build_spark_session(SparkSettings(warehouse_dir=sys.argv[1], master="local[1]"))
spark.range(10).count()  # the block manager in use
print(spark._jvm.java.lang.System.getProperty("java.io.tmpdir"))
jvm = spark.sparkContext._gateway.proc
os.kill(jvm.pid, signal.SIGKILL)
jvm.wait(timeout=60)
"""


def test_a_driver_whose_jvm_is_killed_leaves_nothing_in_the_temporary_directory(tmp_path: Path) -> None:
    """The OOM killer takes the driver's JVM, the biggest process: its shutdown hooks never run. Spark's
    block manager and temporary directories, and native libraries, were made in the JVM's temporary
    directory (the system's) and stayed there; the JVM's temporary directory is now the driver's scratch
    directory, which the driver removes when it exits (or the next driver, when it was killed too)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    done = subprocess.run(
        driver_command(JVM_KILLED, tmp_path, temporary),
        cwd=tmp_path,
        env=driver_environment(temporary),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    jvm_temporary = Path(done.stdout.strip().splitlines()[-1])
    assert jvm_temporary.parent == temporary and jvm_temporary.name.startswith("loader-spark-driver-")
    assert sorted(p.name for p in temporary.iterdir()) == []
