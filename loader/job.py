"""One run of the load: every topic with a registered value schema into its table, exactly once.

The run's steps (`loader.run`): recover the last commit -> discover (Kafka topics, registry subjects, in a
few batched requests) -> plan (saved offsets to Kafka's end offsets, fixed now, at most
`max-records-per-partition` per partition) -> load (per topic with new records, several at a time: one
Spark job that reads its ranges, decodes and projects them, makes sure the table can hold them and stages
or appends them) -> commit (the manifest, then what the table format records after it).

A quiet topic (nothing new, schemas unchanged since its table last took them) costs no Spark job and no
metastore call: only its share of the batched requests. A run whose topics are all quiet makes no
metastore call at all.
"""

from __future__ import annotations

import functools
import socket
import time
import uuid
from datetime import UTC, datetime

from pyspark.sql import SparkSession
from rich.console import Console

from loader import printed
from loader.config import LoaderSettings
from loader.formats import TableFormat
from loader.formats.catalog_lock import CatalogUnavailable, catalog_lock_files
from loader.formats.lookup import FormatPlace, open_format, open_state
from loader.observability.phases import START, PhaseClock
from loader.operations.lock import LockHeld, RunLock, Unlock, unlock_decision
from loader.outcome.cause import Dependency, Places, classify
from loader.outcome.chain import exception_chain
from loader.outcome.fault_injection import crash_point
from loader.outcome.message import Committed, failure_line
from loader.outcome.report import EXIT_BAD_RECORDS, EXIT_FAILED, EXIT_LOCKED, EXIT_SIGNALLED, RunReport
from loader.outcome.signals import STOP, StopRequested
from loader.outcome.trace import log_trace
from loader.planning.commit_protocol import CommitLog, CompletionPending
from loader.planning.state_store import StateFiles
from loader.reading.kafka_access import KafkaRefused, java_refusal
from loader.reading.kafka_metadata import KafkaUnavailable
from loader.reading.registry_client import RegistryUnavailable
from loader.reading.topic_read import KafkaRead
from loader.run.commit import commit
from loader.run.discover import Discovery, Sources, check_sources_answer, discover
from loader.run.load import Pacing, load
from loader.run.outcome import REFUSALS, exit_code, failed_topics_line, places_of, stopped, unanswered_advice
from loader.run.plan import Limits, plan, with_found_event_types
from loader.run.work import QUARANTINE_TABLE, CurrentStatePolicy, RunContext, TableClaim
from loader.runtime.loader_session import spark_for
from loader.runtime.spark_session import (
    decodes_protobuf,
    forget_cached_tables,
    interpreted_session,
)
from loader.warehouse_layout import claim_database

__all__ = ["QUARANTINE_TABLE", "run", "run_until_caught_up", "spark_for"]


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
    process_started: float | None = None,
) -> list[RunReport]:
    """Runs the load, and with `until_caught_up` again while the per-partition bound left records in
    Kafka (each run its own commit), under one lock; stops at the first run that fails. With
    `process_started` (a `loader run` process's start, seconds since the epoch), the first run's phases
    begin with its process's start-up (`START`: Python, the driver JVM, Spark)."""
    console = console or Console(stderr=True)
    store = open_state(spark, settings.state_location, settings.iceberg)
    lock = lock or RunLock(settings.state_location, store)
    lock.store = store
    # A catalog that places its tables itself keeps the database's own lock, for loaders that do not
    # share this state directory (`loader.formats.catalog_lock`).
    files = catalog_lock_files(spark, settings.iceberg, settings.database)
    held_in_catalog = RunLock(settings.state_location, files, files.location) if files else None
    try:
        if not lock.held and store.atomic_create:  # else the catalog's lock is the lock
            lock.acquire()
        if held_in_catalog is not None:
            _take_over_if_left_by_the_dead(held_in_catalog, console)
    except (LockHeld, CatalogUnavailable) as refused:
        lock.release()
        report = _new_report(settings)
        report.error = _lock_refused(refused, places_of(settings))
        report.exit_code = EXIT_LOCKED if isinstance(refused, LockHeld) else EXIT_FAILED
        return [report]
    reports = []
    try:
        while True:
            reports.append(_run_once(settings, spark, store, console))
            if process_started is not None and len(reports) == 1:
                began = datetime.fromisoformat(reports[0].started).timestamp()
                reports[0].phases = {START: round(max(0.0, began - process_started), 3), **reports[0].phases}
            behind = sum(t.remaining for t in reports[-1].topics)
            if not until_caught_up or not behind or reports[-1].exit_code not in (0, EXIT_BAD_RECORDS):
                return reports
            console.print(f"committed run {len(reports)}; {behind} offset(s) left to load: going on")
    finally:
        if held_in_catalog is not None:
            release_or_say(held_in_catalog, console)
        lock.release()


