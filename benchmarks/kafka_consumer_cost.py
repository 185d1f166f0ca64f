"""What a Kafka consumer of its own costs a small topic: `python benchmarks/kafka_consumer_cost.py`.

Spark's Kafka source reads each topic partition with a consumer of its own (its pool is keyed by the
topic partition), so a run over many small topics makes and closes a consumer per topic. This script
reads `--topics` (60) one-partition topics of `--records` (499) records in the driver JVM of the
loader's Spark session (Kafka's Java client as Spark ships it, the loader's fetch wait), three ways per
round: a new consumer per topic, the same without Kafka's JMX reporter, and one consumer assigned each
topic in turn. The difference between the first and the last is what a consumer per topic partition
costs; the calls go through Py4J, which adds the same to each way.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loader_services import REPO_ROOT, create_topics, kafka_broker, produce, registry_server

READ_TIMEOUT_S = 30  # a topic short of its records fails the script instead of polling for ever


def consumer_properties(jvm: Any, bootstrap: str, fetch_max_wait_ms: str, **extra: str) -> Any:
    props = jvm.java.util.Properties()
    deserializer = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
    for name, value in {
        "bootstrap.servers": bootstrap,
        "key.deserializer": deserializer,
        "value.deserializer": deserializer,
        "enable.auto.commit": "false",
        "auto.offset.reset": "none",
        "fetch.max.wait.ms": fetch_max_wait_ms,
        **extra,
    }.items():
        props.put(name, value)
    return props


def read_all(jvm: Any, consumer: Any, topic: str, *, records: int) -> None:
    partition = jvm.org.apache.kafka.common.TopicPartition(topic, 0)
    assignment = jvm.java.util.ArrayList()
    assignment.add(partition)
    consumer.assign(assignment)
    consumer.seek(partition, 0)
    read, deadline = 0, time.monotonic() + READ_TIMEOUT_S
    while read < records:
        if time.monotonic() > deadline:
            raise SystemExit(f"{topic}: {read} of {records} records read in {READ_TIMEOUT_S} s")
        read += consumer.poll(jvm.java.time.Duration.ofMillis(500)).count()


def ms_per_topic(topics: list[str], read: Callable[[str], None]) -> float:
    start = time.perf_counter()
    for topic in topics:
        read(topic)
    return (time.perf_counter() - start) / len(topics) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=60)
    parser.add_argument("--records", type=int, default=499)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO_ROOT))
    job = importlib.import_module("loader.job")
    config = importlib.import_module("loader.config")
    fetch_max_wait_ms = importlib.import_module("loader.reading.topic_read").FETCH_MAX_WAIT_MS
    workdir = Path(tempfile.mkdtemp(prefix="kafka-consumer-cost-"))
    try:
        with kafka_broker(workdir) as bootstrap, registry_server(workdir) as registry_url:
            settings = config.LoaderSettings(
                bootstrap, registry_url, str(workdir / "warehouse"), driver_jit="full"
            ).validate()
            spark = job.spark_for(settings)
            try:
                measure(spark._jvm, bootstrap, fetch_max_wait_ms, args)
            finally:
                spark.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def measure(jvm: Any, bootstrap: str, fetch_max_wait_ms: str, args: argparse.Namespace) -> None:
    topics = [f"cost_{i:03d}" for i in range(args.topics)]
    create_topics(bootstrap, topics, 1)
    for topic in topics:
        produce(bootstrap, topic, [b"x" * 200], args.records)
    kafka_consumer = jvm.org.apache.kafka.clients.consumer.KafkaConsumer
    default = consumer_properties(jvm, bootstrap, fetch_max_wait_ms)
    no_jmx = consumer_properties(jvm, bootstrap, fetch_max_wait_ms, **{"auto.include.jmx.reporter": "false"})

    def own_consumer(props: Any) -> Callable[[str], None]:
        def read(topic: str) -> None:
            consumer = kafka_consumer(props)
            try:
                read_all(jvm, consumer, topic, records=args.records)
            finally:
                consumer.close()

        return read

    print("| round | a consumer per topic (ms) | the same, no JMX reporter (ms) | one consumer (ms) |")
    print("|---:|---:|---:|---:|")
    for round_ in range(1, args.rounds + 1):
        each = ms_per_topic(topics, own_consumer(default))
        each_no_jmx = ms_per_topic(topics, own_consumer(no_jmx))
        shared = kafka_consumer(default)
        try:
            one = ms_per_topic(topics, partial(read_all, jvm, shared, records=args.records))
        finally:
            shared.close()
        print(f"| {round_} | {each:.1f} | {each_no_jmx:.1f} | {one:.1f} |", flush=True)


if __name__ == "__main__":
    main()
