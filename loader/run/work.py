"""The data types a run's steps and passes share: what one topic's pass loads, and what every pass of a
run has in common."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from pyspark.sql import SparkSession

from loader.formats import TableFormat
from loader.outcome.cause import Places
from loader.planning.commit_protocol import CommitLog
from loader.planning.offsets import OffsetRange
from loader.reading.event_lookup import SchemaLookup
from loader.reading.kafka_metadata import KafkaAdmin
from loader.reading.registry_client import RegistryClient, SubjectSchemas
from loader.reading.topic_read import KafkaReadSettings

# The table of every topic's bad records, in the run's database.
QUARANTINE_TABLE = "loader_quarantine"


@dataclass(frozen=True)
class TopicWork:
    """What one topic's pass loads."""

    topic: str
    table: str  # unqualified: the table of its `<topic>-value` records
    values: SubjectSchemas | None  # None for a topic without a `<topic>-value` subject
    keys: SubjectSchemas | None
    ranges: list[OffsetRange]
    skip_tombstones: bool = False
    # Its record-named event types known so far: record full name -> the subject they project onto.
    event_types: dict[str, str] = field(default_factory=dict)
    # Without any: partition -> the offset up to which earlier runs looked into its records for them.
    looked_at: dict[int, int] = field(default_factory=dict)
    topic_id: str | None = None  # Kafka's id of the topic, as the run found it
    # Its current-state table (unqualified; see `loader.run.current_state`), and whether its values are
    # Debezium change envelopes.
    current_table: str | None = None
    envelope: bool = False

    @property
    def span(self) -> int:
        return sum(r.span for r in self.ranges)

    def reads_any_of(self, held: dict[int, int]) -> bool:
        """Whether some offsets it reads are below a partition's end in `held` (a table's own account of
        what it holds: a run stopped after the table's commit and before its manifest)."""
        return any(held.get(r.partition, 0) > r.start for r in self.ranges)

    @property
    def single_type(self) -> bool:
        """Every record is the `<topic>-value` subject's (or a bad record): no event types to look for."""
        return self.values is not None and not self.event_types


@dataclass(frozen=True)
class CurrentStatePolicy:
    """What the settings say of current-state tables (`current-state-topics`, `no-current-state-topics`,
    `current-state-history`)."""

    include: str | None = None
    exclude: str | None = None
    history: bool = True


@dataclass(frozen=True)
class TableClaim:
    """What loads into a table: a topic's `<topic>-value` records, one of its event types (record-named
    records), or its current state. Two claims of one table would mix records."""

    topic: str
    event_type: str | None = None
    current_state: bool = False

    @property
    def history(self) -> bool:
        """The topic's own table (its `<topic>-value` records)."""
        return self.event_type is None and not self.current_state

    def __str__(self) -> str:
        if self.event_type is not None:
            return f"topic {self.topic}, event type {self.event_type}"
        return f"topic {self.topic}, current state" if self.current_state else f"topic {self.topic}"


@dataclass(frozen=True)
class RunContext:
    """What every pass of a run shares. Its fields do not change during a run; `claims` and `looked_at`
    are the passes' shared registers (under `tables.lock`)."""

    database: str
    read: KafkaReadSettings  # how the passes read Kafka
    kafka: KafkaAdmin  # the run's admin client (offsets and settings the passes ask Kafka)
    places: Places  # the run's dependencies, named in a failed topic's reason
    spark: SparkSession
    log: CommitLog
    run_id: str
    tables: TableFormat
    registry: RegistryClient
    lookup: SchemaLookup
    # The session of queries over many small topics (`loader.runtime.spark_session.interpreted_session`).
    small_topics_spark: SparkSession
    # Table -> what loads into it: two owners would mix records.
    claims: dict[str, TableClaim] = field(default_factory=dict)
    # Topic -> partition -> offset: how far this run looked into topics without event types (see
    # `loader.run.topic_pass`).
    looked_at: dict[str, dict[int, int]] = field(default_factory=dict)
    registry_lock: threading.RLock = field(default_factory=threading.RLock)  # one HTTP session for all
    current_state: CurrentStatePolicy = field(default_factory=CurrentStatePolicy)
