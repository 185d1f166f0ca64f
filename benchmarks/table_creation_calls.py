"""What a first run's metastore calls cost per new table: `python benchmarks/table_creation_calls.py
[--tables 60] [--rounds 5]`.

One thread of a driver on a local warehouse (the embedded Derby metastore, the full JIT as in the
in-process benchmarks) makes `--tables` tables of 22 columns per round as a run makes them (the table's
DDL, then the table read back), registers one partition of each (`add_partitions`, as a commit does) and
fetches each once more through Spark's catalog; every call timed on its own. Prints ms per table for
each round, with the JVM's CPU time and the wall time of the round: the calls are CPU-bound, and how far
the rounds fall shows what the JIT's warming is worth. No Kafka, no registry.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType, TimestampType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from loader import job
from loader.config import LoaderSettings
from loader.formats.hive.table_catalog import TableCatalog
from loader.formats.metastore import add_partitions
from loader.planning.state_store import StateStore
from loader.warehouse_layout import claim_database

COLUMNS = [StructField(f"f{i}", (StringType(), LongType(), DoubleType())[i % 3]) for i in range(20)]
SCHEMA = StructType(
    [*COLUMNS, StructField("_kafka_timestamp", TimestampType()), StructField("_kafka_offset", LongType())]
)
PARTITION = {"dt": "2026-11-27", "hour": "13"}


def jvm_cpu_seconds(pid: int) -> float:
    """User and system CPU of the process, from /proc (clock ticks of 1/100 s)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100


def timed(seconds: Counter[str], label: str, call: Callable[..., object], *args: object) -> None:
    started = time.perf_counter()
    call(*args)
    seconds[label] += time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="table-creation-"))
    try:
        settings = LoaderSettings(
            bootstrap_servers="127.0.0.1:9",  # never asked: no topic is read
            registry_url="http://127.0.0.1:9",
            warehouse=str(workdir / "warehouse"),
            state_dir=str(workdir / "state"),
            driver_jit="full",
        ).validate()
        spark = job.spark_for(settings)
        store = StateStore(spark, f"file:{workdir / 'state'}")
        claim_database(spark, store, settings.warehouse, settings.database)
        external = spark._jsparkSession.sessionState().catalog().externalCatalog()
        pid = spark._jvm.java.lang.ProcessHandle.current().pid()
        database = settings.database
        print(
            "| round | CREATE TABLE | read back | one partition registered | a table fetched "
            "| JVM CPU / wall (s) |"
        )
        print("|---|---:|---:|---:|---:|---|")
        for round_number in range(1, args.rounds + 1):
            seconds: Counter[str] = Counter()
            catalog = TableCatalog(spark, store, database)
            names = [f"r{round_number}_t{i:04d}" for i in range(args.tables)]
            catalog.load(names)
            cpu, wall = jvm_cpu_seconds(pid), time.perf_counter()
            for name in names:
                timed(seconds, "create", catalog._create, f"{database}.{name}", SCHEMA, "hour")
                timed(seconds, "read back", catalog._refetch, name)
                directory = workdir / "warehouse" / f"{database}.db" / name / "dt=2026-11-27" / "hour=13"
                directory.mkdir(parents=True)  # as a commit's moves leave it
                timed(seconds, "partition", add_partitions, spark, f"{database}.{name}", [PARTITION])
                timed(seconds, "fetch", external.getTable, database, name)
            cpu, wall = jvm_cpu_seconds(pid) - cpu, time.perf_counter() - wall
            per_table = {k: 1000 * v / args.tables for k, v in seconds.items()}
            print(
                f"| {round_number} | {per_table['create']:.1f} | {per_table['read back']:.1f} | "
                f"{per_table['partition']:.1f} | {per_table['fetch']:.1f} | {cpu:.1f} / {wall:.1f} |"
            )
        spark.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
