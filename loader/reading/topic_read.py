"""Reading one topic's planned ranges from Kafka, and counting what was read as the rows go by.

Each topic's pass reads its own ranges straight from Kafka: a run keeps no copy of what it read, no pass
scans another topic's records, and Kafka (which holds the records anyway) serves the rare second read
that collects a topic's bad records. What was read is counted per window in the same job that writes the
rows (see `loader.reading.window_counts`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from pyspark.sql import DataFrame, Observation, SparkSession
from pyspark.sql import functions as F

from loader.planning.offsets import OffsetRange, kafka_source_options, task_count
from loader.reading.kafka_security import KafkaSecurity, spark_kafka_options
from loader.reading.window_counts import (
    HISTOGRAM_BINS,
    WINDOW_SECONDS,
    is_exact,
    summed,
    summed_by_member,
)

# How long the broker may hold a fetch that finds no new records (Kafka's default: 500 ms). A task reads
# each partition up to its planned end, where the consumer has already asked for more; Spark's source
# then asks the broker for the partition's offset range, which waits on the same connection behind that
# held fetch, with the CPUs idle: half a second for every topic partition a task read at Kafka's
# default, still more than a quarter of a small topics' group task at 10 ms. The records a run reads are
# all there before it starts, so a short wait costs nothing else. One millisecond, not none: a poll that
# finds nothing (a new leader whose high watermark lags after a failover) then asks the broker a
# thousand times a second at most, not as fast as it answers (benchmarks/JOURNAL.md, "A millisecond's
# fetch wait"). A `kafka.` property of the settings' own still wins.
FETCH_MAX_WAIT_MS = "1"


class KafkaReadSettings(Protocol):
    """What a read of Kafka needs of the loader's settings (`loader.config.LoaderSettings` has it, and so
    has `KafkaRead`, what a run's passes are given)."""

    @property
    def bootstrap_servers(self) -> str: ...
    @property
    def metadata_timeout_s(self) -> float: ...
    @property
    def kafka_security(self) -> KafkaSecurity: ...
    @property
    def records_per_task(self) -> int: ...
    @property
    def task_pool_size(self) -> int: ...


@dataclass(frozen=True)
class KafkaRead:
    """How a run's passes read Kafka: the brokers, their security, the timeout of each request, and how
    a topic's ranges are split into tasks."""

    bootstrap_servers: str
    metadata_timeout_s: float
    kafka_security: KafkaSecurity
    records_per_task: int
    task_pool_size: int


def read_timeouts(timeout_s: float) -> dict[str, str]:
    """What bounds a read by `metadata-timeout-s`: a broker that goes away ends the read about that long
    after, instead of after the clients' own defaults (a minute for each of Spark's offset lookups, tried
    three times, and two minutes for a task's poll). Each of Kafka's requests (`request.timeout.ms`) and
    calls (`default.api.timeout.ms`, the offset lookups and a consumer's seek) is bounded by it, and so is
    a task's wait for records (`kafkaConsumer.pollTimeoutMs`); Spark's offset lookup is tried once
    (`fetchOffset.numRetries`): Kafka's admin client already retries within its timeout, a leader's change
    included."""
    millis = str(max(1, round(timeout_s * 1000)))
    return {
        "kafka.request.timeout.ms": millis,
        "kafka.default.api.timeout.ms": millis,
        "kafkaConsumer.pollTimeoutMs": millis,
        "fetchOffset.numRetries": "1",
    }


def kafka_read_options(settings: KafkaReadSettings, ranges: list[OffsetRange]) -> dict[str, str]:
    """The options of Spark's Kafka source for `ranges`, later ones winning over earlier ones."""
    return {
        "kafka.bootstrap.servers": settings.bootstrap_servers,
        "kafka.fetch.max.wait.ms": FETCH_MAX_WAIT_MS,
        **read_timeouts(settings.metadata_timeout_s),
        **spark_kafka_options(settings.kafka_security),
        # Committed records only: an aborted transaction's records are never loaded, and the planned
        # end offsets are last stable offsets, so no open transaction is read half.
        "kafka.isolation.level": "read_committed",
        "includeHeaders": "true",
        **kafka_source_options(ranges),
    }


