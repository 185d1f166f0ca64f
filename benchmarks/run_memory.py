"""What a run of many small topics keeps on the driver's heap: `python benchmarks/kafka_pools_memory.py
[--topics 600] [--records 500] [--record-bytes 4000] [--against <another checkout>]`.

Starts its own broker and registry (as `loader_bench.py` does), produces `--topics` topics of `--records`
records each (a long and a string of `--record-bytes` characters), and loads them with one `loader run`
process of this checkout, and of `--against`'s into a database of its own, in that order. Each driver JVM
writes its garbage collector's log (`-Xlog:gc`); the table shows per run its seconds, whether it
completed, its full collections, and the heap left after its last collection. Spark's Kafka source used
to keep the last batch of every topic partition read in the past five minutes (benchmarks/README.md,
"Kafka's pools emptied"); the default driver's heap is 1 GiB.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import re
import shutil
import string
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import fastavro

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loader_bench import Bench, RunFailed
from loader_services import REPO_ROOT, create_topics, http, kafka_broker, produce, registry_server

SCHEMA = {
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


def encoded_values(registry_url: str, topic: str, record_bytes: int, rnd: random.Random) -> list[bytes]:
    """`DISTINCT_VALUES` records in Confluent's wire format, under `<topic>-value` registered now."""
    schema_id = http(f"{registry_url}/subjects/{topic}-value/versions", {"schema": json.dumps(SCHEMA)})["id"]
    parsed = fastavro.parse_schema(SCHEMA)
    values = []
    for i in range(DISTINCT_VALUES):
        out = io.BytesIO(b"\0" + schema_id.to_bytes(4, "big"))
        out.seek(0, io.SEEK_END)
        payload = "".join(rnd.choices(string.ascii_letters, k=record_bytes))
        fastavro.schemaless_writer(out, parsed, {"id": i, "payload": payload})
        values.append(out.getvalue())
    return values


@dataclass
class Run:
    label: str
    seconds: float
    outcome: str
    heap: HeapLog


def load_with_gc_log(bench: Bench, label: str, checkout: Path, expected: int) -> Run:
    """One `loader run` process of `checkout` over every topic, into a database of its own, its driver
    logging its collections."""
    name = label.split()[0]
    gc_log = f"-Xlog:gc:file={bench.workdir}/gc-{name}-%p.log"
    seconds, outcome = float("nan"), "completed"
    try:
        seconds, _, _ = bench.run_process(
            f"pools_{name}",
            r"pools_\d{4}",
            expected,
            code_dir=checkout,
            extra_env={"JAVA_TOOL_OPTIONS": gc_log},
        )
    except RunFailed as failed:
        outcome = f"failed (exit {failed.returncode}): {_cause(failed.stderr)}"
    return Run(label, seconds, outcome, HeapLog.read(driver_log(bench.workdir, name)))


def driver_log(workdir: Path, name: str) -> Path:
    """The driver's log: the biggest of the run's JVMs' (Spark's launcher writes a line or two)."""
    return max(workdir.glob(f"gc-{name}-*.log"), key=lambda p: p.stat().st_size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", type=int, default=600)
    parser.add_argument("--records", type=int, default=500, help="records per topic")
    parser.add_argument("--record-bytes", type=int, default=4000, help="characters of each record's string")
    parser.add_argument("--against", type=Path, help="another checkout, loaded after this one")
    args = parser.parse_args()
    checkouts = {"this checkout": REPO_ROOT}
    if args.against:
        checkouts["other checkout"] = args.against.resolve()
    workdir = Path(tempfile.mkdtemp(prefix="kafka-pools-"))
    rows = []
    try:
        with kafka_broker(workdir) as bootstrap, registry_server(workdir) as registry_url:
            topics = [f"pools_{i:04d}" for i in range(args.topics)]
            create_topics(bootstrap, topics, 1)
            rnd = random.Random(7)
            for topic in topics:
                values = encoded_values(registry_url, topic, args.record_bytes, rnd)
                produce(bootstrap, topic, values, args.records)
            bench = Bench(bootstrap, registry_url, workdir, REPO_ROOT, None, None)
            for label, checkout in checkouts.items():
                rows.append(load_with_gc_log(bench, label, checkout, args.topics * args.records))
                print(f"  {label}: {rows[-1].outcome}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    size = f"{args.topics} topics x {args.records} records of {args.record_bytes:,} characters"
    print(f"\n{size}, one `loader run` process each\n")
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
