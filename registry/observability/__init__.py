"""What operators need to run the registry: ``/health``, ``/metrics``, request ids and structured logs.

``install_observability`` is the one call the app factory makes; the pieces live in their own modules
(``metrics``, ``logs``) and hold no Flask code, this module is the Flask glue.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from flask import Flask, Response, g, request
from sqlalchemy import text

from registry.config import RegistryConfig
from registry.observability import logs, metrics
from registry.storage.repository import Registry

log = logging.getLogger("registry.requests")
HEALTH_PATH = "/health"
METRICS_PATH = "/metrics"
_REGISTER_ENDPOINT = "subjects.register"
#: Why a registration was refused, from the error code of the answer (a bounded set: metric labels).
_REFUSAL_KINDS = {
    409: "incompatible",
    42201: "invalid",
    42208: "invalid",
    42209: "invalid",
    400: "invalid",
    413: "invalid",
    42205: "not_permitted",
    40101: "unauthenticated",
    40301: "forbidden",
    42901: "throttled",
    50001: "store_error",
}


def refusal_kind(error_code: object) -> str:
    """The refusal's kind for the log and the ``reason`` label; ``other`` for anything unforeseen."""
    return _REFUSAL_KINDS.get(error_code, "other") if isinstance(error_code, int) else "other"


def _health(body: dict[str, str], status: int) -> Response:
    """``/health``'s answer: plain JSON, for probes rather than Confluent's clients."""
    return Response(json.dumps(body), status=status, mimetype="application/json")


def install_observability(app: Flask, cfg: RegistryConfig, registry: Registry) -> None:
    """Adds the two operator routes, per-request ids, access logs, metrics and cache counters."""
    _observe_caches(registry)
    _count_registrations(registry)

    @app.get(HEALTH_PATH)
    def health() -> Response:
        try:
            with registry.db.read() as session:
                session.execute(text("SELECT 1"))
        except Exception as exc:  # any failure means "not ready"
            log.warning("health check failed: %s", type(exc).__name__)
            return _health({"status": "unavailable", "database": "unreachable"}, 503)
        return _health({"status": "ok"}, 200)

    @app.get(METRICS_PATH)
    def prometheus() -> Response:
        payload, content_type = metrics.exposition()
        return Response(payload, content_type=content_type)

    @app.before_request
    def start() -> None:
        g.request_id = logs.request_id(request.headers.get(logs.REQUEST_ID_HEADER))
        g.request_id_token = logs.bind_request_id(g.request_id)
        g.started = time.perf_counter()

    @app.teardown_request
    def forget_request_id(_exc: BaseException | None) -> None:
        token = g.pop("request_id_token", None)
        if token is not None:
            logs.unbind(token)

    @app.after_request
    def finish(response: Response) -> Response:
        # Flask skips before_request when a path value is refused (42208, 42202): the id is made here then.
        rid = g.get("request_id") or logs.request_id(request.headers.get(logs.REQUEST_ID_HEADER))
        response.headers[logs.REQUEST_ID_HEADER] = rid
        elapsed = time.perf_counter() - g.get("started", time.perf_counter())
        endpoint = request.url_rule.rule if request.url_rule is not None else metrics.UNMATCHED
        metrics.REQUESTS.labels(endpoint, request.method, str(response.status_code)).inc()
        metrics.LATENCY.labels(endpoint, request.method).observe(elapsed)
        fields: dict[str, Any] = {
            "request_id": rid,
            "method": request.method,
            "path": request.path,
            "status": response.status_code,
            "duration_ms": round(elapsed * 1000, 3),
        }
        if request.endpoint == _REGISTER_ENDPOINT and response.status_code >= 400:
            _log_refusal(response, fields)
        log.info("%s %s %d", request.method, request.path, response.status_code, extra=fields)
        return response


def _log_refusal(response: Response, fields: dict[str, Any]) -> None:
    """Every refused registration, whoever refused it (a rule, a role, the store), is a WARNING naming the
    subject and why (the error body's message)."""
    body = response.get_json(silent=True) or {}
    kind = refusal_kind(body.get("error_code"))
    metrics.REFUSALS.labels(kind).inc()
    reason = str(body.get("message", ""))
    subject = (request.view_args or {}).get("subject")
    log.warning(
        "registration refused (%s): subject=%s reason=%s",
        kind,
        subject,
        reason,
        extra={**fields, "subject": subject, "reason": reason},
    )


def _observe_caches(registry: Registry) -> None:
    """Counts hits and misses of the schema caches (the LRUs report each lookup to an observer)."""
    for name in ("schema", "parsed", "version", "request", "registered"):
        cache = getattr(registry, f"{name}_cache", None)
        if cache is not None:
            hit, miss = metrics.cache_observer(name)
            cache.observer = lambda found, hit=hit, miss=miss: (hit if found else miss).inc()


def _count_registrations(registry: Registry) -> None:
    """Counts registrations that created a version (re-registering an existing schema is not one)."""
    registry.on_registered = lambda _subject, _done: metrics.REGISTRATIONS.inc()