def read_ranges(spark: SparkSession, settings: KafkaReadSettings, ranges: list[OffsetRange]) -> DataFrame:
    """The records of `ranges` (one topic's), committed ones only, with their headers."""
    tasks = max(1, task_count(ranges, settings.records_per_task, settings.task_pool_size))
    frame = (
        spark.read.format("kafka")
        .options(**kafka_read_options(settings, ranges))
        .option("minPartitions", str(tasks))
        .load()
    )
    # A small topic of many partitions is one task (and one file per time partition), not one per partition.
    return frame.coalesce(tasks)


@dataclass
class ReadCounts:
    """What a topic's ranges held, per 10-minute window of record time: every record read, and the
    tombstones among them; and how many records had no key."""

    records: dict[str, int] = field(default_factory=dict)
    tombstones: dict[str, int] = field(default_factory=dict)
    newest: str | None = None  # the newest record's Kafka timestamp (ISO 8601, UTC); None: none read
    keyless: int | None = 0  # records without a key (refused from a current-state table); None: not counted


def observed_metrics(observation: Observation, *names: str) -> dict[str, Any] | None:
    """The named metrics of an observation whose action has run, one JVM call each; None when Spark left
    the observation empty. Spark 3.5's adaptive execution does that to a query whose rows all went away
    before its end (a write of records the table already holds: the plan below it replaced by an empty
    relation), so the caller counts by a query of its own rather than read "nothing" as zero.

    `Observation.get` copies Spark's map by iterating it from Python; the iteration ends in a Java
    exception, which PySpark inspects with a dozen more calls: about 15 ms, twice in a small topic's pass."""
    metrics = observation._jo.getAsJava()  # waits for the action, as `get` does
    if not metrics.containsKey(names[0]):
        return None
    return {name: metrics.get(name) for name in names}


def _micros(timestamp: str) -> F.Column:
    return F.unix_micros(F.col(timestamp))


def micros_text(micros: int | None) -> str | None:
    """Microseconds since the epoch as ISO 8601 in UTC (`2026-11-28T17:40:03.250000+00:00`)."""
    if micros is None:
        return None
    return datetime.fromtimestamp(int(micros) / 1_000_000, UTC).isoformat()


def _window(timestamp: str) -> F.Column:
    return F.floor(F.unix_seconds(F.col(timestamp)) / WINDOW_SECONDS)


class CountedRead:
    """A read of one topic whose records are counted per window by whatever action runs over it first."""

    def __init__(self, frame: DataFrame) -> None:
        self._read = GroupCountedRead(frame, F.lit(0), 1)
        self.frame = self._read.frame

    def counts(self) -> ReadCounts:
        """The counts, once an action ran over `frame`; exact, or counted again with a GROUP BY over the
        same ranges when the run's windows are too many for the histogram."""
        return self._read.counts()[0]


