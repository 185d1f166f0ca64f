"""An in-process app on a fresh SQLite file per test: fast, isolated, exercising the real stack; and real
servers on both databases for the tests that go through confluent-kafka's client."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from registry.api import create_app
from registry.config import RegistryConfig
from tests.fixtures.postgres import PostgresCluster
from tests.fixtures.registry_server import RegistryProcess, start_registry


@pytest.fixture
def app_config(tmp_path: Path) -> RegistryConfig:
    return RegistryConfig(
        database_url=f"sqlite:///{tmp_path / 'registry.db'}",
        max_body_bytes=64 * 1024,
        max_schema_chars=16 * 1024,
        max_json_depth=32,
        enable_bench_endpoint=True,
    )


@pytest.fixture
def app(app_config: RegistryConfig) -> Iterator[Flask]:
    application = create_app(app_config)
    yield application
    application.extensions["registry"].db.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served_registry(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RegistryProcess]:
    """A real `registry serve` for the module's client tests, once on SQLite and once on PostgreSQL."""
    workdir = tmp_path_factory.mktemp(f"registry-{request.param}")
    if request.param == "sqlite":
        url = f"sqlite:///{workdir / 'registry.db'}"
    else:
        cluster: PostgresCluster = request.getfixturevalue("postgres_cluster")
        url = cluster.create_database(f"clients_{uuid.uuid4().hex[:12]}")
    server = start_registry(url, workdir)
    try:
        yield server
    finally:
        server.stop()
