"""Over real HTTP with two gunicorn workers: metrics add up across processes, request ids, JSON logs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.fixtures.registry_server import RegistryProcess
from tests.registry.api.helpers import body, record

REQUESTS = 40


def _total(metrics_text: str, endpoint: str, method: str, status: str) -> float:
    pattern = re.compile(r"^registry_http_requests_total\{(?P<labels>[^}]*)\} (?P<value>\S+)$", re.MULTILINE)
    wanted = {f'endpoint="{endpoint}"', f'method="{method}"', f'status="{status}"'}
    return sum(
        float(m["value"]) for m in pattern.finditer(metrics_text) if wanted <= set(m["labels"].split(","))
    )


@pytest.mark.integration
def test_metrics_add_up_across_workers_and_ids_are_echoed(
    registry_factory: Callable[..., RegistryProcess],
) -> None:
    server = registry_factory(workers=2, threads=1, extra_args=["--log-format", "json"])
    assert requests.post(f"{server.url}/subjects/h-value/versions", json=body(record(a="int")), timeout=10).ok
    url = f"{server.url}/subjects/h-value/versions"
    with ThreadPoolExecutor(8) as pool:  # concurrent fresh connections: both sync workers take some
        statuses = list(pool.map(lambda _: requests.get(url, timeout=10).status_code, range(REQUESTS)))
    assert statuses == [200] * REQUESTS
    text = requests.get(f"{server.url}/metrics", timeout=10).text
    assert "# TYPE registry_http_requests_total counter" in text
    assert _total(text, "/subjects/<subject>/versions", "GET", "200") == REQUESTS
    assert _total(text, "/subjects/<subject>/versions", "POST", "200") == 1
    assert "registry_schema_registrations_total 1.0" in text
    assert "registry_http_request_duration_seconds_bucket" in text

    resp = requests.get(f"{server.url}/health", headers={"X-Request-ID": "trace-42"}, timeout=10)
    assert resp.json() == {"status": "ok"} and resp.headers["X-Request-ID"] == "trace-42"
    generated = requests.get(f"{server.url}/subjects", timeout=10).headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", generated)

    server.stop()
    lines = [json.loads(line) for line in server.output().splitlines() if line.startswith("{")]
    booted = [line for line in lines if line["message"].startswith("Booting worker")]
    assert len(booted) == 2 and {line["logger"] for line in booted} == {"gunicorn.error"}, (
        "gunicorn's own lines are JSON too"
    )
    access = [line for line in lines if line.get("request_id") == "trace-42"]
    assert access and access[0]["path"] == "/health" and access[0]["status"] == 200
    served_by = {
        line["pid"]
        for line in lines
        if line.get("method") == "GET" and line.get("path") == "/subjects/h-value/versions"
    }
    assert len(served_by) == 2, "both workers must have answered for the sum to mean anything"
