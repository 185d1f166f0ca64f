"""One run of the load: every topic with a registered value schema into its table, exactly once.

Discover (Kafka topics, registry subjects) -> plan (saved offsets to Kafka's end offsets, fixed now) ->
read (one Spark read of every range, balanced over a fixed pool of tasks) -> per topic, several at a time:
decode and project, create or evolve the table, stage the rows -> commit (see `loader.commit_protocol`).
"""

from __future__ import annotations

import posixpath
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime

from pyspark import StorageLevel
from pyspark.sql import DataFrame, Observation, SparkSession
from pyspark.sql import functions as F
from rich.console import Console
from rich.progress import Progress

from loader.audit import audit_path, audit_record, window_of
from loader.column_defaults import existence_defaults
from loader.commit_protocol import (
    CommitLog,
    Manifest,
    StagedTable,
    final_file_name,
    partition_spec,
    relative_to,
)
from loader.config import LoaderSettings
from loader.decoding import (
    METADATA_COLUMNS,
    bad_rows,
    column_comments,
    decode,
    foreign_schema_ids,
    good_rows,
    with_reasons_by_id,
)
from loader.fault_injection import crash_point
from loader.kafka_access import KafkaRefused, java_refusal, require_read_access
from loader.kafka_metadata import KafkaUnavailable, list_topics, watermarks
from loader.kafka_security import spark_kafka_options
from loader.lock import LockHeld, RunLock
from loader.naming import table_names
from loader.planning import OffsetRange, kafka_source_options, plan_ranges, task_count
from loader.registry_client import (
    RegistryClient,
    RegistryUnavailable,
    SubjectSchemas,
    describe_foreign_id,
)
from loader.report import EXIT_BAD_RECORDS, EXIT_FAILED, EXIT_LOCKED, RunReport, TopicReport
from loader.spark_session import SparkSettings, build_spark_session
from loader.state_store import StateStore
from loader.table_alter import table_data_schema
from loader.table_evolution import UnrepresentableChange
from loader.tables import (
    add_partitions,
    ensure_table,
    partition_columns,
    partition_values,
    with_column_metadata,
)
from loader.union_columns import fit_unions, reshape
from loader.warehouse_layout import WarehouseMismatch, claim_database

QUARANTINE_TABLE = "loader_quarantine"
# At most this many distinct foreign schema ids per topic and run are looked up in the registry to say
# whose they are; a flood of garbage ids keeps the generic reason beyond it.
MAX_ID_LOOKUPS = 50
# The run's Kafka data is kept for the topics' passes on local disk: a run's backlog can be far bigger
# than executor memory, and Spark's in-memory columnar cache ran out of heap on a 1M-record topic in
# local mode even with MEMORY_AND_DISK.
CACHE_LEVEL = StorageLevel.DISK_ONLY


