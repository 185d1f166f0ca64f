"""Benchmark of the registry service over loopback: `python benchmarks/registry_bench.py`.

Starts ``registry serve`` (gunicorn, the production server) on a fresh database with the bare ``{}``
endpoint enabled, drives it with ``wrk`` (installed from Debian when missing and running as root), and
prints requests/s and p50/p99 latency for each endpoint next to the bare endpoint on the same server and
worker count: the ceiling of Flask + gunicorn on this machine, so the ratio shows what the registry's own
work costs. ``--types`` measures instead Avro, JSON Schema and Protobuf side by side (``registry_types``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CT = "application/vnd.schemaregistry.v1+json"
SCHEMA = json.dumps(
    {
        "type": "record",
        "name": "PageView",
        "namespace": "com.example",
        "fields": [{"name": "id", "type": "long"}, {"name": "url", "type": "string"}],
    }
)
COMPATIBLE = json.dumps(
    {
        "type": "record",
        "name": "PageView",
        "namespace": "com.example",
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "url", "type": "string"},
            {"name": "referrer", "type": ["null", "string"], "default": None},
        ],
    }
)

POST_LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "%s"
wrk.body = [==[%s]==]
"""
# Every request a schema never seen before: a per-thread field name and counter (BACKWARD-compatible).
NEW_SCHEMA_LUA = """
local threads = 0
function setup(thread) threads = threads + 1; thread:set("tid", threads) end
local n = 0
function request()
  n = n + 1
  local field = string.format("f_%%d_%%d", tid, n)
  local schema = '{\\\\"type\\\\":\\\\"record\\\\",\\\\"name\\\\":\\\\"Bench\\\\",\\\\"fields\\\\":[' ..
    '{\\\\"name\\\\":\\\\"' .. field .. '\\\\",\\\\"type\\\\":\\\\"int\\\\",\\\\"default\\\\":0}]}'
  return wrk.format("POST", nil, {["Content-Type"] = "%s"}, '{"schema": "' .. schema .. '"}')
end
"""


@dataclass
class Result:
    name: str
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ensure_wrk() -> str:
    """Path of wrk, installing Debian's package when it is missing and we may."""
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("wrk not found: installing the Debian package wrk", file=sys.stderr)
        subprocess.run(["apt-get", "install", "-y", "wrk"], check=False, stdout=subprocess.DEVNULL)
        found = shutil.which("wrk")
    if not found:
        sys.exit("wrk is required: install the Debian package 'wrk' (apt-get install -y wrk)")
    return found


