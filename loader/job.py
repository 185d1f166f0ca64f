"""One run of the load: every topic with a registered value schema into its table, exactly once.

Discover (Kafka topics, registry subjects, in a few batched requests) -> plan (saved offsets to Kafka's
end offsets, fixed now, at most `max-records-per-partition` per partition) -> per topic with new records,
several at a time: one Spark job that reads its ranges, decodes and projects them, makes sure the table
can hold them and stages them (see `loader.topic_pass`) -> commit (see `loader.planning.commit_protocol`).

A quiet topic (nothing new, schemas unchanged since its table last took them) costs no Spark job and no
metastore call: only its share of the batched requests. A run whose topics are all quiet makes no
metastore call at all.
"""

from __future__ import annotations

import functools
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from pyspark.sql import SparkSession
from rich.console import Console
from rich.progress import Progress

from loader.config import LoaderSettings
from loader.failure_cause import Dependency, Failure, classify
from loader.failure_chain import exception_chain
from loader.failure_message import Committed, failure_line, places_of, what_to_do
from loader.failure_trace import log_trace
from loader.fault_injection import crash_point
from loader.formats import TableFormat
from loader.formats.hive import HiveFormat
from loader.formats.hive.metastore import add_partitions
from loader.formats.hive.table_catalog import TableCatalog
from loader.formats.hive.table_properties import record_valid_through
from loader.formats.iceberg import IcebergFormat
from loader.formats.one_format import MixedTableFormats, raise_mixed_formats
from loader.observability.freshness import timestamp_text, valid_through
from loader.observability.phases import PhaseClock
from loader.operations.audit import TopicRecord, audit_path, audit_record
from loader.operations.lock import LockHeld, RunLock
from loader.planning.commit_protocol import CommitLog, CompletionPending, Manifest, StagedTable
from loader.planning.kafka_identity import ClusterChanged, cluster_change, comparable_topic_ids
from loader.planning.offsets import OffsetRange, plan_ranges
from loader.planning.state_store import StateStore
from loader.planning.topic_groups import topic_groups
from loader.reading.event_lookup import SchemaLookup, schemas_signature
from loader.reading.event_types import event_table, topic_record_subjects
from loader.reading.kafka_access import KafkaRefused, java_refusal, require_read_access
from loader.reading.kafka_metadata import (
    KafkaUnavailable,
    compacted_topics,
    list_topics,
    topic_ids,
    watermarks,
)
from loader.reading.registry_client import (
    RegistryClient,
    RegistryRefused,
    RegistryUnavailable,
    SubjectSchemas,
)
from loader.report import (
    EXIT_BAD_RECORDS,
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_LOCKED,
    EXIT_SIGNALLED,
    RunReport,
    TopicReport,
)
from loader.run_signals import STOP, StopRequested
from loader.runtime.jvm_calls import answer_without_delay
from loader.runtime.spark_session import (
    DRIVER_JIT,
    SparkSettings,
    build_spark_session,
    forget_cached_tables,
    iceberg_conf,
    iceberg_jars,
    interpreted_session,
)
from loader.schema.naming import table_names
from loader.topic_group_pass import load_group
from loader.topic_pass import QUARANTINE_TABLE, RunContext, TopicWork, load_topic
from loader.warehouse_layout import (
    MetastoreUnavailable,
    WarehouseMismatch,
    claim_database,
    raise_misplaced_tables,
)

__all__ = ["QUARANTINE_TABLE", "run", "run_until_caught_up", "spark_for"]


def spark_for(settings: LoaderSettings) -> SparkSession:
    iceberg: dict[str, str] = {}
    jars: list[str] = []
    if settings.table_format == "iceberg":  # a Hive lake's session loads nothing of Iceberg
        iceberg, jars = iceberg_conf(settings.iceberg_catalog, settings.warehouse), iceberg_jars()
    spark = build_spark_session(
        SparkSettings(
            warehouse_dir=settings.warehouse,
            metastore_uri=settings.metastore_uri,
            master=settings.spark_master,
            app_name="kafka-table-loader",
            extra_conf={
                # The run prints its own progress and report; Spark's stage bars would garble them.
                "spark.ui.showConsoleProgress": "false",
                # Topics' jobs share the executors fairly (see `_run_passes`), instead of first come,
                # first served.
                "spark.scheduler.mode": "FAIR",
                **iceberg,
            },
            extra_jars=tuple(jars),
            driver_java_options=DRIVER_JIT[settings.driver_jit],
            class_archive_dir=(
                Path(settings.driver_class_archive_dir) if settings.driver_class_archive_dir else None
            ),
        )
    )
    spark.sparkContext.setLogLevel("ERROR")
    answer_without_delay(spark)
    return spark