def spark_for(settings: LoaderSettings) -> SparkSession:
    spark = build_spark_session(
        SparkSettings(
            warehouse_dir=settings.warehouse,
            metastore_uri=settings.metastore_uri,
            master=settings.spark_master,
            app_name="kafka-table-loader",
            # The run prints its own progress and report; Spark's stage bars would garble them.
            extra_conf={"spark.ui.showConsoleProgress": "false"},
        )
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def run(
    settings: LoaderSettings, spark: SparkSession, console: Console | None = None, lock: RunLock | None = None
) -> RunReport:
    """Runs the load once; never raises for a topic's trouble, which goes into the report instead.

    `lock` may come already held (the CLI takes a local lock before starting Spark); it is released here.
    """
    console = console or Console(stderr=True)
    started = time.monotonic()
    run_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    report = RunReport(run_id=run_id, started=datetime.now(UTC).isoformat(), database=settings.database)
    store = StateStore(spark, settings.state_location)
    lock = lock or RunLock(settings.state_location, store)
    lock.store = store
    if not lock.held:
        try:
            lock.acquire()
        except LockHeld as held:
            report.error = str(held)
            report.exit_code = EXIT_LOCKED
            return report
    try:
        _load(settings, spark, store, report, console)
    except (KafkaUnavailable, KafkaRefused, RegistryUnavailable, WarehouseMismatch) as exc:
        report.error = str(exc)
    except Exception as exc:  # the run stops; what was committed stays, the rest is redone next time
        report.error = java_refusal(str(exc)) or (
            f"the run stopped: {type(exc).__name__}: {str(exc).splitlines()[0][:500]}"
        )
    finally:
        lock.release()
        report.seconds = round(time.monotonic() - started, 2)
    report.exit_code = _exit_code(report, settings)
    return report


def _exit_code(report: RunReport, settings: LoaderSettings) -> int:
    if report.exit_code == EXIT_LOCKED:
        return EXIT_LOCKED
    if report.error or any(t.status == "failed" for t in report.topics):
        return EXIT_FAILED
    for topic in report.topics:
        total = topic.records + topic.quarantined
        if topic.quarantined and topic.quarantined / total > settings.max_bad_ratio:
            return EXIT_BAD_RECORDS
    return 0


def _load(
    settings: LoaderSettings, spark: SparkSession, store: StateStore, report: RunReport, console: Console
) -> None:
    # First, before a committed run is completed or anything staged: the tables must be in this warehouse.
    claim_database(spark, store, settings.warehouse, settings.database)
    log = CommitLog(store, add_partitions=lambda table, specs: add_partitions(spark, table, specs))
    last_seq, saved = log.recover()
    crash_point("after_recovery")

    topics = list_topics(
        settings.bootstrap_servers,
        settings.include_topics,
        settings.exclude_topics,
        settings.metadata_timeout_s,
        settings.kafka_security,
    )
    registry = RegistryClient(
        settings.registry_url,
        settings.metadata_timeout_s,
        settings.registry_access,
        settings.kafka_security.sasl_login,
    )
    subjects = registry.subjects()
    names, collisions = table_names([*topics, QUARANTINE_TABLE])
    reports: dict[str, TopicReport] = {}
    for collision in collisions:
        for topic in collision.topics:
            if topic != QUARANTINE_TABLE:
                reports[topic] = TopicReport(topic, "failed", table=collision.table, reason=str(collision))
    schemas: dict[str, SubjectSchemas] = {}
    for topic in sorted(topics):
        if topic in reports:
            continue
        found = registry.subject_schemas(f"{topic}-value") if f"{topic}-value" in subjects else None
        if found is None:
            reports[topic] = TopicReport(
                topic, "skipped", reason=f"no schema registered for subject {topic}-value"
            )
            continue
        schemas[topic] = found
        reports[topic] = TopicReport(topic, "loaded", table=f"{settings.database}.{names[topic]}")

    security = settings.kafka_security
    require_read_access(settings.bootstrap_servers, security, schemas, settings.metadata_timeout_s)
    partitions = [(t, p) for t in schemas for p in range(topics[t])]
    marks = watermarks(settings.bootstrap_servers, partitions, settings.metadata_timeout_s, security)
    ranges = plan_ranges(saved, marks)
    crash_point("after_plan")

    raw = _read(spark, settings, ranges)
    read_per_window = _records_per_window(raw)
    new_offsets = dict(saved)
    staged: list[StagedTable] = []
    shared = _SharedClients(registry)
    with ExitStack() as cleanup, Progress(console=console, transient=True) as progress:
        if raw is not None:
            cleanup.callback(raw.unpersist)
        task = progress.add_task(f"loading {len(schemas)} topic(s)", total=len(schemas))
        pool = cleanup.enter_context(ThreadPoolExecutor(settings.topic_threads, "loader-topic"))

        def load(topic: str) -> list[StagedTable]:
            topic_ranges = [r for r in ranges if r.topic == topic]
            try:
                return _load_topic(
                    settings,
                    spark,
                    log,
                    report.run_id,
                    raw,
                    schemas[topic],
                    topic_ranges,
                    reports[topic],
                    shared,
                    read_per_window.get(topic, {}),
                )
            finally:
                progress.advance(task)

        # Topics in parallel, results (and so the manifest) in topic order.
        for topic, topic_staged in zip(schemas, pool.map(load, schemas), strict=True):
            staged += topic_staged
            if reports[topic].status != "failed":
                new_offsets.update({(r.topic, r.partition): r.end for r in ranges if r.topic == topic})
    report.topics = [reports[t] for t in sorted(reports)]
    crash_point("after_staging")
    if new_offsets != saved or staged:
        audit_files = _stage_audit(log, report)
        log.commit(Manifest(last_seq + 1, report.run_id, new_offsets, staged, audit_files))


def _stage_audit(log: CommitLog, report: RunReport) -> list[tuple[str, str]]:
    """The run's audit record, staged to be moved into place by the same commit as its data."""
    counts = {
        t.topic: (t.table or "", t.windows) for t in report.topics if t.status == "loaded" and t.windows
    }
    if not counts:
        return []
    staged = f"{log.staging_dir(report.run_id)}/audit.json"
    log.store.write_text(staged, audit_record(report.run_id, counts), overwrite=True)
    return [(staged, audit_path(log.store, report.run_id))]


def _read(spark: SparkSession, settings: LoaderSettings, ranges: list[OffsetRange]) -> DataFrame | None:
    """One read of every range, split or merged into a fixed number of tasks, kept for the topics' passes."""
    tasks = task_count(ranges, settings.records_per_task, settings.task_pool_size)
    if tasks == 0:
        return None
    frame = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", settings.bootstrap_servers)
        .options(**spark_kafka_options(settings.kafka_security))
        .options(**kafka_source_options(ranges))
        .option("minPartitions", str(tasks))
        .load()
    )
    if frame.rdd.getNumPartitions() > tasks:
        frame = frame.coalesce(tasks)  # many small partitions share a task instead of one task each
    return frame.persist(CACHE_LEVEL)


