"""Py4J answers of growing size, with Nagle's algorithm on (Py4J's default) and off (the loader's,
`loader.runtime.jvm_calls`): `python benchmarks/jvm_calls_bench.py [--rounds 20]`.

One driver JVM: each size is asked for from a Python thread of its own, so from a connection of its
own, first before the loader's listener is installed (Py4J's default), then after it (the option
set on the new connection), `--rounds` calls each, median milliseconds per call. Then a wide query's
schema, as a group of small topics reads three times, both ways.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from loader.runtime.jvm_calls import answer_without_delay
from loader.runtime.spark_session import SparkSettings, build_spark_session

SIZES = (1_000, 8_000, 16_000, 64_000, 256_000)


def in_own_thread(measure: Callable[[], list[float]]) -> list[float]:
    """`measure` run in a new Python thread: PySpark gives it a new Py4J connection."""
    found: list[list[float]] = []
    thread = threading.Thread(target=lambda: found.append(measure()))
    thread.start()
    thread.join()
    return found[0]


def timed(call: Callable[[], object], rounds: int) -> list[float]:
    seconds = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return seconds


def wide_frame(spark: SparkSession) -> DataFrame:
    """A group-like query: 16 struct columns of 25 fields each."""
    structs = [
        F.struct(*[F.lit(i * j).alias(f"field_{j:02d}_of_member_{i:02d}") for j in range(25)]).alias(
            f"row_{i}"
        )
        for i in range(16)
    ]
    return spark.range(1).select(*structs)


def rows(spark: SparkSession, rounds: int) -> dict[str, list[float]]:
    frame = wide_frame(spark)
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    measured = {}
    for size in SIZES:
        answer = jvm.java.lang.StringBuilder("x" * size)
        measured[f"a text of {size:,} characters"] = in_own_thread(lambda a=answer: timed(a.toString, rounds))
    schema_json = frame._jdf.schema().json
    size = len(schema_json())
    measured[f"a wide query's schema ({size:,} characters of JSON)"] = in_own_thread(
        lambda: timed(schema_json, rounds)
    )
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="jvm-calls-bench-"))
    try:
        spark = build_spark_session(SparkSettings(warehouse_dir=str(workdir / "warehouse"), app_name="bench"))
        before = rows(spark, args.rounds)
        if not answer_without_delay(spark):
            raise SystemExit("the loader's jar is not on the driver's class path: run scripts/fetch-jars")
        after = rows(spark, args.rounds)
        print("| answer | Nagle on, Py4J's default (ms) | off, the loader's (ms) |\n|---|---:|---:|")
        for label, seconds in before.items():
            on, off = 1000 * statistics.median(seconds), 1000 * statistics.median(after[label])
            print(f"| {label} | {on:.2f} | {off:.2f} |")
        spark.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
