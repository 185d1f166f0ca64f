"""After a command: its metrics to the sinks the settings name (see `loader.observability.sinks`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from loader.config import LoaderSettings
from loader.observability.metrics import audit_metrics, run_metrics, samples_of
from loader.observability.sinks import AUDIT_JOB, MetricsSinks, audit_file
from loader.operations.audit import AuditReport
from loader.outcome.report import RunReport


def run_sinks(settings: LoaderSettings) -> MetricsSinks:
    """The runs' sinks: the file, and the Pushgateway group named by the database (stable, not the run)."""
    file = Path(settings.metrics_file) if settings.metrics_file else None
    return MetricsSinks(file, settings.pushgateway_url, instance=settings.database)


def publish_run(settings: LoaderSettings, reports: list[RunReport], warn: Callable[[str], None]) -> None:
    """The metrics after `reports` (the runs of one `loader run`, in order), written and/or pushed."""
    sinks = run_sinks(settings)
    if not sinks.any or not reports:
        return
    previous = sinks.previous(warn)
    families = []
    for report in reports:
        families = run_metrics(report, previous, settings.metrics_max_topics)
        previous = samples_of(families)
    sinks.publish(families, warn)


def publish_audit(settings: LoaderSettings, report: AuditReport, warn: Callable[[str], None]) -> None:
    """The audit's metrics: a file of its own beside the runs' file, a Pushgateway job of its own."""
    runs = run_sinks(settings)
    if not runs.any:
        return
    sinks = MetricsSinks(
        audit_file(runs.file) if runs.file else None, runs.pushgateway_url, runs.instance, job=AUDIT_JOB
    )
    sinks.publish(audit_metrics(report, datetime.now(UTC)), warn)