def _records_per_window(raw: DataFrame | None) -> dict[str, dict[str, int]]:
    """Records read per topic and 10-minute window of record time, for the audit: one job for the run,
    counted before decoding, so that a topic's own pass is the single job that writes it."""
    if raw is None:
        return {}
    found: dict[str, dict[str, int]] = {}
    for row in raw.groupBy("topic", window_of(F.col("timestamp")).alias("window")).count().collect():
        found.setdefault(row["topic"], {})[row["window"]] = int(row["count"])
    return {topic: dict(sorted(windows.items())) for topic, windows in found.items()}


@dataclass
class _SharedClients:
    """What the topics' threads share: the metastore, whose table DDL goes one topic at a time (two
    topics creating the quarantine table at once would collide), and the registry's HTTP session."""

    registry: RegistryClient
    catalog_lock: threading.Lock = field(default_factory=threading.Lock)
    registry_lock: threading.Lock = field(default_factory=threading.Lock)


def _load_topic(
    settings: LoaderSettings,
    spark: SparkSession,
    log: CommitLog,
    run_id: str,
    raw: DataFrame | None,
    subject: SubjectSchemas,
    ranges: list[OffsetRange],
    report: TopicReport,
    shared: _SharedClients,
    read_per_window: dict[str, int],
) -> list[StagedTable]:
    started = time.monotonic()
    topic = subject.subject.removesuffix("-value")
    table = report.table or ""
    report.partitions = len(ranges)
    report.offsets = {r.partition: (r.start, r.end) for r in ranges}
    report.lost = sum(r.lost for r in ranges)
    if report.lost:
        report.reason = f"{report.lost} record(s) deleted by retention before they were loaded"
    to_read = sum(r.count for r in ranges)
    source = raw.where(F.col("topic") == topic) if raw is not None and to_read else None
    if source is None:
        source = spark.createDataFrame(
            [], "topic string, partition int, offset long, timestamp timestamp, key binary, value binary"
        )
    try:
        decoded = decode(source, subject)
        good = good_rows(decoded)
        clash = sorted(set(METADATA_COLUMNS) & {f.name for f in good.schema.fields[: -len(METADATA_COLUMNS)]})
        if clash:
            raise ValueError(
                f"field(s) {', '.join(clash)} clash with the loader's metadata columns; rename them"
            )
        with shared.catalog_lock:
            current = table_data_schema(spark, table) if spark.catalog.tableExists(table) else None
            table_schema, shape = fit_unions(current, good.schema)
            data_schema = with_column_metadata(
                table_schema,
                column_comments(subject.latest_schema),
                existence_defaults(subject.latest_schema),
            )
            state = ensure_table(spark, table, data_schema, settings.partition_granularity)
        report.table_action = state.action
        report.table_changes = [c.describe() for c in state.changes if c.kind != "kept_removed"]
        crash_point("after_table_ready")
        if not to_read:
            report.status = "up to date"
            return []
        report.windows = read_per_window
        written = Observation(f"loader_written_{uuid.uuid4().hex}")  # unique: topics run side by side
        rows = good.observe(written, F.count(F.lit(1)).alias("rows"))
        if shape is not None:
            rows = reshape(rows, shape)
        staged = [_stage(log, run_id, table, state.location, rows, settings)]
        report.records = int(written.get["rows"])
        report.quarantined = sum(read_per_window.values()) - report.records
        if report.quarantined:
            # Bad records are rare: decoded again rather than every topic's rows kept for them.
            # On the driver: one registry look-up per distinct foreign id.
            foreign = foreign_schema_ids(decoded, subject, MAX_ID_LOOKUPS)
            with shared.registry_lock:
                reasons = {i: describe_foreign_id(shared.registry, i, subject.subject) for i in foreign}
            bad = with_reasons_by_id(bad_rows(decoded), subject, reasons)
            staged.append(_stage_quarantine(spark, log, run_id, topic, bad, settings, shared.catalog_lock))
        return [s for s in staged if s.files]
    except (UnrepresentableChange, ValueError) as exc:
        report.status = "failed"
        report.reason = f"{topic}: {exc}"
        return []
    except Exception as exc:  # one topic's failure must not stop the others
        report.status = "failed"
        report.reason = f"{topic}: {type(exc).__name__}: {str(exc).splitlines()[0][:500]}"
        return []
    finally:
        report.seconds = round(time.monotonic() - started, 2)


