"""Database failures answer 50001 and /health 503; everything recovers when the database returns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import requests

from registry.api import create_app
from registry.config import RegistryConfig
from registry.storage.db import Database
from tests.fixtures.postgres import PostgresCluster
from tests.fixtures.registry_server import RegistryProcess
from tests.registry.api.helpers import body, record


def test_broken_database_is_50001(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'broken.db'}"
    client = create_app(RegistryConfig(database_url=url)).test_client()
    database = Database(url)
    with database.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE registry_state")
    database.dispose()
    resp = client.get("/config")
    assert resp.status_code == 500
    assert resp.get_json()["error_code"] == 50001


@pytest.mark.integration
def test_postgres_going_away_is_50001_and_recovers(
    registry_factory: Callable[..., RegistryProcess], postgres_cluster: PostgresCluster
) -> None:
    server = registry_factory(postgres_cluster.create_database("outage"), workers=1, threads=2)
    schema_id = requests.post(
        f"{server.url}/subjects/o-value/versions", json=body(record(id="long")), timeout=10
    )
    schema_id = schema_id.json()["id"]
    assert requests.get(f"{server.url}/schemas/ids/{schema_id}", timeout=10).status_code == 200
    assert requests.get(f"{server.url}/health", timeout=10).json() == {"status": "ok"}
    postgres_cluster.stop()
    try:
        down = requests.get(f"{server.url}/subjects", timeout=30)
        assert down.status_code == 500 and down.json()["error_code"] == 50001
        cached = requests.get(f"{server.url}/schemas/ids/{schema_id}", timeout=10)
        assert cached.status_code == 200, "ids already seen are served from memory during an outage"
        refused = requests.post(
            f"{server.url}/subjects/o-value/versions", json=body(record(id="long", n=("int", 0))), timeout=30
        )
        assert refused.status_code == 500 and refused.json()["error_code"] == 50001
        health = requests.get(f"{server.url}/health", timeout=30)
        assert health.status_code == 503 and health.json()["status"] == "unavailable"
    finally:
        postgres_cluster.start()
    assert requests.get(f"{server.url}/health", timeout=30).json() == {"status": "ok"}
    assert requests.get(f"{server.url}/subjects", timeout=30).json() == ["o-value"]
    assert requests.get(f"{server.url}/subjects/o-value/versions", timeout=30).json() == [1], (
        "nothing half-written"
    )
    again = requests.post(
        f"{server.url}/subjects/o-value/versions", json=body(record(id="long", n=("int", 0))), timeout=30
    )
    assert again.status_code == 200 and again.json()["id"] == schema_id + 1, "no id was used up by the outage"