def run(
    settings: LoaderSettings, spark: SparkSession, console: Console | None = None, lock: RunLock | None = None
) -> RunReport:
    """Runs the load once; never raises for a topic's trouble, which goes into the report instead.

    `lock` may come already held (the CLI takes a local lock before starting Spark); it is released here.
    """
    return run_until_caught_up(settings, spark, console, lock, until_caught_up=False)[-1]


def run_until_caught_up(
    settings: LoaderSettings,
    spark: SparkSession,
    console: Console | None = None,
    lock: RunLock | None = None,
    until_caught_up: bool = True,
) -> list[RunReport]:
    """Runs the load, and with `until_caught_up` again while the per-partition bound left records in
    Kafka (each run its own commit), under one lock; stops at the first run that fails."""
    console = console or Console(stderr=True)
    store = StateStore(spark, settings.state_location)
    lock = lock or RunLock(settings.state_location, store)
    lock.store = store
    if not lock.held:
        try:
            lock.acquire()
        except LockHeld as held:
            report = _new_report(settings)
            report.error, report.exit_code = str(held), EXIT_LOCKED
            return [report]
    reports = []
    try:
        while True:
            reports.append(_run_once(settings, spark, store, console))
            behind = sum(t.remaining for t in reports[-1].topics)
            if not until_caught_up or not behind or reports[-1].exit_code not in (0, EXIT_BAD_RECORDS):
                return reports
            console.print(f"committed run {len(reports)}; {behind} offset(s) left to load: going on")
    finally:
        lock.release()


def _new_report(settings: LoaderSettings) -> RunReport:
    run_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    return RunReport(run_id=run_id, started=datetime.now(UTC).isoformat(), database=settings.database)


# What stops a run before it loads anything, with a message that says why and what to do.
REFUSALS = (
    KafkaUnavailable,
    KafkaRefused,
    RegistryUnavailable,
    WarehouseMismatch,
    MetastoreUnavailable,
    MixedTableFormats,
    ClusterChanged,
)


def _run_once(
    settings: LoaderSettings, spark: SparkSession, store: StateStore, console: Console
) -> RunReport:
    started = time.monotonic()
    report = _new_report(settings)
    try:
        _load(settings, spark, store, report, console)
    except REFUSALS as exc:
        report.error = str(exc) + _unanswered_advice(exc)
    except StopRequested as exc:  # before the commit point: nothing of this run stays
        store.delete(store.path(f"staging/{report.run_id}"))
        report.error = (
            f"{exc} before the commit point: nothing was committed, no offset moved, what the run staged "
            "was removed; the next run loads these records"
        )
        report.exit_code = EXIT_SIGNALLED + exc.signum
    except CompletionPending as exc:  # past the commit point: committed, not complete
        log_trace(f"commit {exc.seq} not complete", exc)
        report.error, report.exit_code = _stopped(exc, settings, Committed(unregistered=exc.unregistered))
    except Exception as exc:  # the run stops; what was committed stays, the rest is redone next time
        log_trace("the run stopped", exc)
        report.error = java_refusal(str(exc)) or _stopped(exc, settings, Committed())[0]
    finally:
        report.seconds = round(time.monotonic() - started, 2)
    if report.error is None and STOP.signum is not None:  # it came after the commit point
        report.error = f"{StopRequested(STOP.signum)} after the commit point: the run's commit is complete"
        report.exit_code = EXIT_SIGNALLED + STOP.signum
    if report.error is None:
        report.error = _failed_topics_line(report, settings)
    report.exit_code = _exit_code(report, settings)
    return report


def _unanswered_advice(exc: Exception) -> str:
    """For Kafka or a registry that did not answer (their messages name them and their address): what was
    committed and what to do. A refusal's message says what to check already."""
    if isinstance(exc, KafkaUnavailable):
        dependency = Dependency.KAFKA
    elif isinstance(exc, RegistryUnavailable) and not isinstance(exc, RegistryRefused):
        dependency = Dependency.REGISTRY
    else:
        return ""
    return f"; {Committed().describe()}; {what_to_do(Failure(dependency, 'did not answer', str(exc)))}"


