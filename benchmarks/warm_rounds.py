"""How a long-lived driver JVM's runs settle: `python benchmarks/warm_rounds.py [--driver-jit quick|full]`.

The `many` scenario of `loader_bench.py` measures a 200-topic next run in one process only twice (first
run, next run), so its in-process rows hold whatever the JIT still compiles. This script loads the same
deployments in one Spark session `--rounds` times over (new records before each round): `--topics`
(200) small topics of `--records-per-topic` (499) records, then one topic of `--one-topic-records`
(100,000). Per round and run it prints the seconds, the JIT's compilations (`sun.ci.totalCompiles`, read
with `jcmd`) and its compiler threads' time (the JVM's `CompilationMXBean`), so that what the JIT costs
can be told from what the runs' own work costs: with `--driver-jit quick` (C1 alone) the JIT does
little, and a run that does not get faster was not waiting on it.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loader_bench import Bench, produce_to, setup_topics
from loader_services import REPO_ROOT, kafka_broker, registry_server


@dataclass(frozen=True)
class JitCounters:
    compilations: int
    compiler_ms: int


class JitProbe:
    """The driver JVM's JIT counters, read between runs."""

    def __init__(self, spark: Any) -> None:
        jvm = spark._jvm
        self._pid = str(jvm.ProcessHandle.current().pid())
        self._jcmd = str(Path(jvm.System.getProperty("java.home")) / "bin" / "jcmd")
        self._bean = jvm.java.lang.management.ManagementFactory.getCompilationMXBean()

    def read(self) -> JitCounters:
        out = subprocess.run(
            [self._jcmd, self._pid, "PerfCounter.print"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
        counters = dict(line.partition("=")[::2] for line in out.splitlines())
        return JitCounters(int(counters["sun.ci.totalCompiles"]), int(self._bean.getTotalCompilationTime()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--driver-jit", choices=("quick", "full"), default="full")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--records-per-topic", type=int, default=499)
    parser.add_argument("--one-topic-records", type=int, default=100_000)
    args = parser.parse_args()

    sys.path.insert(0, str(REPO_ROOT))
    loader = argparse.Namespace(
        job=importlib.import_module("loader.job"), config=importlib.import_module("loader.config")
    )
    workdir = Path(tempfile.mkdtemp(prefix="warm-rounds-"))
    try:
        measure(args, loader, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def measure(args: argparse.Namespace, loader: Any, workdir: Path) -> None:
    with kafka_broker(workdir) as bootstrap, registry_server(workdir) as registry_url:
        settings = loader.config.LoaderSettings(
            bootstrap, registry_url, str(workdir / "warehouse"), driver_jit=args.driver_jit
        ).validate()
        spark = loader.job.spark_for(settings)
        bench = Bench(bootstrap, registry_url, workdir, REPO_ROOT, spark, loader)
        probe = JitProbe(spark)
        small = setup_topics(bench, [f"many_{i:04d}" for i in range(args.topics)], 1, True)
        one = setup_topics(bench, ["many_one"], 1, False)
        deployments = (
            (
                "many",
                "many_\\d{4}",
                args.topics * args.records_per_topic,
                f"{args.topics} x {args.records_per_topic}",
            ),
            ("one", "many_one", args.one_topic_records, f"1 x {args.one_topic_records:,}"),
        )
        lines = [
            "| round | work | seconds | JIT compilations | JIT compiler threads (s) |",
            "|---:|---|---:|---:|---:|",
        ]
        try:
            for round_ in range(1, args.rounds + 1):
                produce_to(bench, small, args.records_per_topic, True, round_)
                produce_to(bench, one, args.one_topic_records, False, round_)
                for database, include, expected, work in deployments:
                    before = probe.read()
                    seconds = bench.run_in_process(database, include, expected)
                    after = probe.read()
                    lines.append(
                        f"| {round_} | {work} | {seconds:.1f} | {after.compilations - before.compilations:,} "
                        f"| {(after.compiler_ms - before.compiler_ms) / 1000:.1f} |"
                    )
                    print(lines[-1], file=sys.stderr, flush=True)
        finally:
            spark.stop()
    print(f"\ndriver JIT: {args.driver_jit}\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
