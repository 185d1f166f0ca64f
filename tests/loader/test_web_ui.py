"""A local driver's web UI listens on loopback only (`_web_ui_on_loopback` in loader/spark_session.py): a
driver started in a process of its own, as a `loader run` starts it, and its UI's listening sockets read
off the kernel's tables."""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys
from pathlib import Path

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

spark = build_spark_session(SparkSettings(
    warehouse_dir=sys.argv[1], master="local[1]", extra_conf={"spark.ui.port": "0"}))
port = spark.sparkContext._jsc.sc().ui().get().boundPort()
print(json.dumps({"port": port, "listening": listening(port)}))
spark.stop()
"""


def ui_addresses(tmp_path: Path, **env: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    environment = {k: v for k, v in os.environ.items() if k != LOCAL_IP_ENV} | env
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(tmp_path / "warehouse")],
        cwd=tmp_path,
        env=environment | {"PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["port"] > 0 and seen["listening"], seen
    return [ipaddress.ip_address(address) for address in seen["listening"]]


def loopback(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def test_a_local_drivers_web_ui_listens_on_loopback_only(tmp_path: Path) -> None:
    addresses = ui_addresses(tmp_path)
    assert all(loopback(a) for a in addresses), addresses
    assert LOCAL_IP_ENV not in os.environ


def test_an_address_the_environment_names_is_kept(tmp_path: Path) -> None:
    addresses = ui_addresses(tmp_path, **{LOCAL_IP_ENV: "0.0.0.0"})
    assert not any(loopback(a) for a in addresses), addresses
