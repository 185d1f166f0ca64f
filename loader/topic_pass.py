"""One topic's pass in a run: read its ranges, decode and project every record, make sure the table can
hold the rows, and stage them, in one Spark job; bad records go to the quarantine in a second, rare one.

A pass never raises for the topic's own trouble: it marks the topic failed in its report, and the run
leaves that topic's offsets where they were.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field

from pyspark.sql import Observation, SparkSession
from pyspark.sql import functions as F

from loader.column_defaults import existence_defaults
from loader.commit_protocol import CommitLog, StagedTable
from loader.config import LoaderSettings
from loader.decoding import (
    KAFKA_COLUMNS,
    METADATA_COLUMNS,
    METADATA_DEFAULTS,
    bad_rows,
    column_comments,
    decode,
    foreign_schema_ids,
    good_rows,
    user_fields,
    with_reasons_by_id,
)
from loader.fault_injection import crash_point
from loader.kafka_access import java_refusal
from loader.planning import OffsetRange
from loader.registry_client import RegistryClient, SubjectSchemas, describe_foreign_id
from loader.report import TopicReport
from loader.staging import stage_rows
from loader.table_catalog import TableCatalog
from loader.table_evolution import UnrepresentableChange
from loader.tables import with_column_metadata
from loader.topic_read import CountedRead, read_ranges
from loader.union_columns import fit_unions, reshape

QUARANTINE_TABLE = "loader_quarantine"
# At most this many distinct foreign schema ids per topic and run are looked up in the registry to say
# whose they are; a flood of garbage ids keeps the generic reason beyond it.
MAX_ID_LOOKUPS = 50


@dataclass(frozen=True)
class TopicWork:
    """What one topic's pass loads."""

    topic: str
    table: str  # unqualified
    values: SubjectSchemas
    keys: SubjectSchemas | None
    ranges: list[OffsetRange]
    skip_tombstones: bool = False

    @property
    def span(self) -> int:
        return sum(r.span for r in self.ranges)


@dataclass
class RunContext:
    """What every pass of a run shares."""

    settings: LoaderSettings
    spark: SparkSession
    log: CommitLog
    run_id: str
    catalog: TableCatalog
    registry: RegistryClient
    registry_lock: threading.Lock = field(default_factory=threading.Lock)  # one HTTP session for all


def load_topic(run: RunContext, work: TopicWork, report: TopicReport) -> list[StagedTable]:
    started = time.monotonic()
    try:
        return _load(run, work, report)
    except (UnrepresentableChange, ValueError) as exc:
        report.status = "failed"
        report.reason = f"{work.topic}: {exc}"
        return []
    except Exception as exc:  # one topic's failure must not stop the others
        report.status = "failed"
        refused = java_refusal(str(exc))  # Spark's Kafka source names a refusal in its stack trace
        report.reason = f"{work.topic}: " + (
            refused or f"{type(exc).__name__}: {str(exc).splitlines()[0][:500]}"
        )
        return []
    finally:
        report.seconds = round(time.monotonic() - started, 2)


def _load(run: RunContext, work: TopicWork, report: TopicReport) -> list[StagedTable]:
    settings, spark = run.settings, run.spark
    read = CountedRead(read_ranges(spark, settings, work.ranges)) if work.span else None
    source = read.frame if read else spark.createDataFrame([], KAFKA_COLUMNS)
    decoded = decode(source, work.values, work.keys)
    good = good_rows(decoded, work.skip_tombstones)
    clash = sorted(set(METADATA_COLUMNS) & set(user_fields(decoded)))
    if clash:
        raise ValueError(f"field(s) {', '.join(clash)} clash with the loader's metadata columns; rename them")
    with run.catalog.lock:
        table_schema, shape = fit_unions(run.catalog.data_schema(work.table), good.schema)
        latest = work.values.latest_schema
        data_schema = with_column_metadata(
            table_schema, column_comments(latest), {**existence_defaults(latest), **METADATA_DEFAULTS}
        )
        state = run.catalog.ensure(work.table, data_schema, settings.partition_granularity)
    report.table_action = state.action
    report.table_changes = [c.describe() for c in state.changes if c.kind != "kept_removed"]
    crash_point("after_table_ready")
    if read is None:
        report.status = "up to date"
        return []
    written = Observation(f"loader_written_{uuid.uuid4().hex}")  # unique: topics run side by side
    rows = good.observe(written, F.count(F.lit(1)).alias("rows"))
    if shape is not None:
        rows = reshape(rows, shape)
    qualified = f"{settings.database}.{work.table}"
    directory = f"{run.log.staging_dir(run.run_id)}/{qualified}"
    granularity = settings.partition_granularity
    staged = [stage_rows(run.log.store, directory, qualified, state.location, rows, granularity, run.run_id)]
    counts = read.counts()
    report.windows = counts.records
    report.tombstones = sum(counts.tombstones.values())
    if work.skip_tombstones:
        report.skipped_windows = counts.tombstones
    report.records = int(written.get["rows"])
    report.quarantined = sum(counts.records.values()) - report.records - report.skipped
    if report.quarantined:
        staged.append(_stage_quarantine(run, work))
    return [s for s in staged if s.files]


def _stage_quarantine(run: RunContext, work: TopicWork) -> StagedTable:
    """Bad records are rare: the topic's ranges are read and decoded again rather than every topic's rows
    kept for them. One registry look-up per distinct foreign id, on the driver."""
    settings = run.settings
    decoded = decode(read_ranges(run.spark, settings, work.ranges), work.values, work.keys)
    foreign = foreign_schema_ids(decoded, work.values, MAX_ID_LOOKUPS)
    with run.registry_lock:
        reasons = {i: describe_foreign_id(run.registry, i, work.values.subject) for i in foreign}
    rows = with_reasons_by_id(bad_rows(decoded), work.values, reasons).withColumn("run_id", F.lit(run.run_id))
    with run.catalog.lock:
        state = run.catalog.ensure(QUARANTINE_TABLE, rows.schema, settings.partition_granularity)
    table = f"{settings.database}.{QUARANTINE_TABLE}"
    # Staged per topic, so that topics never write into each other's staging.
    directory = f"{run.log.staging_dir(run.run_id)}/{table}/{work.topic}"
    return stage_rows(
        run.log.store,
        directory,
        table,
        state.location,
        rows,
        settings.partition_granularity,
        run.run_id,
        "timestamp",
    )