def _stage(
    log: CommitLog,
    run_id: str,
    table: str,
    location: str,
    rows: DataFrame,
    settings: LoaderSettings,
    stage_name: str | None = None,
    timestamp_column: str = "_kafka_timestamp",
) -> StagedTable:
    """Writes the rows as ORC files under the run's staging directory, partitioned like the table."""
    directory = f"{log.staging_dir(run_id)}/{stage_name or table}"
    staging_fs, table_fs = log.store.file_system(directory), log.store.file_system(location)
    if staging_fs != table_fs:
        # Checked before anything is written: after the commit point a move that cannot happen would
        # stop every later run at recovery.
        raise ValueError(
            f"table {table} is on {table_fs} but the loader's state directory is on {staging_fs}; files "
            "reach their tables by rename, which needs one file system: set --state-dir on the table's"
        )
    granularity = settings.partition_granularity
    partitioned = rows.withColumns(partition_values(F.col(timestamp_column), granularity))
    partitioned.write.format("orc").partitionBy(*partition_columns(granularity)).mode("overwrite").save(
        directory
    )
    files = log.store.list_files(directory)
    moves = [(f, final_file_name(f, directory, location, run_id)) for f in files]
    specs = {
        tuple(sorted(partition_spec(posixpath.dirname(relative_to(f, directory))).items())) for f in files
    }
    return StagedTable(table, moves, [dict(spec) for spec in sorted(specs)])


def _stage_quarantine(
    spark: SparkSession,
    log: CommitLog,
    run_id: str,
    topic: str,
    rows: DataFrame,
    settings: LoaderSettings,
    catalog_lock: threading.Lock,
) -> StagedTable:
    """Bad records go to the database's quarantine table, staged per topic so topics never overwrite
    each other's staging."""
    table = f"{settings.database}.{QUARANTINE_TABLE}"
    rows = rows.withColumn("run_id", F.lit(run_id))
    with catalog_lock:
        state = ensure_table(spark, table, rows.schema, settings.partition_granularity)
    return _stage(log, run_id, table, state.location, rows, settings, f"{table}/{topic}", "timestamp")
