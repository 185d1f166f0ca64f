"""Command line of the loader: `loader run` (from cron), `loader status`, `loader audit`, `loader maintain`
and `loader unlock`.

Settings come from flags, then `LOADER_<NAME>` environment variables, then the `--config` TOML file;
there is no per-topic setting at all.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape

from loader import printed
from loader.config import DECLARED, REQUIRED, LoaderSettings, problem, read_config_file
from loader.formats.catalog_settings import take_catalog
from loader.operations.lock import LockHeld, RunLock
from loader.outcome.report import EXIT_LOCKED
from loader.reading.security_settings import take_security
from loader.setting_fields import Command, options


def _settings(config: Path | None, **flags: Any) -> LoaderSettings:
    values: dict[str, Any] = read_config_file(config) if config else {}
    values.update({key: value for key, value in flags.items() if value is not None})
    missing = [name for name in REQUIRED if not values.get(name)]
    if missing:
        flags_missing = ", ".join("--" + name.replace("_", "-") for name in missing)
        raise click.UsageError(f"missing {flags_missing} (or LOADER_* environment variables, or --config)")
    try:
        kafka_security, registry_access = take_security(values)
        catalog_access = take_catalog(values)
        return LoaderSettings(
            **values,
            kafka_security=kafka_security,
            registry_access=registry_access,
            catalog_access=catalog_access,
        ).validate()
    except (TypeError, ValueError) as exc:
        raise click.UsageError(problem(exc)) from exc


def _local_lock_or_exit(settings: LoaderSettings, console: Console) -> RunLock:
    """Takes a local run lock before Spark starts, so a command started beside a run exits at once with
    status 75; a lock on HDFS or an object store is taken later, through Spark's Hadoop file system. The
    embedded metastore's lock too, whatever the state directory: its Derby admits one process."""
    lock = RunLock(settings.state_location)
    try:
        if lock.is_local:
            lock.acquire()
        _embedded_metastore_lock(settings)
    except LockHeld as held:
        lock.release()
        printed.not_started(console, held)
        sys.exit(EXIT_LOCKED)
    return lock


def _embedded_metastore_lock(settings: LoaderSettings) -> RunLock | None:
    """The OS lock of the warehouse's embedded metastore, held until the process ends (None with a
    metastore service): a second process of the same warehouse (another database of it, or a REST
    catalog's run whose state is on an object store) would otherwise fail to boot Derby, and retry, until
    the first ended."""
    from loader.runtime.spark_session import embedded_metastore, local_path

    local = None if settings.metastore_uri else local_path(settings.warehouse)
    if local is None:
        return None
    metastore = embedded_metastore(local)
    lock = RunLock(str(metastore.home), file_name=f"{metastore.database.name}.lock")
    try:
        lock.acquire()
    except LockHeld as held:
        raise LockHeld(f"{held}: the embedded metastore {metastore.database} admits one process") from None
    _HELD.append(lock)  # released when the process ends
    return lock


_HELD: list[RunLock] = []


CONFIG = click.option(
    "--config",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    envvar="LOADER_CONFIG",
    help="A TOML file of settings (its [loader] table, or its top level); flags and variables win over it.",
)
REPORT_JSON = click.option(
    "--report-json", type=click.Path(dir_okay=False, path_type=Path), envvar="LOADER_REPORT_JSON"
)


