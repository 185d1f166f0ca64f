"""An in-process app on a fresh SQLite file per test: fast, isolated, exercising the real stack."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from registry.api import create_app
from registry.config import RegistryConfig


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
