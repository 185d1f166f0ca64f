"""Where a small topic's time goes: `python benchmarks/loader_phases.py [--topics 30] [--records 500]
[--table-format hive|iceberg]`.

Runs the loader over `--topics` small topics (a first run, then two next runs over as many new records
each) in one Spark session, with the topics' passes one at a time in the calling thread, and prints the
wall time of each phase per topic: building the query (Kafka read, decode, projection), making sure of
the table, Spark's write job, the commit, and the run's requests to Kafka; under Iceberg, the table's
look-up of the offsets it holds and its append (the write job and Iceberg's commit, which are one call
there). Passes one at a time show
what each phase costs, not what topics running side by side hide; `loader_bench.py` measures the runs
as users get them.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from pyspark.sql.readwriter import DataFrameWriter, DataFrameWriterV2
from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loader_services import (
    create_topics,
    encoded_events,
    kafka_broker,
    produce,
    register_versions,
    registry_server,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from loader import job
from loader.config import LoaderSettings
from loader.formats import iceberg_groups
from loader.formats.hive import HiveFormat, table_catalog
from loader.formats.iceberg import IcebergFormat
from loader.reading.kafka_metadata import KafkaAdmin
from loader.reading.topic_read import GroupCountedRead
from loader.run import load, topic_group_pass, topic_pass

PHASES: list[tuple[Any, str, str]] = [
    (job, "_load", "whole run"),
    (load, "load_group", "small topics' groups"),
    (topic_group_pass, "load_topic", "  of which topics loaded again alone"),
    (load, "load_topic", "topic passes"),
    (topic_pass, "read_ranges", "  build: Kafka read"),
    (topic_pass, "decode", "  build: decode"),
    (topic_pass, "good_rows", "  build: projection"),
    (table_catalog.TableCatalog, "ensure", "  table exists with the schema"),
    (table_catalog.TableCatalog, "_create", "    making the table (DDL and any call after it)"),
    (table_catalog, "replace_data_columns", "    columns set through the catalog (defaults, evolutions)"),
    (table_catalog.TableCatalog, "_refetch", "    the table read back"),
    (HiveFormat, "append_group", "  a group's write job"),
    (GroupCountedRead, "counts", "  a group's window counts"),
    (IcebergFormat, "ensure", "  table exists with the schema (Iceberg)"),
    (IcebergFormat, "held_offsets", "  offsets the table holds (Iceberg)"),
    (IcebergFormat, "append_group", "  a group's write job (Iceberg), set-up included"),
    (IcebergFormat, "_loader_summary", "    the tables' newest snapshots read (Iceberg)"),
    (iceberg_groups, "write_members", "    the job itself"),
    (iceberg_groups, "_spark_table", "      the tables' Spark writes looked up"),
    (iceberg_groups.WrittenMember, "keep", "  a group member's Iceberg commit"),
    (DataFrameWriter, "save", "  Spark write job"),
    (IcebergFormat, "append", "  append: write job and commit (Iceberg)"),
    (DataFrameWriterV2, "append", "    of which the write job and Iceberg's commit"),
    (job, "commit", "commit (moves, partitions, manifest)"),
    (HiveFormat, "after_commit", "after the commit: tables' valid-through (Hive)"),
    (load, "with_current_state", "current-state detection"),
    (KafkaAdmin, "topics", "Kafka: topics"),
    (KafkaAdmin, "watermarks", "Kafka: offsets"),
    (KafkaAdmin, "topic_ids", "Kafka: topic ids"),
]


class InThread(Executor):
    """The passes one after another in the calling thread."""

    def __init__(self, *_: object) -> None:
        pass

    def map(self, fn: Callable[..., Any], *iterables: Any, **_: Any) -> Iterator[Any]:  # type: ignore[override]
        return iter([fn(*args) for args in zip(*iterables, strict=True)])


def timing(seconds: Counter[str], calls: Counter[str]) -> None:
    for owner, name, label in PHASES:
        original = getattr(owner, name)

        def timed(*args: Any, _original: Any = original, _label: str = label, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                seconds[_label] += time.perf_counter() - started
                calls[_label] += 1

        setattr(owner, name, functools.wraps(original)(timed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=30)
    parser.add_argument("--records", type=int, default=500, help="records per topic and run")
    parser.add_argument("--table-format", choices=("hive", "iceberg"), default="hive")
    args = parser.parse_args()
    seconds: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    timing(seconds, calls)
    load.ThreadPoolExecutor = InThread  # type: ignore[misc,assignment]
    workdir = Path(tempfile.mkdtemp(prefix="loader-phases-"))
    try:
        with kafka_broker(workdir) as bootstrap, registry_server(workdir) as registry_url:
            topics = [f"phase_{i:04d}" for i in range(args.topics)]
            create_topics(bootstrap, topics, 1)
            ids = {t: register_versions(registry_url, t, i) for i, t in enumerate(topics)}

            def fill(seed: int) -> None:
                for i, topic in enumerate(topics):
                    produce(bootstrap, topic, encoded_events(ids[topic], 150, seed, i), args.records)

            settings = LoaderSettings(
                bootstrap_servers=bootstrap,
                registry_url=registry_url,
                warehouse=str(workdir / "warehouse"),
                state_dir=str(workdir / "state"),
                include_topics="phase_.*",
                table_format=args.table_format,
                driver_jit="full",  # one JVM through every phase: the JVM's own JIT, as in loader_bench
            ).validate()
            spark = job.spark_for(settings)
            for seed, label in enumerate(("first run (tables created)", "next run", "next run again"), 1):
                fill(seed)
                seconds.clear()
                calls.clear()
                report = job.run(settings, spark, Console(stderr=True, quiet=True))
                if report.exit_code:
                    raise SystemExit(f"the run failed: {report.error or report.topics}")
                print(f"\n{args.table_format}, {label}, {args.topics} topics x {args.records}:\n")
                print("| phase | seconds | ms per topic |\n|---|---:|---:|")
                for phase in (label for _, _, label in PHASES if calls[label]):  # this format's phases
                    print(f"| {phase} | {seconds[phase]:.2f} | {1000 * seconds[phase] / args.topics:.0f} |")
            spark.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