class TablesCommitted(RuntimeError):
    """The run stopped at its commit step after its tables committed its rows themselves."""


def _lock_refused(refused: Exception, places: Places) -> str:
    """What a run the lock stopped says: who holds it, or why the catalog did not take it; when the
    catalog's answer says its object store failed (its server's error names the store's endpoint, or an
    AWS SDK error), the store is what failed, and the line names it as any run's failure does."""
    if isinstance(refused, CatalogUnavailable):
        failure = classify(exception_chain(refused), places)
        if failure is not None and failure.dependency is Dependency.OBJECT_STORE:
            return failure_line(failure, places, Committed())
    return str(refused)


def release_or_say(lock: RunLock, console: Console) -> None:
    """Releases a lock kept in the catalog; one the catalog does not let go (it does not answer) stays,
    and the command says so, keeping its own outcome: what it committed is committed either way."""
    try:
        lock.release()
    except CatalogUnavailable as left:
        printed.note(console, left)


def _take_over_if_left_by_the_dead(lock: RunLock, console: Console) -> None:
    """Takes the catalog's lock; one that a run of this host left when it was killed (its pid is gone) is
    removed first. Only under the state directory's lock, so that no other run of this state directory
    can be taking it over at the same time."""
    try:
        lock.acquire()
    except LockHeld:
        owner = lock.owner()
        if unlock_decision(lock.present(), owner, socket.gethostname()) is not Unlock.REMOVE:
            raise
        holder = owner.describe() if owner else "a run"
        printed.note(console, f"took over the lock {lock.location} left by {holder}, which is gone")
        lock.remove_left_behind()
        lock.acquire()


# What `check_sources` raises: the brokers or the registry did not answer, or refused the loader.
SOURCES_REFUSED = (KafkaUnavailable, KafkaRefused, RegistryUnavailable)


def check_sources(settings: LoaderSettings) -> None:
    """Whether the brokers and the registry answer, before Spark starts (`loader.run.discover`)."""
    check_sources_answer(_sources(settings))


def refused_before_start(settings: LoaderSettings, refused: Exception, process_started: float) -> RunReport:
    """The report of a run that a dependency stopped before its driver JVM started (`check_sources`):
    nothing was read, staged or committed; its phases are its process's start-up alone."""
    report = _new_report(settings)
    report.error = str(refused) + unanswered_advice(refused)
    report.phases = {START: round(max(0.0, time.time() - process_started), 3)}
    report.exit_code = exit_code(report, settings.max_bad_ratio)
    return report


def _new_report(settings: LoaderSettings) -> RunReport:
    run_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    return RunReport(run_id=run_id, started=datetime.now(UTC).isoformat(), database=settings.database)


def _run_once(
    settings: LoaderSettings, spark: SparkSession, store: StateFiles, console: Console
) -> RunReport:
    started = time.monotonic()
    report = _new_report(settings)
    places = places_of(settings)
    try:
        _load(settings, spark, store, report, console)
    except REFUSALS as exc:
        report.error = str(exc) + unanswered_advice(exc)
    except StopRequested as exc:  # before the commit point: nothing of this run stays
        store.delete(store.path(f"staging/{report.run_id}"))
        report.error = (
            f"{exc} before the commit point: nothing was committed, no offset moved, what the run staged "
            "was removed; the next run loads these records"
        )
        report.exit_code = EXIT_SIGNALLED + exc.signum
    except CompletionPending as exc:  # past the commit point: committed, not complete
        log_trace(f"commit {exc.seq} not complete", exc)
        report.error, report.exit_code = stopped(exc, places, Committed(unregistered=exc.unregistered))
    except TablesCommitted as exc:  # before the manifest, after tables that commit themselves took rows
        log_trace("the run stopped before its manifest", exc)
        cause = exc.__cause__ if isinstance(exc.__cause__, Exception) else exc
        report.error = stopped(cause, places, Committed(in_tables=True))[0]
    except Exception as exc:  # the run stops; what was committed stays, the rest is redone next time
        log_trace("the run stopped", exc)
        report.error = java_refusal(str(exc)) or stopped(exc, places, Committed())[0]
    finally:
        report.seconds = round(time.monotonic() - started, 2)
    if report.error is None and STOP.signum is not None:  # it came after the commit point
        report.error = f"{StopRequested(STOP.signum)} after the commit point: the run's commit is complete"
        report.exit_code = EXIT_SIGNALLED + STOP.signum
    if report.error is None:
        report.error = failed_topics_line(report, places)
    report.exit_code = exit_code(report, settings.max_bad_ratio)
    return report


