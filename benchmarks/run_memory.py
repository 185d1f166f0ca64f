"""What a `loader run` keeps on its driver's heap, where a run's records could pile up:
`python benchmarks/run_memory.py --scenario many-topics|spanning-hours [--against <another checkout>]`.

Starts its own broker and registry (as `loader_bench.py` does), produces the scenario's topics, and loads
them with one `loader run` process of this checkout, and of `--against`'s into a database of its own, in
that order, both with the default driver (a 1 GiB heap). Each driver JVM writes its garbage collector's
log (`-Xlog:gc`); the table shows per run its seconds, whether it completed, its full collections, and
the heap left after its last collection.

- many-topics: `--topics` (600) topics of `--records` (500) records, each a long and a string of
  `--record-bytes` (4,000) characters: Spark's Kafka source kept the last batch of every topic partition
  read in the past five minutes (benchmarks/JOURNAL.md, "Kafka's pools emptied");
- spanning-hours: `--topics` (32) small topics of `--records` (20,000) page-view events each, their
  timestamps spread over the last `--hours` (144) hours, as a first run over a quiet topic's retention
  finds them: small topics share a query, whose task writes a file per topic and hour
  (benchmarks/JOURNAL.md, "A group's files over days of hours").
"""

from __future__ import annotations

import argparse
import io
import json
import random
import re
import shutil
import signal
import string
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import fastavro

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loader_bench import Bench, RunFailed
from loader_services import (
    REPO_ROOT,
    create_topics,
    encoded_events,
    http,
    kafka_broker,
    produce,
    register_versions,
    registry_server,
)

SCENARIOS = {"many-topics": (600, 500), "spanning-hours": (32, 20_000)}  # default topics, records
BLOB = {
    "type": "record",
    "name": "Blob",
    "fields": [{"name": "id", "type": "long"}, {"name": "payload", "type": "string"}],
}
DISTINCT_VALUES = 5  # per topic; the records go round them
AFTER_COLLECTION = re.compile(r"Pause (Young|Full|Remark).*->(\d+)M\(\d+M\)")


@dataclass
class HeapLog:
    """What a driver's `-Xlog:gc` log says of its heap."""

    full_collections: int
    last_after_mib: int  # what the run left alive, about (a young collection leaves the old regions be)

    @classmethod
    def read(cls, path: Path) -> HeapLog:
        after, full = [], 0
        for line in path.read_text().splitlines():
            match = AFTER_COLLECTION.search(line)
            if match:
                after.append(int(match.group(2)))
                full += match.group(1) == "Full"
        return cls(full, after[-1] if after else 0)


@dataclass
class Run:
    label: str
    seconds: float
    outcome: str
    heap: HeapLog


def blob_values(registry_url: str, topic: str, record_bytes: int, rnd: random.Random) -> list[bytes]:
    """`DISTINCT_VALUES` records in Confluent's wire format, under `<topic>-value` registered now."""
    schema_id = http(f"{registry_url}/subjects/{topic}-value/versions", {"schema": json.dumps(BLOB)})["id"]
    parsed = fastavro.parse_schema(BLOB)
    values = []
    for i in range(DISTINCT_VALUES):
        out = io.BytesIO(b"\0" + schema_id.to_bytes(4, "big"))
        out.seek(0, io.SEEK_END)
        payload = "".join(rnd.choices(string.ascii_letters, k=record_bytes))
        fastavro.schemaless_writer(out, parsed, {"id": i, "payload": payload})
        values.append(out.getvalue())
    return values


def produce_scenario(args: argparse.Namespace, bootstrap: str, registry_url: str, topics: list[str]) -> None:
    create_topics(bootstrap, topics, 1)
    rnd = random.Random(7)
    for i, topic in enumerate(topics):
        if args.scenario == "many-topics":
            produce(bootstrap, topic, blob_values(registry_url, topic, args.record_bytes, rnd), args.records)
        else:
            values = encoded_events(register_versions(registry_url, topic, i), 1_000, 1, i)
            produce(bootstrap, topic, values, args.records, spread_over_ms=args.hours * 3_600_000)