def settings_options(command: Command) -> Command:
    """`--config` and the flags of the settings the command takes (`loader.config.LoaderSettings` says
    which), each also a `LOADER_<NAME>` variable; the command's name is its function's."""
    return CONFIG(options(DECLARED, command.__name__)(command))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Load every Kafka topic with a registered Avro schema into a Hive/Spark table."""


@main.command()
@settings_options
@REPORT_JSON
@click.option(
    "--debug",
    is_flag=True,
    envvar="LOADER_DEBUG",
    help="Also print the stack trace (Spark's and Py4J's included) of what stopped a run or failed a topic.",
)
def run(config: Path | None, report_json: Path | None, debug: bool, **flags: Any) -> None:
    """Load [saved offset, current end) of every partition of every topic, exactly once.

    Exit status: 0 loaded; 1 a topic failed, or a dependency failed before the commit point; 2 usage;
    3 bad records above --max-bad-ratio were quarantined; 4 committed, but partitions not yet registered
    (the next run registers them); 75 another run holds the lock; 130/143 stopped by SIGINT/SIGTERM.
    """
    settings = _settings(config, **flags)
    if debug:
        from loader.outcome.trace import show_traces

        show_traces()
    from loader.observability.logs import jvm_lines_as_json, run_console

    console = run_console(settings.log_format)
    from loader.runtime.spark_session import legacy_metastore_notice

    if not settings.metastore_uri and (notice := legacy_metastore_notice(settings.warehouse)):
        printed.note(console, notice)

    lock = _local_lock_or_exit(settings, console)
    from loader import job
    from loader.observability.phases import process_started
    from loader.outcome.signals import STOP, ignored_by_children
    from loader.runtime.driver_scratch import remove_own

    STOP.install()  # SIGTERM, SIGINT: stop at the next safe point; a second one: at once
    STOP.before_exit_now(remove_own)
    try:  # the brokers and the registry first: without them, a run fails in seconds, not after Spark's start
        job.check_sources(settings)
    except job.SOURCES_REFUSED as refused:
        lock.release()
        reports = [job.refused_before_start(settings, refused, process_started())]
    else:
        with ignored_by_children(), jvm_lines_as_json(settings.log_format == "json"):
            spark = job.spark_for(settings)  # the driver JVM leaves signals to this process
        STOP.on_stop(spark.sparkContext.cancelAllJobs)
        try:
            reports = job.run_until_caught_up(
                settings, spark, console, lock, settings.until_caught_up, process_started()
            )
        finally:
            spark.stop()
    if reports[-1].exit_code == EXIT_LOCKED:
        printed.not_started(console, reports[-1].error)
        sys.exit(EXIT_LOCKED)
    from loader.observability.logs import log_run
    from loader.observability.publish import publish_run
    from loader.outcome.report import render, write_json

    publish_run(settings, reports, lambda text: printed.note(console, text))
    from loader.observability import audit_stream

    audit_stream.publish(settings, reports, lambda text: printed.note(console, text))
    for report in reports:
        if settings.log_format == "text":
            render(report, Console(width=None if sys.stdout.isatty() else 200))
        log_run(report, settings.log_format)
    if report_json:
        write_json(reports, report_json)
    sys.exit(reports[-1].exit_code)


OUTPUT_FORMAT = click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json"]),
    default="table",
    help="table (default) for people, or json for machines, on stdout.",
)


@main.command()
@settings_options
@OUTPUT_FORMAT
def status(config: Path | None, output_format: str, **flags: Any) -> None:
    """Per topic: saved offset, Kafka's end offset, lag, table, valid-through and last load time."""
    settings = _settings(config, **flags)
    from loader.operations import status as status_module
    from loader.reading.kafka_access import KafkaRefused
    from loader.reading.kafka_metadata import KafkaUnavailable

    try:
        found = status_module.collect(settings)
    except (KafkaUnavailable, KafkaRefused) as exc:
        printed.error(Console(stderr=True), exc)
        sys.exit(1)
    if output_format == "json":
        click.echo(found.to_json())
    else:
        status_module.render(found, Console())
    sys.exit(0)


@main.command()
@settings_options
@REPORT_JSON
@OUTPUT_FORMAT
def audit(config: Path | None, report_json: Path | None, output_format: str, **flags: Any) -> None:
    """Per topic and 10-minute window: records read from Kafka vs rows in the table plus the quarantine;
    each current-state table's live keys vs a full read of its topic.

    Exit status: 0 every window matches and every current-state table agrees; 1 a window does not (the
    table names it), a current-state table has a missing, extra or stale key, or a table could not be
    read (a data file deleted behind the loader's back); 2 usage.
    """
    settings = _settings(config, **flags)
    from loader import job
    from loader.operations import audit as audit_module
    from loader.warehouse_layout import MetastoreUnavailable, WarehouseMismatch

    spark = job.spark_for(settings)
    try:
        report = audit_module.audit(settings, spark, job.QUARANTINE_TABLE)
    except (WarehouseMismatch, MetastoreUnavailable) as exc:
        printed.error(Console(stderr=True, soft_wrap=True), exc)
        sys.exit(1)
    finally:
        spark.stop()
    from loader.observability.publish import publish_audit

    warnings = Console(stderr=True, soft_wrap=True)
    publish_audit(settings, report, lambda text: printed.note(warnings, text))
    if output_format == "json":
        click.echo(report.to_json())
    else:
        audit_module.render(report, Console(width=None if sys.stdout.isatty() else 200))
    if report_json:
        report.write_json(report_json)
    sys.exit(0 if report.ok else 1)


