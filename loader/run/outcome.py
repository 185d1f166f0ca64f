"""What a run that stopped or failed says in its last line, and its exit status: the dependency that
failed when the error's chain names one (see `loader.outcome.cause`), and what was committed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from loader.formats.one_format import MixedTableFormats
from loader.outcome.cause import Dependency, Failure, Places, classify
from loader.outcome.chain import exception_chain
from loader.outcome.message import Committed, failure_line, what_to_do
from loader.outcome.report import (
    EXIT_BAD_RECORDS,
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_LOCKED,
    EXIT_SIGNALLED,
    RunReport,
)
from loader.planning.kafka_identity import ClusterChanged
from loader.reading.kafka_access import KafkaRefused
from loader.reading.kafka_metadata import KafkaUnavailable
from loader.reading.registry_client import RegistryRefused, RegistryUnavailable
from loader.warehouse_layout import MetastoreUnavailable, WarehouseMismatch

if TYPE_CHECKING:
    from loader.config import LoaderSettings


def places_of(settings: LoaderSettings) -> Places:
    """Where the run's dependencies are, as the settings name them (a failed topic's reason names them)."""
    store = settings.catalog_access.object_store
    state = settings.state_location
    on_store = state.startswith(("s3://", "s3a://"))
    endpoint = (store.endpoint or "AWS S3") if store is not None else ("AWS S3" if on_store else None)
    return Places(
        bootstrap_servers=settings.bootstrap_servers,
        registry_url=settings.registry_url,
        metastore_uri=settings.metastore_uri,
        warehouse=settings.warehouse,
        state_location=state,
        object_store=endpoint,
        bucket=state.split("://", 1)[1].split("/", 1)[0] if on_store else None,
    )


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


def unanswered_advice(exc: Exception) -> str:
    """For Kafka or a registry that did not answer (their messages name them and their address): what was
    committed and what to do. A refusal's message says what to check already."""
    if isinstance(exc, KafkaUnavailable):
        dependency = Dependency.KAFKA
    elif isinstance(exc, RegistryUnavailable) and not isinstance(exc, RegistryRefused):
        dependency = Dependency.REGISTRY
    else:
        return ""
    return f"; {Committed().describe()}; {what_to_do(Failure(dependency, 'did not answer', str(exc)))}"


def stopped(exc: Exception, places: Places, committed: Committed) -> tuple[str, int]:
    """The run's last line and exit status for an error that stopped it: the dependency that failed
    when its chain names one, else the error's own first line."""
    status = EXIT_INCOMPLETE if committed.unregistered is not None else EXIT_FAILED
    chain = exception_chain(exc)
    failure = classify(chain, places)
    if failure is not None:
        return failure_line(failure, places, committed), status
    cause = chain[-1]
    first = (cause.message.splitlines() or [""])[0][:500]
    what = f"{cause.kind.rsplit('.', 1)[-1]}: {first}" if first else cause.kind.rsplit(".", 1)[-1]
    return f"the run stopped: {what}; {committed.describe()}", status


def failed_topics_line(report: RunReport, places: Places) -> str | None:
    """For topics that failed because a dependency did: one line naming it (the first such topic's),
    how many topics it stopped, and what was committed; None when no topic failed that way."""
    failed = [t for t in report.topics if t.status == "failed" and t.failure is not None]
    if not failed:
        return None
    loaded = any(t.status == "loaded" and t.records for t in report.topics)
    line = failure_line(failed[0].failure, places, Committed(others=report.committed and loaded))
    return f"{len(failed)} topic(s) failed: {line}"


def exit_code(report: RunReport, max_bad_ratio: float) -> int:
    if report.exit_code in (EXIT_LOCKED, EXIT_INCOMPLETE) or report.exit_code > EXIT_SIGNALLED:
        return report.exit_code
    if report.error or any(t.status == "failed" for t in report.topics):
        return EXIT_FAILED
    for topic in report.topics:
        total = topic.records + topic.quarantined
        if topic.quarantined and topic.quarantined / total > max_bad_ratio:
            return EXIT_BAD_RECORDS
    return 0
