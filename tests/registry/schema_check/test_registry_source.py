"""The REST client's handling of what other Confluent-compatible registries answer.

A tiny HTTP server with canned answers stands in for registries that are not ours (an older one without
``defaultToGlobal``, one that fails, a URL that is not a registry); the real registry is exercised in
``test_cli_registry``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from registry.schema_check.registry_source import RegistryClient, RegistryError, RegistryUnavailable

# path (with query) -> (status, body); anything else answers 404 / 40401.
Routes = dict[str, tuple[int, object]]


@pytest.fixture
def canned() -> Iterator[tuple[str, Routes, list[str]]]:
    """A server answering from ``routes``; ``seen`` records the request paths in order."""
    routes: Routes = {}
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            status, body = routes.get(self.path, (404, {"error_code": 40401, "message": "Subject not found"}))
            payload = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", routes, seen
    finally:
        server.shutdown()
        server.server_close()


def test_level_falls_back_to_the_global_config_for_registries_without_default_to_global(
    canned: tuple[str, Routes, list[str]],
) -> None:
    url, routes, seen = canned
    routes["/config"] = (200, {"compatibilityLevel": "full_transitive"})
    assert RegistryClient(url).compatibility_level("t-value") == "FULL_TRANSITIVE"
    assert seen == ["/config/t-value?defaultToGlobal=true", "/config"]


def test_level_accepts_the_compatibility_spelling(canned: tuple[str, Routes, list[str]]) -> None:
    url, routes, _ = canned
    routes["/config/t-value?defaultToGlobal=true"] = (200, {"compatibility": "FORWARD"})
    assert RegistryClient(url).compatibility_level("t-value") == "FORWARD"


def test_versions_of_an_unknown_subject_are_none_and_known_ones_ascend(
    canned: tuple[str, Routes, list[str]],
) -> None:
    url, routes, _ = canned
    routes["/subjects/t-value/versions"] = (200, [3, 1, 2])
    routes["/subjects/t-value/versions/3"] = (
        200,
        {"subject": "t-value", "version": 3, "id": 7, "schema": '"int"'},
    )
    client = RegistryClient(url)
    assert client.version_numbers("other-value") == []
    assert client.version_numbers("t-value") == [1, 2, 3]
    latest = client.version("t-value", 3)
    assert (latest.version, latest.id, latest.schema, latest.schema_type, latest.references) == (
        3,
        7,
        '"int"',
        "AVRO",
        (),
    )


def test_server_errors_and_non_registries_are_unavailable_not_verdicts(
    canned: tuple[str, Routes, list[str]],
) -> None:
    url, routes, _ = canned
    routes["/subjects/broken-value/versions"] = (500, {"error_code": 50001, "message": "store error"})
    routes["/subjects/html-value/versions"] = (200, "<html>login</html>")
    client = RegistryClient(url)
    with pytest.raises(RegistryUnavailable, match="HTTP 500"):
        client.version_numbers("broken-value")
    with pytest.raises(RegistryUnavailable, match="is this a schema registry URL"):
        client.version_numbers("html-value")


def test_other_client_errors_carry_the_registrys_code(canned: tuple[str, Routes, list[str]]) -> None:
    url, routes, _ = canned
    routes["/subjects/secret-value/versions"] = (401, {"error_code": 40101, "message": "Unauthorized"})
    with pytest.raises(RegistryError) as raised:
        RegistryClient(url).version_numbers("secret-value")
    assert (raised.value.status, raised.value.error_code, raised.value.message) == (
        401,
        40101,
        "Unauthorized",
    )
