"""The schema types side by side on one registry server: ``registry_bench.py --types``.

For each type (Avro, JSON Schema, Protobuf) the same event (``event_schemas``: 30 fields with a nested
record, each version adding an optional field) is registered 100 times in one subject whose level is
BACKWARD_TRANSITIVE. Then, the types interleaved within each round (their order turned round by round,
so none always runs first), it measures requests/s of:

* ``GET /schemas/ids/{id}`` (wrk);
* re-registering the latest known version (wrk);
* registering a new version (a Python client: each of ``--types-clients`` threads registers
  ``--types-new`` versions in turn into a subject of its own, each adding a field, so every request is a
  schema never seen and compatible with the latest; BACKWARD, as the main scenario's new schemas);
* ``POST /compatibility/subjects/{s}/versions/latest?verbose=true`` with version 101 (wrk);
* ``POST /compatibility/subjects/{s}/versions?verbose=true``, the same against all 100 versions (wrk).

The table gives each type's median over the rounds and its rate relative to Avro's.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

from event_schemas import TYPES, event_schema

__all__ = ["run_types"]

VERSIONS = 100
CT = "application/vnd.schemaregistry.v1+json"
POST_LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "%s"
wrk.body = [==[%s]==]
"""

#: (label, the target's fraction of Avro's rate the issue asks for)
OPERATIONS: tuple[tuple[str, float], ...] = (
    ("`GET /schemas/ids/{id}`", 0.5),
    ("`POST /subjects/{s}/versions` (already registered)", 0.5),
    ("`POST /subjects/{s}/versions` (new version)", 0.2),
    ("`POST /compatibility/subjects/{s}/versions/latest?verbose=true`", 0.2),
    (f"`POST /compatibility/subjects/{{s}}/versions?verbose=true` ({VERSIONS} versions)", 0.2),
)

Request = Callable[..., dict]


def _body(schema_type: str, version: int) -> dict:
    return {"schema": event_schema(schema_type, version), "schemaType": schema_type}


def _prepare(url: str, request: Request) -> dict[str, int]:
    """Registers the 100 versions of each type; returns the id of each type's latest."""
    ids = {}
    for schema_type in TYPES:
        subject = f"types-{schema_type.lower()}-value"
        request(f"{url}/config/{subject}", {"compatibility": "BACKWARD_TRANSITIVE"}, method="PUT")
        for version in range(1, VERSIONS + 1):
            answer = request(f"{url}/subjects/{subject}/versions", _body(schema_type, version))
            ids[schema_type] = answer["id"]
    return ids


def _new_versions(
    url: str, schema_type: str, clients: int, per_client: int, round_no: int
) -> tuple[float, int]:
    """Requests/s of ``clients`` threads each registering ``per_client`` new versions into a subject of
    its own (fresh in each round), and the count of answers other than 200."""
    parsed = urllib.parse.urlsplit(url)
    failures = [0]
    lock = threading.Lock()
    bodies = {
        c: [json.dumps(_body(schema_type, v)) for v in range(1, per_client + 2)] for c in range(clients)
    }

    def client(number: int) -> None:
        subject = f"types-new-{schema_type.lower()}-r{round_no}-c{number}-value"
        connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60)
        headers = {"Content-Type": CT}
        connection.request("PUT", f"/config/{subject}", json.dumps({"compatibility": "BACKWARD"}), headers)
        connection.getresponse().read()
        connection.request("POST", f"/subjects/{subject}/versions", bodies[number][0], headers)
        connection.getresponse().read()
        start_line.wait()
        for body in bodies[number][1:]:
            connection.request("POST", f"/subjects/{subject}/versions", body, headers)
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                with lock:
                    failures[0] += 1
        connection.close()

    start_line = threading.Barrier(clients + 1)
    threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    for thread in threads:
        thread.start()
    start_line.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    return clients * per_client / (time.perf_counter() - start), failures[0]


def run_types(
    url: str,
    args: argparse.Namespace,
    workdir: Path,
    request: Request,
    wrk_rps: Callable[[str, str, str | None], tuple[float, int]],
) -> str:
    """Runs every operation for every type, ``args.repeat`` rounds; returns the markdown table."""
    ids = _prepare(url, request)
    rates: dict[tuple[int, str], list[float]] = {}
    failures = 0
    for round_no in range(args.repeat):
        order = TYPES[round_no % len(TYPES) :] + TYPES[: round_no % len(TYPES)]
        for op in range(len(OPERATIONS)):
            for schema_type in order:
                subject = f"types-{schema_type.lower()}-value"
                latest = json.dumps(_body(schema_type, VERSIONS))
                candidate = json.dumps(_body(schema_type, VERSIONS + 1))
                name = f"{schema_type} {op}"
                if op == 0:
                    rps, bad = wrk_rps(name, f"{url}/schemas/ids/{ids[schema_type]}", None)
                elif op == 1:
                    rps, bad = wrk_rps(name, f"{url}/subjects/{subject}/versions", POST_LUA % (CT, latest))
                elif op == 2:
                    rps, bad = _new_versions(url, schema_type, args.types_clients, args.types_new, round_no)
                else:
                    target = "/versions/latest" if op == 3 else "/versions"
                    target_url = f"{url}/compatibility/subjects/{subject}{target}?verbose=true"
                    rps, bad = wrk_rps(name, target_url, POST_LUA % (CT, candidate))
                rates.setdefault((op, schema_type), []).append(rps)
                failures += bad
                print(f"round {round_no + 1}: {OPERATIONS[op][0]} {schema_type}: {rps:,.0f}/s", flush=True)
    lines = [
        "| operation | AVRO requests/s | JSON requests/s (vs Avro) | PROTOBUF requests/s (vs Avro) "
        "| asked (vs Avro) |",
        "|---|---:|---:|---:|---:|",
    ]
    for op, (label, target) in enumerate(OPERATIONS):
        median = {t: statistics.median(rates[op, t]) for t in TYPES}
        cells = [f"{median['AVRO']:,.0f}"]
        for schema_type in TYPES[1:]:
            cells.append(f"{median[schema_type]:,.0f} ({median[schema_type] / median['AVRO']:.2f})")
        lines.append(f"| {label} | {' | '.join(cells)} | ≥ {target:.1f} |")
    lines.append("")
    lines.append(f"non-2xx answers: {failures}")
    lines.append("")
    lines.append("every round, requests/s:")
    for (op, schema_type), values in sorted(rates.items()):
        lines.append(f"- {OPERATIONS[op][0]} {schema_type}: {', '.join(f'{v:,.0f}' for v in values)}")
    return "\n".join(lines)
