"""A database host that accepts TCP but never answers (a network partition, a hung server) makes requests
answer 50001 and /health 503 after the connect timeout, instead of holding the worker for minutes."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from registry.api import create_app
from registry.config import RegistryConfig
from registry.storage import db


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A listening socket nobody accepts on: the kernel completes the handshake, then nothing answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield sock.getsockname()[1]


@pytest.mark.timeout(30)  # without a connect timeout the request would hang: fail, do not wait
@pytest.mark.parametrize(
    ("default_s", "url_query", "path", "expected"),
    [
        (1, "", "/subjects", (500, "error_code", 50001)),  # our default bound
        (60, "?connect_timeout=1", "/health", (503, "status", "unavailable")),  # the URL's wins over it
    ],
)
def test_a_silent_postgres_answers_50001_and_503_within_the_connect_timeout(
    silent_port: int,
    monkeypatch: pytest.MonkeyPatch,
    default_s: int,
    url_query: str,
    path: str,
    expected: tuple[int, str, object],
) -> None:
    monkeypatch.setattr(db, "PG_CONNECT_TIMEOUT_S", default_s)
    url = f"postgresql+psycopg://registry@127.0.0.1:{silent_port}/registry{url_query}"
    app = create_app(RegistryConfig(database_url=url, auto_upgrade=False))
    client = app.test_client()
    started = time.monotonic()
    try:
        answer = client.get(path)
        status, key, value = expected
        assert (answer.status_code, answer.get_json()[key]) == (status, value)
    finally:
        app.extensions["registry"].db.dispose()
    assert time.monotonic() - started < 10
