"""Several ``registry serve`` processes on one database, many clients registering at once, real HTTP.

Run on PostgreSQL and on a shared SQLite file. Invariants: no 5xx; one id per distinct schema, whichever
process and subject registered it; within each subject, versions are 1..n without gaps or duplicates;
every accepted registration is visible afterwards from every process; ids increase in the order
registrations happened.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests

from tests.fixtures.postgres import PostgresCluster
from tests.fixtures.registry_server import RegistryProcess
from tests.registry.api.helpers import record

pytestmark = pytest.mark.integration

SUBJECTS = [f"topic-{i}-value" for i in range(6)]
SCHEMAS = [
    record(f"Event{i % 4}", id="long", **{f"f{j}": ("int", j) for j in range(i // 4)}) for i in range(16)
]


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
def test_processes_on_one_database_stay_consistent(
    registry_factory: Callable[..., RegistryProcess],
    postgres_cluster: PostgresCluster,
    tmp_path: Path,
    backend: str,
) -> None:
    if backend == "postgresql":
        database_url = postgres_cluster.create_database("concurrency")
    else:
        database_url = f"sqlite:///{tmp_path / 'shared.db'}"
    servers = [registry_factory(database_url, workers=2, threads=4) for _ in range(3)]
    for server in servers:
        requests.put(f"{server.url}/config", json={"compatibility": "NONE"}, timeout=10).raise_for_status()

    jobs = [(subject, schema) for subject in SUBJECTS for schema in SCHEMAS] * 2
    random.Random(7).shuffle(jobs)
    sessions: dict[int, requests.Session] = defaultdict(requests.Session)

    def register(index_job: tuple[int, tuple[str, str]]) -> tuple[str, str, int, int]:
        index, (subject, schema) = index_job
        url = servers[index % len(servers)].url
        resp = sessions[index % 24].post(
            f"{url}/subjects/{subject}/versions", json={"schema": schema}, timeout=60
        )
        return subject, schema, resp.status_code, resp.json().get("id", resp.json().get("error_code"))

    with ThreadPoolExecutor(max_workers=24) as pool:
        results = list(pool.map(register, enumerate(jobs)))

    assert all(status == 200 for _, _, status, _ in results), [r for r in results if r[2] != 200][:5]
    ids_by_schema: dict[str, set[int]] = defaultdict(set)
    for _, schema, _, schema_id in results:
        ids_by_schema[schema].add(schema_id)
    assert all(len(ids) == 1 for ids in ids_by_schema.values()), "the same schema got different ids"
    all_ids = sorted(next(iter(ids)) for ids in ids_by_schema.values())
    assert all_ids == list(range(1, len(SCHEMAS) + 1)), "ids are unique and dense"

    for server in servers:
        for subject in SUBJECTS:
            versions = requests.get(f"{server.url}/subjects/{subject}/versions", timeout=10).json()
            assert versions == list(range(1, len(SCHEMAS) + 1)), (subject, versions)
            for version in versions:
                got = requests.get(f"{server.url}/subjects/{subject}/versions/{version}", timeout=10).json()
                assert got["id"] == next(iter(ids_by_schema[got["schema"]]))


def test_ids_follow_registration_order_across_processes(
    registry_factory: Callable[..., RegistryProcess], postgres_cluster: PostgresCluster
) -> None:
    database_url = postgres_cluster.create_database("ordering")
    servers = [registry_factory(database_url, workers=1, threads=2) for _ in range(2)]
    seen = []
    for i in range(10):
        url = servers[i % 2].url
        resp = requests.post(
            f"{url}/subjects/ordered-value/versions",
            json={"schema": record(id="long", **{f"x{j}": ("int", 0) for j in range(i)})},
            timeout=10,
        )
        seen.append(resp.json()["id"])
    assert seen == sorted(seen) and len(set(seen)) == len(seen)
