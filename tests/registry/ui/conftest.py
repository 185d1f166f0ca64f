"""The page in-process on a fresh SQLite file per test, filled through the JSON API like a client would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from registry.api import create_app
from registry.config import RegistryConfig


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    application = create_app(
        RegistryConfig(
            database_url=f"sqlite:///{tmp_path / 'registry.db'}",
            max_body_bytes=64 * 1024,
            max_schema_chars=16 * 1024,
            max_json_depth=32,
        )
    )
    yield application
    application.extensions["registry"].db.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
