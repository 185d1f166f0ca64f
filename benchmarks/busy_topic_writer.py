"""A busy topic's rows written by two writers, in one warm session:
`python benchmarks/busy_topic_writer.py [--compare sort|vectors|counted|limit] [--records 1000000]
[--partitions 4] [--rounds 4]`.

Starts its own broker and registry, produces `--records` page-view events (three writer versions, as in
`loader_bench.py`) into one topic of `--partitions` partitions, and loads them with `loader.job.run` into
a new database each time (so every run reads the same records and makes its table), a Hive table
partitioned by hour. The two writers take turns (AB BA ...) after one warm-up run of each, so a shared
machine's drift falls on both alike. `--compare sort` (the default): the loader's writer
(`loader.formats.hive.many_tables.write_table`, rows written as they come) against Spark's
(`df.write.partitionBy`, which sorts each task's rows first, the writer a run uses when the loader's jar
is not on the class path). `--compare vectors`: the loader's writer putting rows straight into ORC's
column vectors (`OrcVectorWriter`) against the same writer handing them to Spark's ORC writer (the setting
`spark.tableloader.orc.vectorWriter=false`). `--compare counted`: a topic's rows handed to the loader's
writer as a group of one, which counts them (`loader.run.topic_pass.rows_for_writer`), against the same rows
counted by an observation and filtered before the writer (`rows_to_write`). `--compare limit`: the loader
against the limit of `loader_bench.py` (Spark's Kafka source writing the value bytes to Parquet), the
warm-up runs showing each one's cold run. Prints each run's seconds, files and bytes, and the ratio of
the two writers' totals.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pyspark.sql import SparkSession
from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loader_baselines import spark_raw_to_parquet
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
from loader.formats.hive import HiveFormat, many_tables, staging
from loader.planning.offsets import OffsetRange
from loader.reading.kafka_metadata import watermarks

TOPIC = "busy_page_view"


def writer(loaders: bool, vectors: bool = True, counted: bool = True) -> Callable[[SparkSession], None]:
    """Sets up the session and the staging module for one of the writers: the loader's (else Spark's
    sorted one), writing into ORC's vectors (else through Spark's ORC writer), the rows handed over
    as a group of one and counted by the writer (else filtered after an observation that counts them,
    as formats that write no groups have them)."""

    def use(spark: SparkSession) -> None:
        staging.writer_available = many_tables.writer_available if loaders else lambda spark: False  # type: ignore[assignment]
        HiveFormat.appends_groups = APPENDS_GROUPS if loaders and counted else lambda self: False  # type: ignore[method-assign]
        spark.conf.set(many_tables.VECTOR_WRITER_SETTING, str(vectors).lower())

    return use


APPENDS_GROUPS = HiveFormat.appends_groups


LIMIT = "Spark raw bytes to Parquet (the limit)"

COMPARISONS: dict[str, dict[str, Callable[[SparkSession], None] | None]] = {
    "sort": {"the loader's writer": writer(True), "Spark's writer (sorted)": writer(False)},
    "vectors": {
        "rows into ORC's vectors": writer(True),
        "rows through Spark's ORC writer": writer(True, vectors=False),
    },
    # Not a writer: the limit of loader_bench.py (Spark's Kafka source, the value bytes to Parquet).
    "limit": {"the loader": writer(True), LIMIT: None},
    "counted": {
        "rows counted by the writer": writer(True),
        "rows counted by an observation, then filtered": writer(True, counted=False),
    },
}


def limit(spark: SparkSession, bootstrap: str, partitions: int, out: Path) -> tuple[float, list[Path]]:
    """The limit over the topic's records, timed from its offsets' lookup to its files: (seconds, files)."""
    started = time.perf_counter()
    marks = watermarks(bootstrap, [(TOPIC, p) for p in range(partitions)], 30)
    ranges = [OffsetRange(TOPIC, p, m.earliest, m.end) for (_, p), m in sorted(marks.items())]
    spark_raw_to_parquet(spark, bootstrap, ranges, out)
    return time.perf_counter() - started, list(out.glob("*.parquet"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", choices=sorted(COMPARISONS), default="sort")
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=4, help="measured runs of each writer")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="busy-topic-writer-"))
    console = Console()
    try:
        with kafka_broker(workdir) as bootstrap, registry_server(workdir) as registry_url:
            create_topics(bootstrap, [TOPIC], args.partitions)
            produce(
                bootstrap, TOPIC, encoded_events(register_versions(registry_url, TOPIC), 5_000), args.records
            )
            runs = 0

            def settings() -> LoaderSettings:
                return LoaderSettings(
                    bootstrap_servers=bootstrap,
                    registry_url=registry_url,
                    warehouse=str(workdir / "warehouse"),
                    state_dir=str(workdir / f"state_{runs}"),  # nothing loaded yet: every run reads it all
                    database=f"busy_{runs}",
                    include_topics=TOPIC,
                    driver_jit="full",  # one JVM through every run, as in loader_bench's in-process rows
                ).validate()

            spark = job.spark_for(settings())
            writers = COMPARISONS[args.compare]
            names = list(writers)
            # A warm-up run of each, then the two in turn, AB BA AB ...
            order = names + [n for r in range(args.rounds) for n in (names if r % 2 == 0 else names[::-1])]
            totals = dict.fromkeys(names, 0.0)
            for i, name in enumerate(order):
                runs += 1
                use = writers[name]
                if use is None:
                    seconds, files = limit(spark, bootstrap, args.partitions, workdir / f"raw_{runs}")
                else:
                    use(spark)
                    report = job.run(settings(), spark, Console(stderr=True, quiet=True))
                    loaded = sum(t.records for t in report.topics)
                    if report.exit_code != 0 or loaded != args.records:
                        raise SystemExit(
                            f"the run failed (exit {report.exit_code}, {loaded} of {args.records})"
                        )
                    seconds = report.seconds
                    files = list((workdir / "warehouse" / f"busy_{runs}.db").rglob("*.orc"))
                megabytes = sum(f.stat().st_size for f in files) / 1e6
                warm_up = i < 2
                if not warm_up:
                    totals[name] += seconds
                console.print(
                    f"{name}{' (warm-up)' if warm_up else ''}: {seconds:.2f} s, "
                    f"{len(files)} files, {megabytes:.1f} MB"
                )
            spark.stop()
            first, second = names
            console.print(f"{first} / {second}: {totals[first] / totals[second]:.2f}x the time")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
