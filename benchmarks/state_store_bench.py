"""A run's manifest read back through Hadoop's file system API: `python benchmarks/state_store_bench.py
[--topics 48,200,1000] [--rounds 5]`.

Writes the manifest a run over `--topics` small topics commits (one partition, one file and one time
partition each: the offsets, files, topic ids and table schemas it records) into a temporary state
directory, and times `StateStore.read_text`, which every run calls on the latest manifest, against the
reader it replaced (a JVM call per line), side by side in one Spark session, best of `--rounds`. The
session's Py4J answers are sent as the loader's session sends them (`loader.runtime.jvm_calls`).
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from loader.planning.commit_protocol import Manifest, StagedTable
from loader.planning.state_store import StateStore
from loader.runtime.jvm_calls import answer_without_delay
from loader.runtime.spark_session import SparkSettings, build_spark_session


def manifest(topics: int) -> Manifest:
    names = [f"bench_topic_{i:04d}" for i in range(topics)]
    staged = "file:/warehouse/_loader_state/kafka/staging/0f3c/{t}/dt=2026-11-27/hour=09/part-00000.orc"
    final = "file:/warehouse/kafka.db/{t}/dt=2026-11-27/hour=09/part-00000-0f3c.orc"
    return Manifest(
        seq=42,
        run_id="0f3c2a9e",
        offsets={(t, 0): 500 * (i + 1) for i, t in enumerate(names)},
        tables=[
            StagedTable(
                f"kafka.{t}", [(staged.format(t=t), final.format(t=t))], [{"dt": "2026-11-27", "hour": "09"}]
            )
            for t in names
        ],
        cluster_id="q1w2e3r4t5y6u7i8o9p0aa",
        topic_ids={t: f"{i:022d}" for i, t in enumerate(names)},
        table_schemas={t: f"{i:064x}" for i, t in enumerate(names)},
    )


def read_by_lines(store: StateStore, location: str) -> str:
    """The reader `read_text` replaced: a JVM call per line."""
    stream = store._fs_for(location).open(store._p(location))
    try:
        jvm = store.spark._jvm
        reader = jvm.java.io.BufferedReader(jvm.java.io.InputStreamReader(stream, "UTF-8"))
        lines = []
        line = reader.readLine()
        while line is not None:
            lines.append(line)
            line = reader.readLine()
        return "\n".join(lines)
    finally:
        stream.close()


def best_of(rounds: int, read: Callable[[], str]) -> float:
    seconds = []
    for _ in range(rounds):
        started = time.perf_counter()
        read()
        seconds.append(time.perf_counter() - started)
    return min(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", default="48,200,1000", help="comma-separated topic counts")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="state-store-bench-"))
    try:
        spark = build_spark_session(SparkSettings(warehouse_dir=str(workdir / "warehouse"), app_name="bench"))
        answer_without_delay(spark)
        store = StateStore(spark, f"file://{workdir}/state")
        print("| topics | manifest lines | one call per line (ms) | `read_text` (ms) | ratio |")
        print("|---:|---:|---:|---:|---:|")
        for topics in (int(t) for t in args.topics.split(",")):
            text = manifest(topics).to_json()
            location = store.path(f"commits/{topics:012d}.json")
            store.publish(location, text)
            assert Manifest.from_json(store.read_text(location)) == Manifest.from_json(text)
            assert read_by_lines(store, location) == text
            by_lines = best_of(args.rounds, functools.partial(read_by_lines, store, location))
            whole = best_of(args.rounds, functools.partial(store.read_text, location))
            lines = text.count("\n") + 1
            ms = f"{1000 * by_lines:.1f} | {1000 * whole:.1f}"
            print(f"| {topics:,} | {lines:,} | {ms} | {whole / by_lines:.3f}x |")
        spark.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
