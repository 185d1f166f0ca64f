"""Benchmark of the loader: `python benchmarks/loader_bench.py` (after `scripts/setup`).

Starts its own broker (`scripts/kafka`, free ports, a temporary directory) and registry (`registry serve`,
SQLite), produces the scenarios' topics (a 20-field page-view event in three versions, interleaved), and
measures each run twice: inside one process on one Spark session (`loader.job.run`, Spark's start-up
left out), and as a whole `loader run` process, the way cron starts it (JVM start, Spark session,
everything). Prints a Markdown table per scenario, with the ratios the targets are about:

- big: one topic of `--records` records against Spark's raw read-and-write of the same ranges (the limit)
  and a hand-written confluent-kafka + fastavro + pyarrow consumer;
- keys: the same records with a key and two headers each, against without;
- many: 200 topics x 500 records (first run: tables created; next run) against 1 topic x 100,000;
- curve: 10, 100 and 1,000 topics x 100 records (next run), and 1,000 topics of which 10 have new
  records against a deployment of only those 10;
- backlog: one topic of `--backlog` records loaded by `loader run --until-caught-up` with default
  settings: seconds, commits, and the driver JVM's peak resident memory;
- multitype: a topic of two event types (RecordNameStrategy, a table each) against a topic of one type
  holding the very same records (`--multitype-records` each), first run and next run;
- value-formats: one topic of `--records` records as Avro, one as JSON Schema and one as Protobuf (the
  same events, serialized as confluent-kafka's `JSONSerializer` and `ProtobufSerializer` do), each loaded
  by a `loader run` process, twice (`--value-formats` picks some; with `--against`, each checkout's
  process in turn);
- formats: the same topics loaded as Iceberg tables beside Hive ORC tables, as `loader run` processes:
  one topic of `--records` records, and `--format-topics` topics x `--records-per-topic` (first run:
  tables created; next run);
- cluster: one topic of `--records` records loaded by a `loader run` process in `local[2]` and, right
  after, submitted with spark-submit to `scripts/cluster` (Spark standalone, two workers of one core,
  the warehouse on HDFS, the metastore on PostgreSQL) as docs/loader.md shows it;
- current: a keyed topic of `--current-keys` keys (one record each) loaded into three Iceberg databases,
  each with its own offsets: an append table alone, a current-state table beside its history table
  (`current-state-topics`, the default history), and a current-state table alone
  (`current-state-history = false`); then `--current-runs` runs carrying 1% of the keys changed, and as
  many carrying 10%, each run's seconds side by side (in one process, one Spark session), and the data
  files and delete files of each table after each series, before and after `loader maintain`. Run it
  alone: its session is Iceberg's;
- small: what cron sees most, on Hive and on Iceberg (the metastore catalog), as `loader run` processes:
  `--small-topics` topics x `--small-records` (120 x 500) against one topic of as many records, first run
  (tables created) and next run; `--small-active` of those topics with new records (5 of 120) against a
  deployment of only those; and the curve's end, `--small-curve` topics x `--curve-records` (1,000 x 100)
  against one topic of as many records, next run. With `--against`, the other checkout runs every
  workload too, into databases of its own, the two in turn (which goes first alternating): before and
  after side by side in one run;
- paired: `--paired-topics` topics x `--records-per-topic` loaded by this checkout's `loader run` and by
  `--against`'s, as processes in turn on the same new records: a first run each, then `--rounds` next
  runs, which of the two goes first alternating from round to round, and `--quiet-rounds` runs with
  nothing new. `--this-env NAME=VALUE` (repeated) adds to the environment of this checkout's runs, e.g.
  `LOADER_DRIVER_JIT=full`; with `--against .` the pair compares such settings alone.

`--code-dir` measures another checkout's loader (e.g. the code before a change) with the same script,
broker and registry, for before/after rows from one machine. `paired` puts the two side by side in one
run, so that a shared machine's drift falls on both alike: the ratios of its rounds are what a change's
before and after are judged by.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import io
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import fastavro

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loader_services import (
    DISTINCT_EVENTS_PER_VERSION,
    REPO_ROOT,
    VERSIONS,
    create_topics,
    encoded_events,
    encoded_json_events,
    encoded_protobuf_events,
    event,
    http,
    kafka_broker,
    produce,
    produce_keyed,
    register_json_versions,
    register_protobuf_version,
    register_versions,
    registry_server,
    rest_catalog_on_object_store,
    spark_cluster,
)

SCENARIOS = (
    "big", "keys", "many", "curve", "backlog", "multitype", "formats", "lake", "cluster", "paired", "current",
    "small", "value-formats",
)  # fmt: skip


class RunFailed(SystemExit):
    """A `loader run` process that failed: ends the benchmark with its exit status and the end of its
    error output, unless a scenario catches it; `stderr` holds the whole of that output."""

    def __init__(self, returncode: int, stderr: str) -> None:
        super().__init__(f"loader run failed (exit {returncode}):\n{stderr[-3000:]}")
        self.returncode, self.stderr = returncode, stderr


@dataclass
class Row:
    work: str
    records: int
    seconds: float
    against: str = ""  # the row this one is compared with
    note: str = ""

    @property
    def rate(self) -> float:
        return self.records / self.seconds if self.seconds else 0.0


@dataclass
class Bench:
    """What every scenario uses: the services, the Spark session, the code measured, the results."""

    bootstrap: str
    registry_url: str
    workdir: Path
    code_dir: Path
    spark: Any
    loader: Any  # the measured checkout's `loader` modules: job, config
    tables: dict[str, list[Row]] = field(default_factory=dict)
    # Environment of every `loader run` process (LOADER_* settings a deployment would set).
    process_env: dict[str, str] = field(default_factory=dict)
    # The phases' seconds of the last `loader run` process's last run, as its report gives them.
    last_phases: dict[str, float] = field(default_factory=dict)

    def settings(self, database: str, include: str, **extra: Any) -> Any:
        return self.loader.config.LoaderSettings(
            bootstrap_servers=self.bootstrap,
            registry_url=self.registry_url,
            warehouse=str(self.workdir / "warehouse"),
            database=database,
            include_topics=include,
            **extra,
        ).validate()

    def run_in_process(self, database: str, include: str, expected: int) -> float:
        from rich.console import Console

        report = self.loader.job.run(
            self.settings(database, include), self.spark, Console(stderr=True, quiet=True)
        )
        loaded = sum(t.records for t in report.topics)
        if report.exit_code != 0 or loaded != expected:
            sys.exit(
                f"the loader run failed (exit {report.exit_code}, {loaded} of {expected}): {report.to_json()}"
            )
        return report.seconds

    def run_process(
        self,
        database: str,
        include: str,
        expected: int,
        *args: str,
        code_dir: Path | None = None,
        extra_env: dict[str, str] | None = None,
        timeout_s: float | None = None,
    ) -> tuple[float, int, int]:
        """`loader run` as cron starts it: (seconds, runs committed, peak resident KiB of the driver JVM).
        `code_dir`: another checkout's loader than the one measured; `extra_env`: more environment
        variables of the run (LOADER_* settings, JAVA_TOOL_OPTIONS); `timeout_s`: the run and its JVM
        are killed after that long (a driver out of heap may collect garbage for good instead of
        failing), and it fails."""
        report = self.workdir / f"report-{database}.json"
        command = [
            sys.executable, "-m", "loader.cli", "run", "--bootstrap-servers", self.bootstrap,
            "--registry-url", self.registry_url, "--warehouse", str(self.workdir / "warehouse-cli"),
            "--database", database, "--include-topics", include, "--report-json", str(report), *args,
        ]  # fmt: skip
        env = {
            **os.environ,
            "PYTHONPATH": str(code_dir or self.code_dir),
            **self.process_env,
            **(extra_env or {}),
        }
        started = time.perf_counter()
        process = subprocess.Popen(
            command, env=env, cwd=self.workdir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        with peak_rss_of_java_descendants(process.pid) as peak:
            try:
                _, err = process.communicate(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                for child in _descendants(process.pid):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(child, signal.SIGKILL)
                process.kill()
                _, err = process.communicate()
                err += f"\nkilled by the benchmark after {timeout_s:.0f} s".encode()
        seconds = time.perf_counter() - started
        if process.returncode != 0:
            raise RunFailed(process.returncode, err.decode(errors="replace"))
        data = json.loads(report.read_text())
        runs = data.get("runs", [data])
        self.last_phases = runs[-1].get("phases", {})
        loaded = sum(t["records"] for r in runs for t in r["topics"])
        if loaded != expected:
            sys.exit(f"loader run loaded {loaded} records, not {expected}")
        return seconds, len(runs), peak()

    def submit_to_cluster(self, cluster: dict[str, str], database: str, include: str, expected: int) -> float:
        """`loader run` submitted to a standalone cluster as docs/loader.md ("On a cluster") shows it, from
        a scratch directory (Spark 4.0's driver leaves `artifacts/` where it starts): its seconds."""
        from loader.runtime.spark_session import connector_jars

        connectors = connector_jars()
        report = self.workdir / f"report-{database}.json"
        command = [
            str(Path(sys.executable).parent / "spark-submit"),
            "--master", cluster["CLUSTER_SPARK_MASTER"], "--deploy-mode", "client",
            "--jars", ",".join(connectors),
            "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
            "--conf", "spark.executor.memory=1g",
            "--conf", f"spark.hadoop.hive.metastore.uris={cluster['CLUSTER_METASTORE']}",
            "--conf", f"spark.sql.warehouse.dir={cluster['CLUSTER_WAREHOUSE']}",
            str(self.code_dir / "loader" / "cli.py"), "run",
            "--bootstrap-servers", self.bootstrap, "--registry-url", self.registry_url,
            "--warehouse", cluster["CLUSTER_WAREHOUSE"], "--metastore-uri", cluster["CLUSTER_METASTORE"],
            "--database", database, "--include-topics", include, "--report-json", str(report),
        ]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(self.code_dir), "PYSPARK_PYTHON": sys.executable}
        scratch = Path(tempfile.mkdtemp(dir=self.workdir))
        started = time.perf_counter()
        done = subprocess.run(
            command, env=env, cwd=scratch, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            error = done.stderr.decode()[-3000:]
            sys.exit(f"the submitted loader run failed (exit {done.returncode}):\n{error}")
        loaded = sum(t["records"] for t in json.loads(report.read_text())["topics"])
        if loaded != expected:
            sys.exit(f"the submitted loader run loaded {loaded} records, not {expected}")
        return seconds

    def add(self, table: str, row: Row) -> None:
        self.tables.setdefault(table, []).append(row)
        print(f"  {row.work}: {row.seconds:.1f} s", file=sys.stderr, flush=True)


@contextmanager
def peak_rss_of_java_descendants(pid: int) -> Iterator[Callable[[], int]]:
    """Samples, every 0.2 s, the peak resident memory (VmHWM) of the JVMs below `pid`."""
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.wait(0.2):
            for child in _descendants(pid):
                try:
                    status = Path(f"/proc/{child}/status").read_text()
                    if "\nName:\tjava" in "\n" + status:
                        hwm = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
                        peak = max(peak, int(hwm.split()[1]))
                except (OSError, StopIteration):
                    continue

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield lambda: peak
    finally:
        stop.set()
        thread.join()


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def timed(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def setup_topics(
    bench: Bench, names: list[str], partitions: int, distinct_schemas: bool
) -> dict[str, list[int]]:
    create_topics(bench.bootstrap, names, partitions)
    return {
        name: register_versions(bench.registry_url, name, i if distinct_schemas else None)
        for i, name in enumerate(names)
    }


def produce_to(
    bench: Bench, topics: dict[str, list[int]], count: int, distinct_schemas: bool, seed: int
) -> None:
    for i, (topic, ids) in enumerate(sorted(topics.items())):
        values = encoded_events(ids, max(1, min(count, 3_000) // 3), seed, i if distinct_schemas else None)
        produce(bench.bootstrap, topic, values, count)


# --- scenarios ----------------------------------------------------------------------------------------


def big(bench: Bench, records: int, partitions: int) -> None:
    from loader_baselines import consumer_to_parquet, spark_raw_to_parquet

    topic = "big_page_view"
    ids = setup_topics(bench, [topic], partitions, False)[topic]
    produce(bench.bootstrap, topic, encoded_events(ids, 5_000), records)
    ranges = offset_ranges(bench, topic, partitions)
    limit = "Spark raw bytes to Parquet (limit)"
    bench.add(
        "big",
        Row(
            limit,
            records,
            timed(lambda: spark_raw_to_parquet(bench.spark, bench.bootstrap, ranges, bench.workdir / "raw")),
        ),
    )
    bench.add(
        "big", Row("loader, in one process", records, bench.run_in_process("big", topic, records), limit)
    )
    limit_process = "Spark raw bytes to Parquet, as a process (JVM start included)"
    bench.add("big", Row(limit_process, records, spark_raw_process(bench, ranges)))
    seconds, _, peak = bench.run_process("big", topic, records)
    bench.add(
        "big",
        Row(
            "`loader run` process (JVM start included)",
            records,
            seconds,
            limit_process,
            f"driver peak {peak / 1024:.0f} MiB",
        ),
    )
    out = bench.workdir / "consumer.parquet"
    seconds = timed(lambda: consumer_to_parquet(bench.bootstrap, bench.registry_url, ranges, out))
    bench.add("big", Row("confluent-kafka + fastavro + pyarrow", records, seconds, "loader, in one process"))


def spark_raw_process(bench: Bench, ranges: list[Any]) -> float:
    """The limit in a process of its own (`loader_baselines.py`), timed as `loader run` is: its seconds."""
    spans = [{"topic": r.topic, "partition": r.partition, "start": r.start, "end": r.end} for r in ranges]
    command = [
        sys.executable, str(Path(__file__).resolve().parent / "loader_baselines.py"),
        bench.bootstrap, json.dumps(spans), str(bench.workdir / "raw-process"),
    ]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(command, cwd=bench.workdir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"the limit's process failed (exit {done.returncode}):\n{done.stderr.decode()[-3000:]}")
    return seconds


def offset_ranges(bench: Bench, topic: str, partitions: int) -> list[Any]:
    marks = bench.loader.kafka_metadata.watermarks(
        bench.bootstrap, [(topic, p) for p in range(partitions)], 30
    )
    return [
        bench.loader.planning.OffsetRange(topic, p, m.earliest, m.end) for (_, p), m in sorted(marks.items())
    ]


def keys(bench: Bench, records: int) -> None:
    plain, keyed = "keys_plain", "keys_keyed"
    topics = setup_topics(bench, [plain, keyed], 2, False)
    produce(bench.bootstrap, plain, encoded_events(topics[plain], 5_000), records)
    produce(bench.bootstrap, keyed, encoded_events(topics[keyed], 5_000), records, keys_and_headers=True)
    bench.add("keys", Row("no key, no headers", records, bench.run_in_process("keys_plain", plain, records)))
    seconds = bench.run_in_process("keys_keyed", keyed, records)
    bench.add("keys", Row("a text key and two headers per record", records, seconds, "no key, no headers"))


def many(bench: Bench, topics: int, per_topic: int, one_topic: int) -> None:
    """Many small topics against one topic of as many records, first run and next run."""
    small = setup_topics(bench, [f"many_{i:04d}" for i in range(topics)], 1, True)
    one = setup_topics(bench, ["many_one"], 1, False)
    total = topics * per_topic
    deployments = {"many": ("many_\\d{4}", total), "one": ("many_one", one_topic)}
    first = f"{topics} topics x {per_topic}, first run (tables created)"
    later = f"{topics} topics x {per_topic}, next run"
    reference = f"1 topic x {one_topic:,}, next run"
    for round_, label in ((1, first), (2, later)):
        produce_to(bench, small, per_topic, True, round_)
        produce_to(bench, one, one_topic, False, round_)
        for database, (include, expected) in deployments.items():
            seconds = bench.run_in_process(database, include, expected)
            proc, _, _ = bench.run_process(database, include, expected)
            work = label if database == "many" else (reference if round_ == 2 else None)
            if work:
                against = "" if work == reference else reference
                bench.add("many, in one process", Row(work, expected, seconds, against))
                bench.add("many, `loader run` processes", Row(work, expected, proc, against))


def curve(bench: Bench, sizes: list[int], per_topic: int, active: int) -> None:
    """Next runs of 10, 100, 1,000 topics; then the largest deployment with only `active` topics busy,
    against a deployment of just those topics."""
    largest = max(sizes)
    names = [f"curve_{i:04d}" for i in range(largest)]
    topics = setup_topics(bench, names, 1, True)

    def pattern(n: int) -> str:
        return "curve_\\d{4}" if n == largest else "curve_(" + "|".join(f"{i:04d}" for i in range(n)) + ")"

    deployments = sorted(set(sizes) | {active})
    produce_to(bench, topics, per_topic, True, 1)
    for n in deployments:  # first runs: tables created (not what the curve is about)
        bench.run_in_process(f"curve_{n}", pattern(n), n * per_topic)
        bench.run_process(f"curve_{n}", pattern(n), n * per_topic)
    produce_to(bench, topics, per_topic, True, 2)
    for n in deployments:
        seconds = bench.run_in_process(f"curve_{n}", pattern(n), n * per_topic)
        proc, _, _ = bench.run_process(f"curve_{n}", pattern(n), n * per_topic)
        if n in sizes:
            bench.add(
                "curve, in one process", Row(f"{n} topics x {per_topic}, next run", n * per_topic, seconds)
            )
            bench.add(
                "curve, `loader run` processes",
                Row(f"{n} topics x {per_topic}, next run", n * per_topic, proc),
            )
    produce_to(bench, {t: topics[t] for t in names[:active]}, per_topic, True, 3)
    records = active * per_topic
    only = f"{active} topics, all with new records"
    quiet = f"{largest} topics, {active} with new records"
    for table, run in (
        ("quiet topics, in one process", bench.run_in_process),
        ("quiet topics, `loader run` processes", lambda *a: bench.run_process(*a)[0]),
    ):
        bench.add(table, Row(only, records, run(f"curve_{active}", pattern(active), records)))
        bench.add(table, Row(quiet, records, run(f"curve_{largest}", pattern(largest), records), only))


def backlog(bench: Bench, records: int, partitions: int, *args: str) -> None:
    topic = "backlog_page_view"
    ids = setup_topics(bench, [topic], partitions, False)[topic]
    produce(bench.bootstrap, topic, encoded_events(ids, 5_000), records)
    seconds, runs, peak = bench.run_process("backlog", topic, records, *args)
    bench.add(
        "backlog",
        Row(
            f"`loader run {' '.join(args)}`".replace(" `", "`"),
            records,
            seconds,
            note=f"{runs} commit(s), driver peak {peak / 1024:.0f} MiB",
        ),
    )


def multitype(bench: Bench, records: int, partitions: int) -> None:
    """A topic of two event types next to a topic of one type holding the very same record bodies: a
    first run (the two types found by looking into the records, two tables created) and a next run over
    as many new records (the types known). Each topic is loaded by runs of its own, one after the other."""
    single, multi = "multitype_one", "multitype_two"
    create_topics(bench.bootstrap, [single, multi, "multitype_warm_up"], partitions)
    latest = VERSIONS[-1]
    # Untimed: when this scenario runs first, the session's first run pays for warming the JVM up.
    warm_up = register_versions(bench.registry_url, "multitype_warm_up")
    produce(bench.bootstrap, "multitype_warm_up", encoded_events(warm_up, 100), 1_000)
    bench.run_in_process("multitype_warm_up", "multitype_warm_up", 1_000)
    single_id = http(
        f"{bench.registry_url}/subjects/{single}-value/versions", {"schema": json.dumps(latest)}
    )["id"]
    type_ids = []
    for name in ("Click", "View"):  # RecordNameStrategy subjects: `<record full name>`
        schema = {**latest, "name": name}
        subject = f"{bench.registry_url}/subjects/{schema['namespace']}.{name}/versions"
        type_ids.append(http(subject, {"schema": json.dumps(schema)})["id"])
    distinct = min(records, DISTINCT_EVENTS_PER_VERSION)
    values = {single: encoded_latest([single_id], distinct), multi: encoded_latest(type_ids, distinct)}
    for label in ("first run (tables created)", "next run"):
        for topic in (single, multi):
            produce(bench.bootstrap, topic, values[topic], records)
        one = f"1 event type, {label}"
        bench.add(
            "multitype, in one process", Row(one, records, bench.run_in_process(single, single, records))
        )
        seconds = bench.run_in_process(multi, multi, records)
        bench.add("multitype, in one process", Row(f"2 event types, {label}", records, seconds, one))


def formats(bench: Bench, records: int, partitions: int, topics: int, per_topic: int) -> None:
    """Each format loads its own copy of the workload, one run after the other, so that the rows of a
    format are compared with Hive's of the same run and machine."""
    one = setup_topics(bench, ["formats_one"], partitions, False)
    small = setup_topics(bench, [f"formats_{i:04d}" for i in range(topics)], 1, True)
    produce_to(bench, one, records, False, 1)
    workloads = (
        ("formats_one", f"1 topic x {records:,}, first run", records),
        ("formats_\\d{4}", f"{topics} topics x {per_topic}, first run (tables created)", topics * per_topic),
        ("formats_\\d{4}", f"{topics} topics x {per_topic}, next run", topics * per_topic),
    )
    for index, (include, label, expected) in enumerate(workloads):
        if index > 0:
            produce_to(bench, small, per_topic, True, index)
        for table_format in ("hive", "iceberg"):
            database = f"formats_{table_format}_{'one' if index == 0 else 'many'}"
            seconds, _, peak = bench.run_process(database, include, expected, "--table-format", table_format)
            bench.add(
                "table formats, `loader run` processes",
                Row(
                    f"{table_format}: {label}",
                    expected,
                    seconds,
                    f"hive: {label}" if table_format == "iceberg" else "",
                    f"driver peak {peak / 1024:.0f} MiB",
                ),
            )


def value_formats(
    bench: Bench, records: int, partitions: int, kinds: tuple[str, ...], others: dict[str, Path]
) -> None:
    """The big topic's records as Avro, as JSON Schema and as Protobuf (those of `kinds`), a topic each,
    loaded by `loader run` processes one after the other, twice (the second round in the reverse order),
    each into a database of its own; with `others` (`--against`), each checkout's process in turn, which
    goes first alternating."""
    produced = {
        "avro": lambda: produce(
            bench.bootstrap,
            "vf_avro",
            encoded_events(setup_topics(bench, ["vf_avro"], partitions, False)["vf_avro"], 5_000),
            records,
        ),
        "json": lambda: produce(
            bench.bootstrap,
            "vf_json",
            encoded_json_events(register_json_versions(bench.registry_url, "vf_json"), 5_000),
            records,
        ),
        "protobuf": lambda: produce(
            bench.bootstrap,
            "vf_protobuf",
            encoded_protobuf_events(register_protobuf_version(bench.registry_url, "vf_protobuf"), 15_000),
            records,
        ),
    }
    create_topics(bench.bootstrap, [f"vf_{k}" for k in kinds if k != "avro"], partitions)
    for kind in kinds:
        produced[kind]()
    checkouts = {"this": bench.code_dir, **others}
    names = {"avro": "Avro", "json": "JSON Schema", "protobuf": "Protobuf"}
    order = [k for k in ("json", "protobuf", "avro") if k in kinds]
    for round_, kinds_in_turn in enumerate((order, order[::-1])):
        for kind in kinds_in_turn:
            for name in sorted(checkouts, reverse=bool(round_ % 2)):
                suffix = f"_{name}" if others else ""
                seconds, _, peak = bench.run_process(
                    f"vf_{kind}_{round_}{suffix}", f"vf_{kind}", records, code_dir=checkouts[name]
                )
                tag = f", {name}" if others else ""
                label = f"{names[kind]}{tag}: 1 topic x {records:,}, round {round_ + 1}"
                against = (
                    f"Avro{tag}: 1 topic x {records:,}, round {round_ + 1}"
                    if kind != "avro" and "avro" in kinds
                    else ""
                )
                bench.add(
                    "value formats, `loader run` processes",
                    Row(label, records, seconds, against, f"driver peak {peak / 1024:.0f} MiB"),
                )


def lake(bench: Bench, records: int, partitions: int, topics: int, per_topic: int) -> None:
    """Iceberg tables through a REST catalog with their files on an object store (both on this machine:
    `scripts/iceberg-rest`, `scripts/object-store`), with the loader's state directory on a local disk and
    on the store, against Iceberg tables in the embedded metastore on a local warehouse, each loading its
    own copy of the workload, one run after the other. The last column spreads the difference over the
    run's Iceberg commits (one per table): what each commit costs more through the catalog and the store,
    the catalog's requests and the store's writes together."""
    one = setup_topics(bench, ["lake_one"], partitions, False)
    small = setup_topics(bench, [f"lake_{i:04d}" for i in range(topics)], 1, True)
    produce_to(bench, one, records, False, 1)
    # (topics, label, records, commits, database, what to produce before the run)
    workloads = (
        ("lake_one", f"1 topic x {records:,}, first run", records, 1, "lake_one", None),
        ("lake_one", f"1 topic x {records:,}, next run", records, 1, "lake_one", (one, records, False, 2)),
        (
            "lake_\\d{4}",
            f"{topics} topics x {per_topic}, first run (tables created)",
            topics * per_topic,
            topics,
            "lake_many",
            (small, per_topic, True, 1),
        ),
        (
            "lake_\\d{4}",
            f"{topics} topics x {per_topic}, next run",
            topics * per_topic,
            topics,
            "lake_many",
            (small, per_topic, True, 2),
        ),
    )
    with rest_catalog_on_object_store(bench.workdir) as rest:
        state_on_store = {
            **rest,
            "LOADER_S3_ACCESS_KEY_FILE": str(bench.workdir / "object-store" / "secrets" / "access-key"),
            "LOADER_S3_SECRET_KEY_FILE": str(bench.workdir / "object-store" / "secrets" / "secret-key"),
        }
        for include, label, expected, commits, database, before in workloads:
            if before is not None:
                produce_to(bench, *before)
            local_label = f"metastore, local warehouse: {label}"
            local, _, _ = bench.run_process(
                f"{database}_local", include, expected, "--table-format", "iceberg"
            )
            bench.add("Iceberg lakes, `loader run` processes", Row(local_label, expected, local))
            variants = (
                ("REST catalog, object store", f"{database}_rest", rest),
                (
                    "REST catalog, object store, state on the store",
                    f"{database}_rest_state",
                    {**state_on_store, "LOADER_STATE_DIR": f"s3://warehouse/loader-state/{database}"},
                ),
            )
            for name, variant_database, env in variants:
                seconds, _, _ = bench.run_process(variant_database, include, expected, extra_env=env)
                per_commit = (seconds - local) / commits * 1000
                bench.add(
                    "Iceberg lakes, `loader run` processes",
                    Row(
                        f"{name}: {label}",
                        expected,
                        seconds,
                        local_label,
                        f"{per_commit:+.0f} ms per table commit",
                    ),
                )


def cluster(bench: Bench, records: int, partitions: int, rounds: int = 2) -> None:
    """The same topic loaded in `local[2]` and on the two-worker cluster, in turns (`rounds` times, each
    into databases of its own, the cluster's idle daemons up for both): the same two cores of this machine
    either way, so the difference is what the cluster adds (executors in other JVMs, HDFS, the PostgreSQL
    metastore, spark-submit), not more hardware."""
    topic = "cluster_page_view"
    ids = setup_topics(bench, [topic], partitions, False)[topic]
    produce(bench.bootstrap, topic, encoded_events(ids, 5_000), records)
    with spark_cluster() as addresses:
        for round_ in range(1, rounds + 1):
            local = f"round {round_}: `loader run` process, local[2], local warehouse, Derby metastore"
            seconds, _, peak = bench.run_process(f"cluster_local_{round_}", topic, records)
            bench.add("cluster", Row(local, records, seconds, "", f"driver peak {peak / 1024:.0f} MiB"))
            seconds = bench.submit_to_cluster(addresses, f"cluster_submitted_{round_}", topic, records)
            submitted = f"round {round_}: spark-submit to Spark standalone (2 workers x 1 core), HDFS"
            bench.add("cluster", Row(submitted, records, seconds, local))


def paired(
    bench: Bench,
    other: Path,
    topics: int,
    per_topic: int,
    rounds: int,
    this_env: dict[str, str],
    quiet_rounds: int = 0,
) -> None:
    """This checkout's `loader run` against another's, each into a database of its own, both reading the
    same new records in every round, then `quiet_rounds` runs each with nothing new (what most cron
    ticks of a quiet deployment are). `this_env`: more environment of this checkout's runs (with `other`
    this same checkout, the pair compares those settings alone)."""
    small = setup_topics(bench, [f"paired_{i:04d}" for i in range(topics)], 1, True)
    include = "paired_\\d{4}"
    checkouts = {"other checkout": other, "this checkout": bench.code_dir}
    for round_ in range(rounds + 1 + quiet_rounds):
        quiet = round_ > rounds
        if not quiet:
            produce_to(bench, small, per_topic, True, round_ + 1)
        expected = 0 if quiet else topics * per_topic
        if round_ == 0:
            which = "first run (tables created)"
        elif quiet:
            which = f"quiet run {round_ - rounds}"
        else:
            which = f"next run {round_}"
        label = f"{topics} x {per_topic}, {which}"
        seconds = {}
        for name in sorted(checkouts, reverse=bool(round_ % 2)):
            database = "paired_" + name.split()[0]
            env = this_env if name == "this checkout" else {}
            seconds[name], _, _ = bench.run_process(
                database, include, expected, code_dir=checkouts[name], extra_env=env
            )
        bench.add(
            "paired, `loader run` processes",
            Row(f"{label}: other checkout", expected, seconds["other checkout"]),
        )
        against = f"{label}: other checkout"
        bench.add(
            "paired, `loader run` processes",
            Row(f"{label}: this checkout", expected, seconds["this checkout"], against),
        )


@dataclass(frozen=True)
class SmallTopics:
    """The small scenario's shape (issue-sized defaults: 120 x 500, 5 of them active, 1,000 x 100)."""

    topics: int
    per_topic: int
    active: int
    curve_topics: int
    curve_records: int


def small(bench: Bench, shape: SmallTopics, others: dict[str, Path]) -> None:
    """Many small topics against one topic of as many records, per table format and checkout, as
    processes; each checkout loads into databases of its own (`<workload>_<format>_<checkout>`), the
    checkouts in turn, which goes first alternating from run to run."""
    checkouts = {"this": bench.code_dir, **others}
    n, per, active = shape.topics, shape.per_topic, shape.active
    small_topics = setup_topics(bench, [f"small_{i:04d}" for i in range(n)], 1, True)
    one = setup_topics(bench, ["small_one"], 1, False)
    only_active = "small_(" + "|".join(f"{i:04d}" for i in range(active)) + ")"
    turn = 0

    def each(workload: str, include: str, expected: int, label: str, against: str = "") -> None:
        nonlocal turn
        for table_format in ("hive", "iceberg"):
            order = sorted(checkouts, reverse=bool(turn % 2))
            turn += 1
            for name in order:
                database = f"{workload}_{table_format}_{name}"
                seconds, _, _ = bench.run_process(
                    database, include, expected, "--table-format", table_format, code_dir=checkouts[name]
                )
                if label:
                    tag = f"{table_format}, {name}" if len(checkouts) > 1 else table_format
                    phases = ", ".join(f"{k} {v:.1f}" for k, v in bench.last_phases.items())
                    row = Row(
                        f"{tag}: {label}", expected, seconds, f"{tag}: {against}" if against else "", phases
                    )
                    bench.add("small topics, `loader run` processes", row)

    for round_, which in ((1, "first run"), (2, "next run")):
        produce_to(bench, small_topics, per, True, round_)
        produce_to(bench, one, n * per, False, round_)
        reference = f"1 x {n * per:,}, {which}"
        each("smallone", "small_one", n * per, reference)
        each("small", "small_\\d{4}", n * per, f"{n} x {per}, {which}", reference)
        each("smallactive", only_active, active * per, "")  # the few topics' own deployment keeps up
    produce_to(bench, {t: small_topics[t] for t in sorted(small_topics)[:active]}, per, True, 3)
    alone = f"{active} topics alone, next run"
    each("smallactive", only_active, active * per, alone)
    each("small", "small_\\d{4}", active * per, f"{active} of {n} topics with new records", alone)
    if shape.curve_topics:
        curve_names = [f"smallcurve_{i:04d}" for i in range(shape.curve_topics)]
        curve_topics = setup_topics(bench, curve_names, 1, True)
        curve_one = setup_topics(bench, ["smallcurve_one"], 1, False)
        total = shape.curve_topics * shape.curve_records
        for round_ in (1, 2):  # the first runs make the tables; the curve is about next runs
            produce_to(bench, curve_topics, shape.curve_records, True, round_)
            produce_to(bench, curve_one, total, False, round_)
            label = "" if round_ == 1 else f"1 x {total:,}, next run"
            each("smallcurveone", "smallcurve_one", total, label)
            curve = f"{shape.curve_topics} x {shape.curve_records}, next run" if round_ == 2 else ""
            each("smallcurve", "smallcurve_\\d{4}", total, curve, label)


def encoded_latest(schema_ids: list[int], count: int, seed: int = 13) -> list[bytes]:
    """Values of the latest version, their schema ids taken in turn from `schema_ids`: the bodies are the
    same whether the ids are one type's or several types' of the same fields."""
    rng = random.Random(seed)
    parsed = fastavro.parse_schema(VERSIONS[-1])
    values = []
    for i in range(count):
        body = io.BytesIO()
        body.write(b"\x00" + struct.pack(">I", schema_ids[i % len(schema_ids)]))
        fastavro.schemaless_writer(body, parsed, event(3, rng))
        values.append(body.getvalue())
    return values


def markdown(rows: list[Row]) -> str:
    by_name = {row.work: row for row in rows}
    lines = ["| work | records | seconds | records/s | ratio | |", "|---|---:|---:|---:|---|---|"]
    for row in rows:
        ratio = ""
        if row.against and by_name.get(row.against):
            other = by_name[row.against]
            ratio = f"{row.seconds / other.seconds:.2f}x the time of {row.against}"
        lines.append(
            f"| {row.work} | {row.records:,} | {row.seconds:.1f} | {row.rate:,.0f} | {ratio} | {row.note} |"
        )
    return "\n".join(lines)


def _import_first(*names: str) -> ModuleType:
    """The first of the modules that the checkout under test has: `--code-dir` may name a version from
    before the loader's modules moved into sub-packages."""
    for name in names[:-1]:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    return importlib.import_module(names[-1])


def _long_lived_jvm(config: ModuleType) -> dict[str, str]:
    """The in-process runs share one JVM that lives through every scenario: the JVM's own tiered JIT,
    not the quick one a `loader run` process starts with (docs/loader.md, "The JIT of a fresh JVM"),
    for loaders that have the setting."""
    known = {f.name for f in dataclasses.fields(config.LoaderSettings)}
    return {"driver_jit": "full"} if "driver_jit" in known else {}


def _name_value(item: str) -> tuple[str, str]:
    name, sep, value = item.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {item!r}")
    return name, value


CURRENT_VARIANTS = (
    # (database, label, extra settings)
    ("current_append", "append table alone", {}),
    ("current_history", "current-state table + history table", {"current_state_topics": "current_keys"}),
    (
        "current_only",
        "current-state table alone (history = false)",
        {"current_state_topics": "current_keys", "current_state_history": False},
    ),
)


def table_files(bench: Bench, table: str) -> tuple[int, int]:
    """The data files and delete files (position deletes, deletion vectors) of an Iceberg table."""
    bench.spark.catalog.refreshTable(table)
    rows = bench.spark.sql(f"SELECT content, count(*) AS n FROM {table}.files GROUP BY content").collect()
    found = {int(r["content"]): int(r["n"]) for r in rows}
    return found.get(0, 0), found.get(1, 0) + found.get(2, 0)


def current(bench: Bench, keys: int, runs: int, shares: list[float], partitions: int) -> None:
    """Current-state tables against an append table of the same records (see the module's text)."""
    from rich.console import Console

    from loader.operations import maintain as maintenance

    topic = "current_keys"
    ids = setup_topics(bench, [topic], partitions, False)[topic]
    values = encoded_events(ids, 5_000)
    produce_keyed(bench.bootstrap, topic, values, list(range(keys)))
    quiet = Console(stderr=True, quiet=True)

    def settings(database: str, extra: dict[str, Any]) -> Any:
        # The first run loads every key in one run, however many (not the loader's per-run bound).
        bound = max(keys, 1_000_000)
        return bench.settings(
            database, topic, table_format="iceberg", max_records_per_partition=bound, **extra
        )

    turns = iter(range(1_000_000))

    def load(label: str, expected: int) -> None:
        # Which variant goes first turns from run to run, so that none always pays the session's warm-up.
        turn = next(turns) % len(CURRENT_VARIANTS)
        for database, variant, extra in CURRENT_VARIANTS[turn:] + CURRENT_VARIANTS[:turn]:
            report = bench.loader.job.run(settings(database, extra), bench.spark, quiet)
            loaded = sum(t.records for t in report.topics)
            if report.exit_code != 0 or loaded != expected:
                sys.exit(f"{database}: exit {report.exit_code}, {loaded} of {expected}: {report.to_json()}")
            against = "" if database == "current_append" else f"append table alone: {label}"
            bench.add("current-state tables", Row(f"{variant}: {label}", expected, report.seconds, against))

    files = ["| table | when | data files | delete files |", "|---|---|---:|---:|"]

    def count_files(label: str) -> None:
        for database, variant, _ in CURRENT_VARIANTS:
            for table in (f"{database}.{topic}", f"{database}.{topic}_current"):
                if bench.spark.catalog.tableExists(table):
                    data, deletes = table_files(bench, table)
                    files.append(f"| {variant}: {table.split('.')[1]} | {label} | {data} | {deletes} |")
                    print(f"  {files[-1]}", file=sys.stderr, flush=True)

    load(f"first run, {keys:,} keys", keys)
    rng = random.Random(61)
    for share in shares:
        changed = max(1, int(keys * share))
        for run in range(runs):
            produce_keyed(bench.bootstrap, topic, values, rng.sample(range(keys), changed))
            load(f"{share:.0%} of the keys changed, run {run + 1}", changed)
        count_files(f"after {runs} runs of {share:.0%}")
        for database, variant, extra in CURRENT_VARIANTS:
            started = time.perf_counter()
            done = maintenance.maintain(settings(database, extra), bench.spark)
            if done.exit_code != 0:
                sys.exit(f"loader maintain of {database} failed: {done.error}")
            print(f"  maintain {variant}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
        count_files(f"after {runs} runs of {share:.0%}, then `loader maintain`")
    print("\ncurrent-state tables: files\n\n" + "\n".join(files))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scenarios", default=",".join(SCENARIOS), help=f"comma-separated, of {', '.join(SCENARIOS)}"
    )
    parser.add_argument(
        "--code-dir", type=Path, default=REPO_ROOT, help="the checkout whose loader is measured"
    )
    parser.add_argument("--records", type=int, default=1_000_000, help="records of the big topic")
    parser.add_argument("--partitions", type=int, default=4, help="partitions of the big and backlog topics")
    parser.add_argument("--keyed-records", type=int, default=200_000)
    parser.add_argument("--many-topics", type=int, default=200)
    parser.add_argument("--records-per-topic", type=int, default=500)
    parser.add_argument("--one-topic-records", type=int, default=100_000)
    parser.add_argument("--format-topics", type=int, default=100, help="small topics of the formats scenario")
    parser.add_argument("--curve", default="10,100,1000", help="topic counts of the scale curve")
    parser.add_argument("--curve-records", type=int, default=100)
    parser.add_argument("--active-topics", type=int, default=10)
    parser.add_argument("--backlog", type=int, default=10_000_000)
    parser.add_argument("--backlog-args", default="--until-caught-up", help="options of the backlog run")
    parser.add_argument(
        "--multitype-records", type=int, default=200_000, help="records of each multitype topic"
    )
    parser.add_argument("--current-keys", type=int, default=10_000_000, help="keys of the current scenario")
    parser.add_argument("--current-runs", type=int, default=10, help="runs of each share of changed keys")
    parser.add_argument("--current-shares", default="0.01,0.1", help="shares of the keys changed per run")
    parser.add_argument(
        "--against",
        type=Path,
        help="the other checkout of the paired scenario (and of small and value-formats, if given)",
    )
    parser.add_argument("--small-topics", type=int, default=120, help="small topics of the small scenario")
    parser.add_argument("--small-records", type=int, default=500, help="records per small topic and run")
    parser.add_argument("--small-active", type=int, default=5, help="of the small topics, those active")
    parser.add_argument(
        "--small-curve", type=int, default=1000, help="topics of the small scenario's curve (0: none)"
    )
    parser.add_argument(
        "--value-formats",
        default="avro,json,protobuf",
        help="the value-formats scenario's formats, of avro, json, protobuf",
    )
    parser.add_argument("--paired-topics", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=4, help="next runs of the paired scenario")
    parser.add_argument(
        "--quiet-rounds", type=int, default=0, help="runs with nothing new after the paired scenario's rounds"
    )
    parser.add_argument(
        "--this-env",
        action="append",
        default=[],
        type=_name_value,
        metavar="NAME=VALUE",
        help="environment of this checkout's runs in the paired scenario (repeatable)",
    )
    parser.add_argument(
        "--process-env",
        action="append",
        default=[],
        type=_name_value,
        metavar="NAME=VALUE",
        help="environment of every `loader run` process (repeatable), e.g. a LOADER_* setting",
    )
    args = parser.parse_args()
    chosen = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    unknown = sorted(set(chosen) - set(SCENARIOS))
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(unknown)}")
    if "current" in chosen and chosen != ["current"]:
        parser.error("the current scenario runs alone (its Spark session is Iceberg's)")
    if "paired" in chosen and args.against is None:
        parser.error("the paired scenario needs --against, the other checkout")

    sys.path.insert(0, str(args.code_dir.resolve()))
    loader = argparse.Namespace(
        job=importlib.import_module("loader.job"),
        config=importlib.import_module("loader.config"),
        kafka_metadata=_import_first("loader.reading.kafka_metadata", "loader.kafka_metadata"),
        planning=_import_first("loader.planning.offsets", "loader.planning"),
    )
    workdir = Path(tempfile.mkdtemp(prefix="loader-bench-"))
    try:
        with kafka_broker(workdir) as bootstrap, registry_server(workdir) as registry_url:
            iceberg = {"table_format": "iceberg"} if chosen == ["current"] else {}
            settings = loader.config.LoaderSettings(
                bootstrap,
                registry_url,
                str(workdir / "warehouse"),
                **_long_lived_jvm(loader.config),
                **iceberg,
            ).validate()
            spark = loader.job.spark_for(settings)
            bench = Bench(bootstrap, registry_url, workdir, args.code_dir.resolve(), spark, loader)
            bench.process_env = dict(args.process_env)
            try:
                for scenario in chosen:
                    print(f"scenario {scenario}", file=sys.stderr, flush=True)
                    if scenario == "big":
                        big(bench, args.records, args.partitions)
                    elif scenario == "keys":
                        keys(bench, args.keyed_records)
                    elif scenario == "many":
                        many(bench, args.many_topics, args.records_per_topic, args.one_topic_records)
                    elif scenario == "curve":
                        sizes = [int(n) for n in args.curve.split(",")]
                        curve(bench, sizes, args.curve_records, args.active_topics)
                    elif scenario == "backlog":
                        backlog(bench, args.backlog, args.partitions, *args.backlog_args.split())
                    elif scenario == "multitype":
                        multitype(bench, args.multitype_records, args.partitions)
                    elif scenario == "cluster":
                        cluster(bench, args.records, args.partitions)
                    elif scenario == "paired":
                        paired(
                            bench,
                            args.against.resolve(),
                            args.paired_topics,
                            args.records_per_topic,
                            args.rounds,
                            dict(args.this_env),
                            args.quiet_rounds,
                        )
                    elif scenario == "small":
                        shape = SmallTopics(
                            args.small_topics,
                            args.small_records,
                            args.small_active,
                            args.small_curve,
                            args.curve_records,
                        )
                        small(bench, shape, {"other": args.against.resolve()} if args.against else {})
                    elif scenario == "current":
                        shares = [float(x) for x in args.current_shares.split(",")]
                        current(bench, args.current_keys, args.current_runs, shares, args.partitions)
                    elif scenario == "formats":
                        formats(
                            bench, args.records, args.partitions, args.format_topics, args.records_per_topic
                        )
                    elif scenario == "value-formats":
                        kinds = tuple(k.strip() for k in args.value_formats.split(",") if k.strip())
                        others = {"other": args.against.resolve()} if args.against else {}
                        value_formats(bench, args.records, args.partitions, kinds, others)
                    elif scenario == "lake":
                        lake(bench, args.records, args.partitions, args.format_topics, args.records_per_topic)
            finally:
                spark.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for table, rows in bench.tables.items():
        print(f"\n{table}:\n\n{markdown(rows)}")
    print(f"\n{os.cpu_count()} CPUs; code measured: {args.code_dir}")


if __name__ == "__main__":
    main()
