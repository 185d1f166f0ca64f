"""Prometheus metrics of the registry, correct under gunicorn's several worker processes.

prometheus_client decides at import time whether values live in memory or in per-process files under
``PROMETHEUS_MULTIPROC_DIR``; ``registry serve`` sets that variable before anything imports this module,
so every worker writes its own files and ``/metrics`` (answered by any one worker) adds them all up.
Labels are bounded: the endpoint is the Flask rule, never the raw path.
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

REQUESTS = Counter(
    "registry_http_requests_total",
    "HTTP requests answered, by route and status.",
    ["endpoint", "method", "status"],
)
LATENCY = Histogram(
    "registry_http_request_duration_seconds",
    "Time to answer a request, by route.",
    ["endpoint", "method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
REGISTRATIONS = Counter("registry_schema_registrations_total", "New subject versions registered.")
REFUSALS = Counter(
    "registry_schema_refusals_total",
    "Registrations refused, by reason (incompatible, invalid, forbidden, ...).",
    ["reason"],
)
CACHE_LOOKUPS = Counter(
    "registry_cache_lookups_total",
    "Lookups in the per-process caches, by cache and result.",
    ["cache", "result"],
)

#: The label used for requests that matched no route (404s), so unknown paths cannot grow the label set.
UNMATCHED = "<unmatched>"


def cache_observer(cache: str) -> tuple[Counter, Counter]:
    """The hit and miss counters of one named cache, resolved once instead of per lookup."""
    return CACHE_LOOKUPS.labels(cache, "hit"), CACHE_LOOKUPS.labels(cache, "miss")


def exposition() -> tuple[bytes, str]:
    """The text exposition of every worker's metrics (or this process's when not multiprocess)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def worker_exited(pid: int) -> None:
    """Drops a dead worker's live gauges (counters stay, so totals never go backwards)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(pid)
