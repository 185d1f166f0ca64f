"""Server-side render time of the registry's page with a large registry: `python benchmarks/ui_bench.py`.

Fills a fresh database with 1,000 subjects x 20 versions (each version adds a defaulted field to a
25-field record, so the newest has 44 fields), loaded in one transaction through ``registry import``'s
code (registering 20,000 versions one by one would only measure the write path), then renders pages
through the Flask app in this process, the same app ``registry serve`` runs, and prints the median and
95th percentile of each page's time from request to finished HTML (no network, no browser).

"First view" pages are subjects never shown before in the process (their schemas are parsed on the way);
the others repeat a page, as people do, and find parsed schemas in the process's cache. A table row is
the median and p95 over ``--rounds`` requests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from registry.api import create_app  # noqa: E402
from registry.compatibility import parse_schema  # noqa: E402
from registry.config import RegistryConfig  # noqa: E402
from registry.service.schemas import identity_hash  # noqa: E402
from registry.storage import backup, migrate  # noqa: E402
from registry.storage.db import Database  # noqa: E402

BASE_FIELDS = 25
TARGET_MS = 200.0


def schema(subject: int, version: int) -> dict[str, Any]:
    """Version ``version`` of subject ``subject``: a realistic record with nested and logical types."""
    fields: list[dict[str, Any]] = [
        {"name": "id", "type": "long", "doc": "Unique id."},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}, "doc": "Event time."},
        {
            "name": "user",
            "type": {
                "type": "record",
                "name": f"User{subject}",
                "fields": [
                    {"name": "name", "type": "string"},
                    {"name": "email", "type": ["null", "string"], "default": None},
                ],
            },
        },
        {"name": "tags", "type": {"type": "array", "items": "string"}, "default": []},
    ]
    fields += [
        {"name": f"f{i}", "type": ["null", "string"], "default": None, "doc": f"Field {i}."}
        for i in range(BASE_FIELDS - len(fields))
    ]
    fields += [{"name": f"added_{v}", "type": "int", "default": v} for v in range(2, version + 1)]
    return {"type": "record", "name": f"Event{subject}", "namespace": "com.example.bench", "fields": fields}


def backup_document(subjects: int, versions: int) -> dict[str, Any]:
    """A ``registry export`` document of the whole registry (ids and hashes as the registry makes them)."""
    documents: list[dict[str, Any]] = []
    subject_rows: list[dict[str, Any]] = []
    next_id = 1
    for s in range(subjects):
        rows = []
        for v in range(1, versions + 1):
            text = json.dumps(schema(s, v))
            parsed = parse_schema(text)
            documents.append(
                {
                    "id": next_id,
                    "schema_type": "AVRO",
                    "schema": text,
                    "references": [],
                    "identity_hash": identity_hash(parsed, "AVRO", ()),
                    "fingerprint": parsed.fingerprint,
                }
            )
            rows.append({"version": v, "schema_id": next_id, "deleted": False})
            next_id += 1
        subject_rows.append(
            {
                "name": f"bench.topic-{s:04d}-value",
                "compatibility": None,
                "mode": None,
                "last_version": versions,
                "versions": rows,
            }
        )
    return {
        "format": backup.FORMAT,
        "format_version": 1,  # the first format, which every later registry still imports
        "config": {"compatibility": None, "mode": None},
        "schemas": documents,
        "subjects": subject_rows,
    }


def timed(get: Callable[[str], Any], paths: list[str]) -> list[float]:
    """Milliseconds per request, each checked to have rendered a page."""
    out = []
    for path in paths:
        started = time.perf_counter()
        answer = get(path)
        elapsed = (time.perf_counter() - started) * 1000
        assert answer.status_code == 200, (path, answer.status_code, answer.get_data(as_text=True)[:300])
        out.append(elapsed)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--subjects", type=int, default=1000)
    parser.add_argument("--versions", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=50, help="Requests per page kind.")
    parser.add_argument("--database-url", default=None, help="An empty database (default: temp SQLite).")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ui-bench-") as workdir:
        url = args.database_url or f"sqlite:///{Path(workdir) / 'registry.db'}"
        migrate.upgrade(url)
        started = time.perf_counter()
        document = backup_document(args.subjects, args.versions)
        database = Database(url)
        counts = backup.import_registry(database, document)
        database.dispose()
        print(
            f"filled {counts['subjects']} subjects x {args.versions} versions "
            f"({counts['versions']} versions) in {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
        )
        app = create_app(RegistryConfig(database_url=url))
        client = app.test_client()
        rounds = args.rounds
        n = args.subjects
        last_page = -(-n // 50)
        name = "bench.topic-{:04d}-value".format
        newest, older = args.versions, min(5, args.versions)
        client.get("/ui/")  # imports templates and warms the connection pool, as a running server has
        scenarios: list[tuple[str, list[str]]] = [
            (f"subject list, first page (50 of {n:,})", ["/ui/"] * rounds),
            ("subject list, last page", [f"/ui/?page={last_page}"] * rounds),
            ("subject list, substring search", [f"/ui/?q=topic-{i % 100:02d}" for i in range(rounds)]),
            ("subject list, soft-deleted shown", ["/ui/?deleted=on"] * rounds),
            (
                "subject list, search in schemas (a field of every subject)",
                [f"/ui/?q=added_{2 + i % (args.versions - 1)}" for i in range(rounds)],
            ),
            ("subject list, filtered by level, newest first", ["/ui/?level=BACKWARD&sort=recent"] * rounds),
            (
                f"subject page, first view ({args.versions} versions)",
                [f"/ui/subjects/{name(i)}" for i in range(rounds)],
            ),
            ("subject page, again", [f"/ui/subjects/{name(0)}"] * rounds),
            ("subject page, an older version", [f"/ui/subjects/{name(0)}?version={older}"] * rounds),
            ("diff, newest against the one before", [f"/ui/subjects/{name(1)}/diff"] * rounds),
            (
                f"diff, version 1 against {newest}",
                [f"/ui/subjects/{name(2)}/diff?old=1&new={newest}"] * rounds,
            ),
            ("schema by id", [f"/ui/schemas/{i * args.versions + 1}" for i in range(rounds)]),
        ]
        print(f"| page | median ms | p95 ms | under {TARGET_MS:.0f} ms |")
        print("| --- | ---: | ---: | :---: |")
        for label, paths in scenarios:
            times = timed(client.get, paths)
            median = statistics.median(times)
            p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]
            print(f"| {label} | {median:.1f} | {p95:.1f} | {'yes' if p95 < TARGET_MS else 'no'} |")
        app.extensions["registry"].db.dispose()


if __name__ == "__main__":
    main()