def _stopped(exc: Exception, settings: LoaderSettings, committed: Committed) -> tuple[str, int]:
    """The run's last line and exit status for an error that stopped it: the dependency that failed
    when its chain names one, else the error's own first line."""
    status = EXIT_INCOMPLETE if committed.unregistered is not None else EXIT_FAILED
    chain = exception_chain(exc)
    failure = classify(chain, places_of(settings))
    if failure is not None:
        return failure_line(failure, places_of(settings), committed), status
    cause = chain[-1]
    first = (cause.message.splitlines() or [""])[0][:500]
    what = f"{cause.kind.rsplit('.', 1)[-1]}: {first}" if first else cause.kind.rsplit(".", 1)[-1]
    return f"the run stopped: {what}; {committed.describe()}", status


def _failed_topics_line(report: RunReport, settings: LoaderSettings) -> str | None:
    """For topics that failed because a dependency did: one line naming it (the first such topic's),
    how many topics it stopped, and what was committed; None when no topic failed that way."""
    failed = [t for t in report.topics if t.status == "failed" and t.failure is not None]
    if not failed:
        return None
    loaded = any(t.status == "loaded" and t.records for t in report.topics)
    line = failure_line(failed[0].failure, places_of(settings), Committed(others=report.committed and loaded))
    return f"{len(failed)} topic(s) failed: {line}"