class GroupCountedRead:
    """A read of several topics (`member`: which of `members` a record's topic is) whose records are
    counted per topic and window by whatever action runs over it first: one histogram over the number
    `window * members + member` (see `loader.reading.window_counts`).

    With `member_column`, `frame` gets the member as a column of that name, computed once per record
    below the counting: the aggregates (two per member) and the caller's expressions over it then read
    a number, where the expression itself (a topic name compared with each member's) would be evaluated
    again by each of them (measured in benchmarks/JOURNAL.md, "A group's member computed once").

    Records without a key are counted (one aggregate per member) only with `keyless`: only a current-state
    table refuses them, and such a topic is read alone (`loader.planning.topic_groups`).

    `beside`: more columns of the caller's, computed in the member's projection (one step of the query
    less to analyse)."""

    def __init__(
        self,
        frame: DataFrame,
        member: F.Column,
        members: int,
        member_column: str | None = None,
        keyless: bool = True,
        beside: dict[str, F.Column] | None = None,
    ) -> None:
        added = {**({member_column: member} if member_column is not None else {}), **(beside or {})}
        if added:  # the member and `beside`'s columns: one projection
            frame = frame.withColumns(added)
        if member_column is not None:
            member = F.col(member_column)
        self._plain, self._member, self._members, self._keyless = frame, member, members, keyless
        self._observation = Observation(f"loader_read_{uuid.uuid4().hex}")  # unique: topics run side by side
        window = _window("timestamp")
        key = window * members + member
        bins = F.lit(HISTOGRAM_BINS)
        self.frame = frame.observe(
            self._observation,
            F.min(window).alias("lowest"),
            F.max(window).alias("highest"),
            F.to_json(F.histogram_numeric(key, bins)).alias("records"),
            F.to_json(F.histogram_numeric(F.when(F.col("value").isNull(), key), bins)).alias("tombstones"),
            # Each member's newest record time (microseconds since the epoch): one aggregate per member.
            *(F.max(F.when(member == m, _micros("timestamp"))).alias(f"newest_{m}") for m in range(members)),
            # Each member's records without a key: one aggregate per member.
            *(
                F.count_if((member == m) & F.col("key").isNull()).alias(f"keyless_{m}")
                for m in range(members if keyless else 0)
            ),
        )

    def counts(self) -> list[ReadCounts]:
        """Each member's counts, once an action ran over `frame`; counted again with a GROUP BY when
        the histogram's bins could not keep every topic's window apart."""
        newest = [f"newest_{m}" for m in range(self._members)]
        keyless = [f"keyless_{m}" for m in range(self._members if self._keyless else 0)]
        observed = observed_metrics(
            self._observation, "lowest", "highest", "records", "tombstones", *newest, *keyless
        )
        if observed is None:  # Spark kept no count: counted again, by a query of their own
            return self._counted_again()
        if is_exact(observed["lowest"], observed["highest"], self._members):
            records = summed_by_member(observed["records"], self._members)
            tombstones = summed_by_member(observed["tombstones"], self._members)
            return [
                ReadCounts(
                    records[m],
                    tombstones[m],
                    micros_text(observed[newest[m]]),
                    self._keyless_of(observed, m),
                )
                for m in range(self._members)
            ]
        grouped = self._plain.groupBy(self._member.alias("m"), _window("timestamp").alias("w")).agg(
            F.count(F.lit(1)).alias("records"), F.count_if(F.col("value").isNull()).alias("tombstones")
        )
        rows = grouped.collect()
        return [
            ReadCounts(
                summed((int(r["w"]), int(r["records"])) for r in rows if r["m"] == m),
                summed((int(r["w"]), int(r["tombstones"])) for r in rows if r["m"] == m),
                micros_text(observed[newest[m]]),
                self._keyless_of(observed, m),
            )
            for m in range(self._members)
        ]

    def _keyless_of(self, observed: dict[str, Any], member: int) -> int | None:
        return int(observed[f"keyless_{member}"] or 0) if self._keyless else None

    def _counted_again(self) -> list[ReadCounts]:
        """Every count of `counts`, from a GROUP BY over the same ranges (a second read of them)."""
        grouped = self._plain.groupBy(self._member.alias("m"), _window("timestamp").alias("w")).agg(
            F.count(F.lit(1)).alias("records"),
            F.count_if(F.col("value").isNull()).alias("tombstones"),
            F.max(_micros("timestamp")).alias("newest"),
            F.count_if(F.col("key").isNull()).alias("keyless"),
        )
        rows = grouped.collect()
        counts = []
        for m in range(self._members):
            mine = [r for r in rows if r["m"] == m]
            newest = max((int(r["newest"]) for r in mine if r["newest"] is not None), default=None)
            counts.append(
                ReadCounts(
                    summed((int(r["w"]), int(r["records"])) for r in mine),
                    summed((int(r["w"]), int(r["tombstones"])) for r in mine),
                    micros_text(newest),
                    sum(int(r["keyless"]) for r in mine) if self._keyless else None,
                )
            )
        return counts