def load_with_gc_log(bench: Bench, label: str, checkout: Path, expected: int, timeout_s: float) -> Run:
    """One `loader run` process of `checkout` over every topic, into a database of its own, its driver
    logging its collections; killed after `timeout_s`."""
    name = label.split()[0]
    gc_log = f"-Xlog:gc:file={bench.workdir}/gc-{name}-%p.log"
    seconds, outcome = float("nan"), "completed"
    try:
        seconds, _, _ = bench.run_process(
            f"memory_{name}",
            r"memory_\d{4}",
            expected,
            code_dir=checkout,
            extra_env={"JAVA_TOOL_OPTIONS": gc_log},
            timeout_s=timeout_s,
        )
    except RunFailed as failed:
        killed = f", killed after {timeout_s:.0f} s" if failed.returncode == -signal.SIGKILL else ""
        outcome = f"failed (exit {failed.returncode}{killed}): {_cause(failed.stderr)}"
    return Run(label, seconds, outcome, HeapLog.read(driver_log(bench.workdir, name)))


def driver_log(workdir: Path, name: str) -> Path:
    """The driver's log: the biggest of the run's JVMs' (Spark's launcher writes a line or two)."""
    return max(workdir.glob(f"gc-{name}-*.log"), key=lambda p: p.stat().st_size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), required=True)
    parser.add_argument("--topics", type=int, help="topics (600 many-topics, 32 spanning-hours)")
    parser.add_argument(
        "--records", type=int, help="records per topic (500 many-topics, 20,000 spanning-hours)"
    )
    parser.add_argument("--record-bytes", type=int, default=4000, help="many-topics: each record's string")
    parser.add_argument("--hours", type=int, default=144, help="spanning-hours: the hours the records span")
    parser.add_argument("--against", type=Path, help="another checkout, loaded after this one")
    parser.add_argument(
        "--timeout", type=float, default=900, help="seconds a run may take before it is killed"
    )
    args = parser.parse_args()
    default_topics, default_records = SCENARIOS[args.scenario]
    args.topics, args.records = args.topics or default_topics, args.records or default_records
    checkouts = {"this checkout": REPO_ROOT}
    if args.against:
        checkouts["other checkout"] = args.against.resolve()
    workdir = Path(tempfile.mkdtemp(prefix="run-memory-"))
    rows = []
    try:
        with kafka_broker(workdir) as bootstrap, registry_server(workdir) as registry_url:
            topics = [f"memory_{i:04d}" for i in range(args.topics)]
            produce_scenario(args, bootstrap, registry_url, topics)
            bench = Bench(bootstrap, registry_url, workdir, REPO_ROOT, None, None)
            for label, checkout in checkouts.items():
                rows.append(
                    load_with_gc_log(bench, label, checkout, args.topics * args.records, args.timeout)
                )
                print(f"  {label}: {rows[-1].outcome}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(
        f"\n{args.scenario}: {args.topics} topics x {args.records} records, one `loader run` process each\n"
    )
    print("| checkout | seconds | outcome | full collections | heap after the last collection (MiB) |")
    print("|---|---:|---|---:|---:|")
    for row in rows:
        seconds = f"{row.seconds:.1f}" if row.outcome == "completed" else "-"
        print(
            f"| {row.label} | {seconds} | {row.outcome} | {row.heap.full_collections} "
            f"| {row.heap.last_after_mib} |"
        )


def _cause(stderr: str) -> str:
    """The first line of a failed run's error output that names an error (an OutOfMemoryError, most
    likely), or its last line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    named = [line for line in lines if "OutOfMemoryError" in line] or [
        line for line in lines if "Error" in line
    ]
    return (named or lines[-1:] or ["no output"])[0][:160]


if __name__ == "__main__":
    main()