def _load(
    settings: LoaderSettings, spark: SparkSession, store: StateFiles, report: RunReport, console: Console
) -> None:
    # Before a committed run is completed or anything staged, the database must be in this warehouse. A
    # quiet run (nothing to complete, no topic to load) makes no metastore call at all: the claim is the
    # run's first one, and with the embedded metastore that first call starts it (about 2 s of a 7 s run).
    claim = functools.cache(lambda: claim_database(spark, settings.warehouse, settings.database))
    phases = PhaseClock(report.phases)
    tables = open_format(settings.table_format, spark, store, FormatPlace.of(settings), report.run_id)
    log = CommitLog(store, add_partitions=tables.add_partitions)
    last = log.recover(before_completing=claim)
    forget_cached_tables(spark)
    phases.done("recover")
    crash_point("after_recovery")
    STOP.check()

    sources = _sources(settings)
    found = discover(sources, last, settings.database, decodes_protobuf=decodes_protobuf(spark))
    report.cluster_id = found.cluster_id
    limits = Limits(
        settings.max_records_per_partition, settings.partition_granularity, settings.skip_tombstones
    )
    planned = plan(found, last, limits, datetime.fromisoformat(report.started))
    crash_point("after_plan")
    STOP.check()

    if planned.work:
        claim()
        tables.prepare(planned.tables())
    context = _context(settings, spark, log, report.run_id, tables, found)
    phases.done("plan")
    pacing = Pacing(settings.topic_threads, settings.small_topic_records, settings.topics_per_query)
    staged = load(context, planned.work, found.reports, pacing, console)
    report.topics = [found.reports[t] for t in sorted(found.reports)]
    planned = with_found_event_types(planned, found, settings.partition_granularity)
    crash_point("after_staging")
    STOP.check()  # the last safe point before the commit point
    phases.done("load")
    try:
        commit(log, last, report, staged, planned, context.looked_at)
    except CompletionPending:
        raise
    except Exception as exc:
        if not staged and any(t.status == "loaded" and t.records for t in report.topics):
            raise TablesCommitted from exc  # an Iceberg run's rows are in snapshots naming their offsets
        raise
    tables.after_commit(report, lambda text: printed.note(console, text))
    phases.done("commit")
    forget_cached_tables(spark)


def _context(
    settings: LoaderSettings,
    spark: SparkSession,
    log: CommitLog,
    run_id: str,
    tables: TableFormat,
    found: Discovery,
) -> RunContext:
    """What the run's passes share: how they read Kafka, the format, the registry, the tables' owners."""
    read = KafkaRead(
        settings.bootstrap_servers,
        settings.metadata_timeout_s,
        settings.kafka_security,
        settings.records_per_task,
        settings.task_pool_size,
    )
    return RunContext(
        settings.database,
        read,
        found.kafka,
        places_of(settings),
        spark,
        log,
        run_id,
        tables,
        found.registry,
        found.lookup,
        interpreted_session(spark),
        {table: TableClaim(topic) for topic, table in found.tables.items()},
        registry_lock=found.registry_lock,
        current_state=CurrentStatePolicy(
            settings.current_state_topics, settings.no_current_state_topics, settings.current_state_history
        ),
    )


def _sources(settings: LoaderSettings) -> Sources:
    return Sources(
        settings.bootstrap_servers,
        settings.registry_url,
        settings.include_topics,
        settings.exclude_topics,
        settings.metadata_timeout_s,
        settings.kafka_security,
        settings.registry_access,
        settings.accept_cluster,
    )
