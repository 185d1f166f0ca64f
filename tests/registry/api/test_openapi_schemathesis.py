"""Property-based run of the whole API from its own OpenAPI document (schemathesis), over real HTTP.

The document is fetched from the running server (``/openapi.json``), so it is the one clients see. The
server is a dedicated one because generated requests change global settings (mode, compatibility). Every
operation gets a bounded number of generated requests, valid and invalid; every response must be a
non-5xx that the document allows (status code, content type and body shape).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import requests

from tests.fixtures.registry_server import RegistryProcess
from tests.registry.api.helpers import record

pytestmark = pytest.mark.scheduled_first

CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_schema_conformance",
        "negative_data_rejection",  # requests the document calls invalid must get a 4xx
        "unsupported_method",  # methods the document does not list must get 405
    ]
)


# Generated requests per operation: the default tier's, and the full tier's (its fuzzing at full size).
EXAMPLES, EXAMPLES_FULL = 5, 20


@pytest.mark.integration
def test_api_conforms_to_its_openapi_document(
    registry_factory: Callable[..., RegistryProcess], tmp_path: Path, in_full_tier: bool
) -> None:
    server = registry_factory()
    seeded = requests.post(f"{server.url}/subjects/seed-value/versions", json={"schema": record(id="long")})
    assert seeded.status_code == 200
    # One worker: schemathesis' worker threads describe Hypothesis strategies with `ast.parse`, which on
    # Python 3.11 can fail when two threads parse at once ("SystemError: AST constructor recursion depth
    # mismatch", CPython gh-106905); that failed CI once. One worker takes as long here (about 30 s).
    command = [
        str(Path(sys.executable).with_name("schemathesis")), "run", f"{server.url}/openapi.json",
        "--checks", CHECKS, "--max-examples", str(EXAMPLES_FULL if in_full_tier else EXAMPLES),
        "--generation-deterministic",
        "--phases", "examples,coverage,fuzzing", "--workers", "1", "--request-timeout", "20",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    report = done.stdout[-6000:] + done.stderr[-2000:]
    assert done.returncode == 0, report
    assert " passed" in done.stdout and "failed" not in done.stdout.split("SUMMARY")[-1], report
    assert "unhandled error" not in server.output(), server.output()[-3000:]