def _exit_code(report: RunReport, settings: LoaderSettings) -> int:
    if report.exit_code in (EXIT_LOCKED, EXIT_INCOMPLETE) or report.exit_code > EXIT_SIGNALLED:
        return report.exit_code
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
    # Before a committed run is completed or anything staged, the database must be in this warehouse. A
    # quiet run (nothing to complete, no topic to load) makes no metastore call at all: the claim is the
    # run's first one, and with the embedded metastore that first call starts it (about 2 s of a 7 s run).
    claim = functools.cache(lambda: claim_database(spark, store, settings.warehouse, settings.database))
    phases = PhaseClock(report.phases)
    log = CommitLog(store, add_partitions=lambda table, specs: add_partitions(spark, table, specs))
    last = log.recover(before_completing=claim)
    forget_cached_tables(spark)
    phases.done("recover")
    crash_point("after_recovery")
    STOP.check()

    kafka = list_topics(
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
    report.cluster_id = kafka.cluster_id
    changed = cluster_change(
        last.cluster_id, kafka.cluster_id, settings.accept_cluster, settings.bootstrap_servers
    )
    if changed:
        raise ClusterChanged(changed)
    topics = kafka.partitions
    subjects = registry.subjects()
    snapshot = registry.snapshot()
    registry_lock = threading.RLock()
    lookup = SchemaLookup(registry, snapshot, subjects, registry_lock)
    wanted = {f"{t}-{kind}" for t in topics for kind in ("value", "key")} & subjects
    schemas_of = registry.all_subject_schemas(wanted, snapshot)
    names, collisions = table_names([*topics, QUARANTINE_TABLE])
    reports: dict[str, TopicReport] = {}
    for collision in collisions:
        for topic in collision.topics:
            if topic != QUARANTINE_TABLE:
                reports[topic] = TopicReport(topic, "failed", table=collision.table, reason=str(collision))
    # A topic without `<topic>-value` may carry record-named event types when some subject is named by
    # record: only then is it planned (and its first new records looked at, see `loader.topic_pass`).
    record_named = lookup.has_record_named_subjects()
    values: dict[str, SubjectSchemas | None] = {}
    for topic in sorted(topics):
        if topic in reports:
            continue
        value = schemas_of.get(f"{topic}-value")
        if value is None and not (
            last.event_types.get(topic) or record_named or topic_record_subjects(topic, subjects)
        ):
            reason = f"no schema registered for subject {topic}-value"
            reports[topic] = TopicReport(topic, "skipped", reason=reason)
            continue
        values[topic] = value
        table = f"{settings.database}.{names[topic]}" if value else None
        reports[topic] = TopicReport(topic, "loaded", table=table)

    security = settings.kafka_security
    looking = {t for t, value in values.items() if value is None and not last.event_types.get(t)}
    loading = [t for t in values if t not in looking]
    timeout_s = settings.metadata_timeout_s
    for topic in require_read_access(settings.bootstrap_servers, security, loading, timeout_s, looking):
        del values[topic]  # only to be looked into, and the loader may not read it: skipped as before
        reports[topic].status, reports[topic].reason = (
            "skipped",
            f"no schema registered for subject {topic}-value",
        )
        reports[topic].notes.append("not looked into for event types named by record: no READ access")
    partitions = [(t, p) for t in values for p in range(topics[t])]
    marks = watermarks(settings.bootstrap_servers, partitions, settings.metadata_timeout_s, security)
    ids = topic_ids(settings.bootstrap_servers, values, settings.metadata_timeout_s, security)
    plan = plan_ranges(
        last.offsets,
        marks,
        comparable_topic_ids(last, kafka.cluster_id),
        ids,
        settings.max_records_per_partition,
    )
    for gap in plan.discontinuities:
        reports[gap.topic].notes.append(f"partition {gap.partition} {gap.describe()}")
    crash_point("after_plan")
    STOP.check()

    keys_of = {t: schemas_of.get(f"{t}-key") for t in values}
    granularity = settings.partition_granularity
    signatures = {
        t: schemas_signature(values[t], keys_of[t], last.event_types.get(t, {}), lookup, granularity)
        for t in values
    }
    work: list[TopicWork] = []
    for topic, value in values.items():
        ranges = [r for r in plan.ranges if r.topic == topic]
        _describe_ranges(reports[topic], ranges)
        through = valid_through(datetime.fromisoformat(report.started), ranges)
        reports[topic].valid_through = timestamp_text(through) if through else None
        known = last.event_types.get(topic, {})
        if not any(r.span for r in ranges):
            if value is None and not known:
                reports[topic].status = "skipped"
                reports[topic].reason = f"no schema registered for subject {topic}-value"
                continue
            if last.table_schemas.get(topic) == signatures[topic]:
                reports[topic].status = "up to date"  # quiet, its tables already hold its schemas
                continue
        looked = last.looked_at.get(topic, {})
        work.append(
            TopicWork(
                topic,
                names[topic],
                value,
                keys_of[topic],
                ranges,
                event_types=dict(known),
                looked_at=looked,
                topic_id=ids.get(topic),
            )
        )
    catalog = TableCatalog(spark, store, settings.database)
    if work:
        claim()
        catalog.load(
            [w.table for w in work]
            + [event_table(w.topic, name) for w in work for name in w.event_types]
            + [QUARANTINE_TABLE]
        )
        raise_misplaced_tables(settings.database, store, settings.warehouse, catalog.locations())
        raise_mixed_formats(settings.database, settings.table_format, catalog.formats())
    if settings.skip_tombstones:
        # The setting skips tombstones only where they are not the topic's deletes.
        compacted = compacted_topics(
            settings.bootstrap_servers, [w.topic for w in work], settings.metadata_timeout_s, security
        )
        work = [TopicWork(**{**w.__dict__, "skip_tombstones": w.topic not in compacted}) for w in work]

    claims = {table: f"topic {topic}" for topic, table in names.items()}
    tables = table_format(settings, spark, catalog, store, report.run_id)
    context = RunContext(
        settings,
        spark,
        log,
        report.run_id,
        tables,
        registry,
        lookup,
        interpreted_session(spark),
        claims,
        registry_lock=registry_lock,
    )
    phases.done("plan")
    staged = _run_passes(context, work, reports, console)
    report.topics = [reports[t] for t in sorted(reports)]
    for w in work:  # the event types a pass found are part of what its tables were made to hold
        found = reports[w.topic].event_types
        signatures[w.topic] = schemas_signature(values[w.topic], keys_of[w.topic], found, lookup, granularity)
    crash_point("after_staging")
    STOP.check()  # the last safe point before the commit point
    phases.done("load")
    _commit(
        log, last, report, staged, plan.ranges, work, ids, signatures, kafka.cluster_id, context.looked_at
    )
    if settings.table_format == "hive":  # Iceberg's commits recorded it in their snapshot summaries
        record_valid_through(spark, report, lambda text: console.print(f"[yellow]note:[/] {text}"))
    phases.done("commit")
    forget_cached_tables(spark)


def table_format(
    settings: LoaderSettings, spark: SparkSession, catalog: TableCatalog, store: StateStore, run_id: str
) -> TableFormat:
    if settings.table_format == "iceberg":
        return IcebergFormat(spark, settings.database, settings.partition_granularity)
    return HiveFormat(catalog, store, settings.partition_granularity, run_id)


def _describe_ranges(report: TopicReport, ranges: list[OffsetRange]) -> None:
    report.partitions = len(ranges)
    report.offsets = {r.partition: (r.start, r.end) for r in ranges}
    report.lost = sum(r.lost for r in ranges)
    report.remaining = sum(r.remaining for r in ranges)
    if report.lost:
        report.reason = f"{report.lost} record(s) deleted by retention before they were loaded"


def _run_passes(
    context: RunContext, work: list[TopicWork], reports: dict[str, TopicReport], console: Console
) -> list[StagedTable]:
    """The topics' passes, several at a time, each thread in a scheduler pool of its own so that small
    topics' jobs run beside a big topic's instead of queueing behind it. Small topics go in groups, one
    query each (see `loader.topic_group_pass`), when the table format can write a group's tables in one
    job; the topics loaded alone (the big ones) start first."""
    spark, settings = context.spark, context.settings
    per_query = settings.topics_per_query if context.tables.appends_groups() else 1
    planned = topic_groups(work, settings.small_topic_records, per_query)
    if per_query == 1 < settings.topics_per_query and (hint := context.tables.groups_hint()):
        console.print(f"[yellow]note:[/] {hint}: every small topic is loaded in a query of its own")
    with (
        Progress(console=console, transient=True) as progress,
        ThreadPoolExecutor(settings.topic_threads, "loader-topic") as pool,
    ):
        task = progress.add_task(f"loading {len(work)} topic(s)", total=len(work))

        def load(items: list[TopicWork]) -> list[StagedTable]:
            if STOP.signum is not None:  # asked to stop: no new pass starts (the run stops before committing)
                progress.advance(task, len(items))
                return []
            spark.sparkContext.setLocalProperty("spark.scheduler.pool", threading.current_thread().name)
            try:
                if len(items) == 1:
                    return load_topic(context, items[0], reports[items[0].topic])
                return load_group(context, items, reports)
            finally:
                progress.advance(task, len(items))

        results = pool.map(load, [[w] for w in planned.alone] + planned.groups)
        return [staged for result in results for staged in result]


def _commit(
    log: CommitLog,
    last: Manifest,
    report: RunReport,
    staged: list[StagedTable],
    ranges: list[OffsetRange],
    work: list[TopicWork],
    ids: dict[str, str],
    signatures: dict[str, str],
    cluster_id: str,
    looked_at: dict[str, dict[int, int]],
) -> None:
    """The run's manifest, then the commit point. Topics that did not fail advance their offsets and
    record their topic ids and, if their pass made sure of their table, its schemas; a failed topic keeps
    what the last commit saved."""
    # A topic whose pass found nothing it can load keeps its offsets too.
    failed = {t.topic for t in report.topics if t.status in ("failed", "skipped")}
    recreated = {t.topic for t in report.topics if any(" recreated: " in n for n in t.notes)}
    offsets = {tp: o for tp, o in last.offsets.items() if tp[0] not in recreated - failed}
    offsets.update({(r.topic, r.partition): r.end for r in ranges if r.topic not in failed})
    topic_ids = {**last.topic_ids, **{t: i for t, i in ids.items() if t not in failed}}
    table_schemas = {
        **last.table_schemas,
        **{w.topic: signatures[w.topic] for w in work if w.topic not in failed},
    }
    event_types = {
        **last.event_types,
        **{t.topic: t.event_types for t in report.topics if t.event_types and t.topic not in failed},
    }
    looked_at = {t: o for t, o in {**last.looked_at, **looked_at}.items() if t not in event_types}
    unchanged = (last.cluster_id, last.topic_ids, last.table_schemas, last.event_types, last.looked_at) == (
        cluster_id,
        topic_ids,
        table_schemas,
        event_types,
        looked_at,
    )
    if offsets == last.offsets and not staged and unchanged:
        return
    manifest = Manifest(
        last.seq + 1,
        report.run_id,
        offsets,
        staged,
        _stage_audit(log, report),
        cluster_id=cluster_id,
        topic_ids=topic_ids,
        table_schemas=table_schemas,
        event_types=event_types,
        looked_at=looked_at,
    )
    try:
        log.commit(manifest)
    except CompletionPending:  # past the commit point: the next run completes it
        report.committed = True
        raise
    report.committed = True


def _stage_audit(log: CommitLog, report: RunReport) -> list[tuple[str, str]]:
    """The run's audit record, staged to be moved into place by the same commit as its data."""
    counts = {
        t.topic: TopicRecord(
            t.table or "", t.windows, t.skipped_windows, t.notes, sorted(t.tables) if t.event_types else []
        )
        for t in report.topics
        if t.status in ("loaded", "up to date") and (t.windows or t.notes)
    }
    if not counts:
        return []
    staged = f"{log.staging_dir(report.run_id)}/audit.json"
    log.store.write_text(staged, audit_record(report.run_id, counts), overwrite=True)
    return [(staged, audit_path(log.store, report.run_id))]
