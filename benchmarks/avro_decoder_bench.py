"""Spark's `from_avro` against the loader's own, on what a group of small topics asks of it:
`python benchmarks/avro_decoder_bench.py [--tasks 16] [--records 500] [--writers 3] [--rounds 4]`.

One Spark session (`local[2]`, the loader's interpreted session for small topics' queries, and the
session's own generated code), a cached frame of `--tasks` partitions of `--records` framed bodies each,
written with `--writers` versions of a 20-field event. Each job decodes every body with one branch per
writer schema, as the loader's queries do (`loader.reading.decoding.read_framed`), and counts the ones
that decoded; the two functions take turns (ABBA), so a shared machine's drift falls on both alike.
Prints each job's seconds and the ratio of the two functions' totals per session.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import fastavro
from pyspark.sql import DataFrame
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from loader.reading.avro_decoder import SPARK_FROM_AVRO, avro_decoder
from loader.reading.decoding import DECODED_FLAG, read_framed
from loader.reading.registry_client import SubjectSchemas
from loader.spark_session import SparkSettings, build_spark_session, interpreted_session


def versions(count: int) -> list[dict[str, Any]]:
    """`count` versions of an event of 20 fields, each adding one field with a default."""
    base = [{"name": f"f{i}", "type": "string" if i % 2 else "long"} for i in range(20)]
    return [
        {
            "type": "record",
            "name": "Event",
            "fields": base + [{"name": f"added{v}", "type": "long", "default": 0} for v in range(v)],
        }
        for v in range(count)
    ]


def framed(schema_id: int, schema: dict[str, Any], n: int) -> bytes:
    record = {f["name"]: (str(n) if f["type"] == "string" else n) for f in schema["fields"]}
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), record)
    return b"\x00" + schema_id.to_bytes(4, "big") + out.getvalue()


def decoded_count(frame: DataFrame, schemas: SubjectSchemas, decoder: str) -> int:
    read = read_framed("value", schemas, decoder=decoder)
    return frame.selectExpr(f"{read.decoded} AS event").where(f"event.{DECODED_FLAG}").count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=16, help="partitions, one task each (topics of a group)")
    parser.add_argument("--records", type=int, default=500, help="records per task")
    parser.add_argument("--writers", type=int, default=3, help="writer schemas (branches per body)")
    parser.add_argument("--rounds", type=int, default=4, help="ABBA rounds per session")
    args = parser.parse_args()
    console = Console(width=200)
    schemas_list = versions(args.writers)
    schemas = SubjectSchemas(
        "events-value",
        args.writers,
        json.dumps(schemas_list[-1]),
        {i + 1: json.dumps(s) for i, s in enumerate(schemas_list)},
    )
    rows = [
        (framed(n % args.writers + 1, schemas_list[n % args.writers], n),)
        for n in range(args.tasks * args.records)
    ]
    with tempfile.TemporaryDirectory(prefix="avro-decoder-bench-") as scratch:
        settings = SparkSettings(
            warehouse_dir=f"{scratch}/warehouse", extra_conf={"spark.ui.showConsoleProgress": "false"}
        )
        spark = build_spark_session(settings)
        spark.sparkContext.setLogLevel("ERROR")
        table = Table(
            "session", "function", *[f"job {i + 1} (s)" for i in range(2 * args.rounds)], "median (s)"
        )
        totals: dict[str, dict[str, float]] = {}
        for label, session in (("interpreted", interpreted_session(spark)), ("generated", spark)):
            frame = session.createDataFrame(rows, "value binary").repartition(args.tasks).cache()
            frame.count()
            functions = {"Spark's from_avro": SPARK_FROM_AVRO, "the loader's": avro_decoder(session)}
            seconds: dict[str, list[float]] = {name: [] for name in functions}
            expected = args.tasks * args.records
            for name in functions:  # warm both once
                assert decoded_count(frame, schemas, functions[name]) == expected
            for round_ in range(args.rounds):
                order = list(functions) if round_ % 2 == 0 else list(reversed(functions))
                for name in order + list(reversed(order)):
                    started = time.perf_counter()
                    assert decoded_count(frame, schemas, functions[name]) == expected
                    seconds[name].append(time.perf_counter() - started)
            for name, values in seconds.items():
                table.add_row(label, name, *[f"{v:.2f}" for v in values], f"{statistics.median(values):.2f}")
            totals[label] = {name: sum(values) for name, values in seconds.items()}
            frame.unpersist()
        console.print(table)
        for label, by_name in totals.items():
            ours, spark_s = by_name["the loader's"], by_name["Spark's from_avro"]
            saved = (spark_s - ours) / (2 * args.rounds * args.tasks) * 1000
            console.print(
                f"{label}: the loader's / Spark's = {ours / spark_s:.2f}x; "
                f"{saved:+.1f} ms saved per task ({args.writers} writer schemas)"
            )
        spark.stop()


if __name__ == "__main__":
    main()
