"""A local driver started as a `loader run` starts it, in a process of its own: its web UI listens on
loopback only (`_web_ui_on_loopback` in loader/spark_session.py), read off the kernel's socket tables, and
it leaves nothing in the temporary directory when its process ends."""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from loader.spark_session import LOCAL_IP_ENV

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[2]

DRIVER = """
import ipaddress, json, sys
from pathlib import Path
from loader.spark_session import SparkSettings, build_spark_session

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
port = spark.sparkContext._jsc.sc().ui().get().boundPort()
print(json.dumps({"port": port, "listening": listening(port)}))
jvm = spark.sparkContext._gateway.proc
spark.stop()
jvm.stdin.close()  # the driver JVM exits when Python's end of its pipe closes; its shutdown hooks first
jvm.wait(timeout=120)
"""


def run_driver(tmp_path: Path, **env: str) -> dict[str, Any]:
    """Starts the driver with its temporary directory (Python's and Java's) in `tmp_path/tmp`."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    environment = {k: v for k, v in os.environ.items() if k != LOCAL_IP_ENV} | env
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(tmp_path / "warehouse"), str(temporary)],
        cwd=tmp_path,
        env=environment | {"PYTHONPATH": str(REPO_ROOT), "TMPDIR": str(temporary)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["port"] > 0 and seen["listening"], seen
    seen["left in the temporary directory"] = sorted(p.name for p in temporary.iterdir())
    return seen


def loopback(address: str) -> bool:
    parsed = ipaddress.ip_address(address)
    mapped = getattr(parsed, "ipv4_mapped", None)
    return parsed.is_loopback or (mapped is not None and mapped.is_loopback)


def test_a_local_drivers_web_ui_listens_on_loopback_only_and_leaves_no_temporary_files(
    tmp_path: Path,
) -> None:
    seen = run_driver(tmp_path)
    assert all(loopback(a) for a in seen["listening"]), seen
    assert LOCAL_IP_ENV not in os.environ
    # Hive's session resources directory among them (`<tmpdir>/<session id>_resources` by default).
    assert seen["left in the temporary directory"] == [], seen


def test_an_address_the_environment_names_is_kept(tmp_path: Path) -> None:
    seen = run_driver(tmp_path, **{LOCAL_IP_ENV: "0.0.0.0"})
    assert not any(loopback(a) for a in seen["listening"]), seen