def request(url: str, body: dict | None = None, method: str | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": CT})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def start_server(
    args: argparse.Namespace, workdir: Path, extra: tuple[str, ...] = ()
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    database_url = args.database_url or f"sqlite:///{workdir / 'bench.db'}"
    command = [
        sys.executable,
        "-m",
        "registry.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--database-url",
        database_url,
        "--workers",
        str(args.workers),
        "--threads",
        str(args.threads),
        "--enable-bench-endpoint",
        *extra,
    ]
    path = [str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
    log = (workdir / "server.log").open("wb")
    proc = subprocess.Popen(command, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            request(url + "/")
            return proc, url
        except OSError:
            if proc.poll() is not None:
                sys.exit((workdir / "server.log").read_text())
            time.sleep(0.1)
    proc.terminate()
    sys.exit("the registry did not start")


def to_ms(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()  # type: ignore[union-attr]
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def run_wrk(
    wrk: str,
    name: str,
    url: str,
    args: argparse.Namespace,
    script: str | None,
    workdir: Path,
    headers: tuple[str, ...] = (),
) -> Result:
    command = [
        wrk,
        "-t",
        str(args.wrk_threads),
        "-c",
        str(args.connections),
        "-d",
        f"{args.duration}s",
        "--timeout",
        f"{args.wrk_timeout}s",
        "--latency",
        *[part for header in headers for part in ("-H", header)],
    ]
    if script is not None:
        path = workdir / f"{re.sub(r'[^a-z]+', '_', name.lower())}.lua"
        path.write_text(script)
        command += ["-s", str(path)]
    out = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = to_ms(re.search(r"\s50%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    p99 = to_ms(re.search(r"\s99%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    socket_errors = re.search(r"Socket errors:.*", out)
    if socket_errors:
        print(f"{name}: {socket_errors.group(0)}", file=sys.stderr)
    return Result(name, rps, p50, p99, int(errors.group(1)) if errors else 0)


def run_with_auth(wrk: str, args: argparse.Namespace, workdir: Path, schema_id: int) -> list[Result]:
    """The bare endpoint and a read, on the same database with authentication on: what checking
    credentials on every request costs once argon2's verification is remembered."""
    import base64

    from registry.auth.permissions import Role
    from registry.auth.users import add_user
    from registry.storage.db import Database

    database_url = args.database_url or f"sqlite:///{workdir / 'bench.db'}"
    database = Database(database_url)
    add_user(database, "bench", Role.READ, password="bench-password")
    database.dispose()
    header = "Authorization: Basic " + base64.b64encode(b"bench:bench-password").decode()
    proc, url = start_server(args, workdir, ("--auth",))
    try:
        scenarios = [
            ("bare endpoint {}, --auth + Basic", f"{url}/_bench/empty"),
            ("GET /schemas/ids/{id}, --auth + Basic", f"{url}/schemas/ids/{schema_id}"),
        ]
        results = []
        for name, target in scenarios:
            runs = sorted(
                (run_wrk(wrk, name, target, args, None, workdir, (header,)) for _ in range(args.repeat)),
                key=lambda r: r.rps,
            )
            results.append(runs[len(runs) // 2])
        return results
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def run_types_scenario(wrk: str, args: argparse.Namespace, workdir: Path) -> None:
    from registry_types import run_types

    def wrk_rps(name: str, target: str, script: str | None) -> tuple[float, int]:
        result = run_wrk(wrk, name, target, args, script, workdir)
        return result.rps, result.errors

    proc, url = start_server(args, workdir)
    try:
        table = run_types(url, args, workdir, request, wrk_rps)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    print(
        f"\nregistry serve --workers {args.workers} --threads {args.threads}; wrk -t{args.wrk_threads} "
        f"-c{args.connections} -d{args.duration}s; new versions: {args.types_clients} clients x "
        f"{args.types_new}; median of {args.repeat} rounds, the types interleaved; "
        f"{os.cpu_count()} CPUs, loopback\n"
    )
    print(table)
    shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker")
    parser.add_argument("--duration", type=int, default=10, help="seconds per scenario")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument(
        "--wrk-timeout", type=int, default=30, help="seconds before wrk gives a request up (its own: 2)"
    )
    parser.add_argument("--database-url", default=None, help="default: a fresh SQLite file")
    parser.add_argument("--repeat", type=int, default=1, help="runs per scenario; the median run is shown")
    parser.add_argument(
        "--with-auth",
        action="store_true",
        help="then the read endpoints again with --auth and Basic credentials",
    )
    parser.add_argument(
        "--types",
        action="store_true",
        help="instead: the three schema types side by side (rounds: --repeat; registry_types.py)",
    )
    parser.add_argument("--types-clients", type=int, default=8, help="--types: threads registering")
    parser.add_argument("--types-new", type=int, default=20, help="--types: new versions per thread")
    args = parser.parse_args()

    wrk = ensure_wrk()
    workdir = Path(tempfile.mkdtemp(prefix="registry-bench-"))
    if args.types:
        run_types_scenario(wrk, args, workdir)
        return
    proc, url = start_server(args, workdir)
    try:
        schema_id = request(f"{url}/subjects/bench-value/versions", {"schema": SCHEMA})["id"]
        request(f"{url}/config/bench-new-value", {"compatibility": "BACKWARD"}, method="PUT")
        # The new-schema run goes last: the thousands of versions it writes must not slow the others.
        scenarios = [
            ("bare Flask endpoint {} (ceiling)", f"{url}/_bench/empty", None),
            ("GET /schemas/ids/{id}", f"{url}/schemas/ids/{schema_id}", None),
            (
                "POST /subjects/{s}/versions (already registered)",
                f"{url}/subjects/bench-value/versions",
                POST_LUA % (CT, json.dumps({"schema": SCHEMA})),
            ),
            (
                "POST /compatibility/subjects/{s}/versions/latest",
                f"{url}/compatibility/subjects/bench-value/versions/latest",
                POST_LUA % (CT, json.dumps({"schema": COMPATIBLE})),
            ),
            (
                "POST /subjects/{s}/versions (new schema)",
                f"{url}/subjects/bench-new-value/versions",
                NEW_SCHEMA_LUA % CT,
            ),
        ]
        results = []
        for name, target, script in scenarios:
            runs = sorted(
                (run_wrk(wrk, name, target, args, script, workdir) for _ in range(args.repeat)),
                key=lambda r: r.rps,
            )
            results.append(runs[len(runs) // 2])
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    if args.with_auth:
        results += run_with_auth(wrk, args, workdir, schema_id)
    ceiling = results[0].rps
    print(
        f"\nregistry serve --workers {args.workers} --threads {args.threads}; wrk -t{args.wrk_threads} "
        f"-c{args.connections} -d{args.duration}s, median of {args.repeat} runs; "
        f"{os.cpu_count()} CPUs, loopback\n"
    )
    print("| endpoint | requests/s | p50 ms | p99 ms | vs ceiling | non-2xx |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in results:
        ratio = f"{r.rps / ceiling:.0%}"
        print(f"| {r.name} | {r.rps:,.0f} | {r.p50_ms:.2f} | {r.p99_ms:.2f} | {ratio} | {r.errors} |")
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
