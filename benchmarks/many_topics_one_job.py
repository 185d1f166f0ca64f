"""Prototypes for many small topics, measured against the loader's way (each topic its own query and
write job): `python benchmarks/many_topics_one_job.py [--topics 40] [--group 20] [--design one-query]`.

- `one-job`: each topic's query built as the loader builds it (Kafka read, decode, projection), the
  queries of `--group` topics run as ONE Spark job (their RDDs unioned), each topic's rows written with
  Spark's own ORC writer into its own directory (`jvm/loaderbench/TablesWriter.java`).
- `one-query`: ONE query per `--group` topics: one Kafka read of all their ranges, each topic's decode and
  projection under `CASE WHEN topic = ...`, each row written into its topic's files with Spark's own ORC
  writer, by the writer the loader now ships (`jvm/tableloader/`, which `scripts/fetch-jars`
  builds and the loader's session puts on the classpath).

Neither is the loader: they write the good rows' columns and nothing else (no verdicts, counts, keys,
headers, quarantine or commit), to measure what the design would save before building it. The Java is
compiled here, which needs a JDK (`javac`, `jar`). Rounds alternate which side goes first; both sides
write the same records, and the last round's files of one topic are compared row by row.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyspark
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

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
from loader.config import LoaderSettings
from loader.planning.offsets import OffsetRange
from loader.reading.decoding import decode, good_rows, read_framed, table_columns
from loader.reading.registry_client import RegistryClient, SubjectSchemas
from loader.reading.topic_read import read_ranges
from loader.reading.value_formats.avro_read import avro_column
from loader.runtime.spark_session import SparkSettings, build_spark_session
from loader.schema.partitioning import partition_values

JAVA_SOURCES = Path(__file__).resolve().parent / "jvm"
PARTITIONS = ["dt", "hour"]


def build_jar(workdir: Path) -> Path:
    if not (shutil.which("javac") and shutil.which("jar")):
        sys.exit("the prototypes' Java needs a JDK (javac and jar on the PATH)")
    classes, jar = workdir / "classes", workdir / "loaderbench.jar"
    classpath = str(Path(pyspark.__file__).parent / "jars" / "*")
    sources = [str(p) for p in sorted(JAVA_SOURCES.rglob("*.java"))]
    subprocess.run(["javac", "-Xlint:none", "-cp", classpath, "-d", str(classes), *sources], check=True)
    subprocess.run(["jar", "cf", str(jar), "-C", str(classes), "."], check=True)
    return jar


class Topics:
    """The small topics, their schemas, and the queries each design builds over them."""

    def __init__(
        self, spark: SparkSession, settings: LoaderSettings, schemas: dict[str, SubjectSchemas]
    ) -> None:
        self.spark, self.settings, self.schemas = spark, settings, schemas
        self.jvm = spark._jvm
        self.gateway = spark.sparkContext._gateway

    def strings(self, values: list[str]) -> Any:
        array = self.gateway.new_array(self.jvm.String, len(values))
        for i, value in enumerate(values):
            array[i] = value
        return array

    def loader_query(self, topic: str, start: int, records: int) -> DataFrame:
        """The topic's rows as the loader's pass builds them, with their partition values."""
        raw = read_ranges(self.spark, self.settings, [OffsetRange(topic, 0, start, start + records)])
        decoded = decode(raw, self.schemas[f"{topic}-value"], None)
        rows = good_rows(decoded, False, table_columns(decoded))
        return rows.withColumns(partition_values(F.col("_kafka_timestamp"), "hour"))

    def one_job(self, topics: list[str], start: int, records: int, out: Path) -> int:
        frames = self.gateway.new_array(self.jvm.org.apache.spark.sql.Dataset, len(topics))
        for i, topic in enumerate(topics):
            frames[i] = self.loader_query(topic, start, records)._jdf
        written = self.jvm.loaderbench.TablesWriter.writeAll(
            self.spark._jsparkSession,
            frames,
            self.strings([str(out / t) for t in topics]),
            self.strings(PARTITIONS),
        )
        return sum(written.get(i).getLong(2) for i in range(written.size()))

    def one_query(self, topics: list[str], start: int, records: int, out: Path) -> int:
        ranges = [OffsetRange(t, 0, start, start + records) for t in topics]
        raw = read_ranges(self.spark, self.settings, ranges)
        is_topic = [F.col("topic") == t for t in topics]
        decoded = [avro_column(read_framed("value", self.schemas[f"{t}-value"]).decoded) for t in topics]
        stage = raw.withColumns({f"_event{i}": F.when(is_topic[i], decoded[i]) for i in range(len(topics))})
        columns: list[Column] = [c.alias(k) for k, c in partition_values(F.col("timestamp"), "hour").items()]
        for i in range(len(topics)):
            event = F.col(f"_event{i}")
            struct_type = stage.schema[f"_event{i}"].dataType
            fields = [f.name for f in struct_type.fields if not f.name.startswith("__")]  # type: ignore[attr-defined]
            row = F.struct(
                *[event.getField(f).alias(f) for f in fields],
                F.col("partition").alias("_kafka_partition"),
                F.col("offset").alias("_kafka_offset"),
                F.col("timestamp").alias("_kafka_timestamp"),
            )
            columns.append(F.when(is_topic[i], row).alias(f"_row{i}"))
        index = F.create_map(*[x for i, t in enumerate(topics) for x in (F.lit(t), F.lit(i))])
        wide = stage.select(index[F.col("topic")].alias("_table"), *columns)
        written = self.jvm.tableloader.ManyTablesOrcWriter.write(
            self.spark._jsparkSession,
            wide._jdf,
            self.strings([wide.schema[f"_row{i}"].dataType.json() for i in range(len(topics))]),
            self.strings([str(out / t) for t in topics]),
            self.strings(PARTITIONS),
        )
        return sum(f["rows"] for f in json.loads(written))


def in_threads(spark: SparkSession, items: list[Any], work: Callable[[Any], None], threads: int = 8) -> None:
    """As the loader's passes run: `threads` at a time, each in a FAIR scheduler pool of its own."""

    def run(item: Any) -> None:
        spark.sparkContext.setLocalProperty("spark.scheduler.pool", threading.current_thread().name)
        work(item)

    with ThreadPoolExecutor(min(threads, len(items))) as pool:
        list(pool.map(run, items))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=40)
    parser.add_argument("--records-per-topic", type=int, default=500)
    parser.add_argument("--group", type=int, default=20, help="topics per job or query")
    parser.add_argument("--design", choices=["one-job", "one-query"], default="one-query")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    records = args.records_per_topic
    workdir = Path(tempfile.mkdtemp(prefix="loader-one-job-"))
    try:
        jar = build_jar(workdir)
        with kafka_broker(workdir) as bootstrap, registry_server(workdir) as registry_url:
            names = [f"small_{i:04d}" for i in range(args.topics)]
            create_topics(bootstrap, names, 1)
            ids = {name: register_versions(registry_url, name, i) for i, name in enumerate(names)}
            settings = LoaderSettings(bootstrap, registry_url, str(workdir / "warehouse")).validate()
            spark = build_spark_session(
                SparkSettings(
                    warehouse_dir=settings.warehouse,
                    extra_conf={"spark.ui.showConsoleProgress": "false", "spark.scheduler.mode": "FAIR"},
                    extra_jars=(str(jar),),
                )
            )
            spark.sparkContext.setLogLevel("ERROR")
            registry = RegistryClient(registry_url, 30, None, None)
            schemas = registry.all_subject_schemas({f"{n}-value" for n in names}, registry.snapshot())
            topics = Topics(spark, settings, schemas)
            grouped = {"one-job": topics.one_job, "one-query": topics.one_query}[args.design]
            groups = [names[k : k + args.group] for k in range(0, len(names), args.group)]

            def per_topic(start: int, out: Path) -> None:
                in_threads(
                    spark,
                    names,
                    lambda t: (
                        topics.loader_query(t, start, records)
                        .write.format("orc")
                        .partitionBy(*PARTITIONS)
                        .save(str(out / t))
                    ),
                )

            def prototype(start: int, out: Path) -> None:
                def group(members: list[str]) -> None:
                    written = grouped(members, start, records, out)
                    assert written == records * len(members), f"wrote {written} rows"

                in_threads(spark, groups, group)

            last: dict[str, Path] = {}
            print(f"{args.topics} topics x {records}, {args.design} per {args.group} topics", flush=True)
            for round_ in range(args.rounds):
                for i, name in enumerate(names):
                    produce(bootstrap, name, encoded_events(ids[name], 50, round_, i), records)
                sides: list[tuple[str, Callable[[int, Path], None]]] = [
                    ("each topic its own query and job", per_topic),
                    (args.design, prototype),
                ]
                seconds = {}
                for label, side in sides if round_ % 2 == 0 else sides[::-1]:
                    last[label] = workdir / f"{label.replace(' ', '_')}-{round_}"
                    started = time.perf_counter()
                    side(round_ * records, last[label])
                    seconds[label] = time.perf_counter() - started
                mine, theirs = seconds[args.design], seconds["each topic its own query and job"]
                print(f"round {round_}: {theirs:.2f} s / {mine:.2f} s, ratio {mine / theirs:.2f}", flush=True)
            columns = ["event_id", "member_id", "_kafka_offset", "_kafka_timestamp"]
            a, b = (
                spark.read.orc(str(path / names[-1])).select(*columns).orderBy("_kafka_offset").collect()
                for path in last.values()
            )
            print(f"the last round's files of {names[-1]}: {'the same rows' if a == b else 'DIFFERENT rows'}")
            spark.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