@main.command()
@settings_options
def maintain(config: Path | None, **flags: Any) -> None:
    """Compact the small files of closed time partitions; remove files replaced a grace period ago.

    Holds the run lock (and, with a REST catalog, the database's lock in the catalog): never runs beside a
    load. Exit status: 0 every table and partition maintained, or nothing to maintain (it says so); 1 a
    partition or table could not be maintained (it is left as it was), or the catalog did not answer;
    2 usage; 75 a loader run holds the lock.
    """
    settings = _settings(config, **flags)
    console = Console(stderr=True, soft_wrap=True)  # messages name paths: never cut them
    lock = _local_lock_or_exit(settings, console)
    from loader import job
    from loader.operations import maintain as maintenance

    spark = job.spark_for(settings)
    try:
        report = maintenance.maintain(settings, spark, lock)
    finally:
        spark.stop()
    if report.exit_code == EXIT_LOCKED:
        printed.not_started(console, report.error)
        sys.exit(EXIT_LOCKED)
    maintenance.render(report, Console(width=None if sys.stdout.isatty() else 200))
    sys.exit(report.exit_code)


@main.command()
@settings_options
@click.option("--yes", is_flag=True, help="Remove a lock whose run's host cannot be checked without asking.")
def unlock(config: Path | None, yes: bool, **flags: Any) -> None:
    """Remove the run lock a killed run left on HDFS, an object store or in a REST catalog.

    A lock is removed at once when its run is known to be gone (its pid no longer exists on this host),
    never while that run is alive, and after a confirmation (or --yes) when the run was on another host.
    A local lock is an OS lock that ends with its process: there is never one to remove. With a REST
    catalog the database's lock in the catalog is looked at too.

    Exit status: 0 no lock is left; 1 the lock's run is alive, or the removal was declined; 2 usage.
    """
    settings = _settings(config, **flags)
    console = Console(stderr=True, soft_wrap=True)  # messages name paths: never cut them
    lock = RunLock(settings.state_location)
    if lock.is_local:
        try:
            with lock:
                console.print(f"no run holds the lock {escape(lock.location)}: nothing to remove")
        except LockHeld as held:
            console.print(
                f"[yellow]kept:[/] a run is alive: {escape(str(held))}; a local lock ends with its process"
            )
            sys.exit(1)
        if not settings.iceberg.keeps_locations:
            return
    from loader import job
    from loader.formats.catalog_lock import catalog_lock_files
    from loader.formats.lookup import open_state

    spark = job.spark_for(settings)
    try:
        kept = False
        store = open_state(spark, settings.state_location, settings.iceberg)
        if not lock.is_local and store.atomic_create:  # on an object store, the catalog's lock is the lock
            lock.store = store
            kept |= not _remove_if_left_behind(lock, yes, console)
        if files := catalog_lock_files(spark, settings.iceberg, settings.database):
            kept |= not _remove_if_left_behind(
                RunLock(settings.state_location, files, files.location), yes, console
            )
    finally:
        spark.stop()
    if kept:
        sys.exit(1)


def _remove_if_left_behind(lock: RunLock, yes: bool, console: Console) -> bool:
    """Removes a lock whose run is gone (asking when that cannot be told from here); False when it is
    kept."""
    import socket

    from loader.operations.lock import Unlock, unlock_decision

    owner = lock.owner()
    decision = unlock_decision(lock.present(), owner, socket.gethostname())
    holder = owner.describe() if owner else "owner unreadable"
    if decision is Unlock.NOTHING_TO_DO:
        console.print(f"no lock at {escape(lock.location)}: nothing to remove")
        return True
    if decision is Unlock.REFUSE:
        console.print(
            f"[yellow]kept:[/] {lock.location} ({holder}): {decision.value} "
            "(if that pid is not a loader run, remove the lock by hand)"
        )
        return False
    if decision is Unlock.ASK and not yes:
        question = f"{lock.location} ({holder}): {decision.value}. Is no loader run alive there?"
        if not click.confirm(question, default=False, err=True):
            console.print("[yellow]kept[/]")
            return False
    lock.remove_left_behind()
    console.print(escape(f"removed {lock.location} ({holder})"))
    return True


if __name__ == "__main__":
    main()
