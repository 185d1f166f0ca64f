"""The repository directly: two instances on one database stand for two server processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from registry.service import errors
from registry.service.bodies import SchemaRequest
from registry.storage import migrate
from registry.storage.db import Database
from registry.storage.repository import Registry
from tests.registry.api.helpers import record

V1 = SchemaRequest(record(id="long"))
V2 = SchemaRequest(record(id="long", extra=("int", 0)))


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Registry, Registry]:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    migrate.upgrade(url)
    return Registry(Database(url)), Registry(Database(url))


def test_caches_of_one_process_notice_deletes_made_by_another(pair: tuple[Registry, Registry]) -> None:
    a, b = pair
    first = a.register("s", V1)
    assert b.register("s", V1) == first.__class__(first.id, 1, created=False)
    assert b.get_version("s", 1).schema.id == first.id  # now cached in b
    assert len(b.registered_cache) == 1, "b remembers the registration"
    a.delete_version("s", 1, permanent=False)
    with pytest.raises(errors.SubjectNotFound):  # its only version is gone: the subject is soft-deleted
        b.get_version("s", 1)
    again = b.register("s", V1)
    assert (again.id, again.version, again.created) == (first.id, 2, True), "a deleted version is not reused"


def test_mode_change_in_one_process_stops_cached_registrations_in_another(
    pair: tuple[Registry, Registry],
) -> None:
    a, b = pair
    a.register("m", V1)
    b.register("m", V1)  # cached as registered in b
    a.set_mode(None, "READONLY")
    with pytest.raises(errors.OperationNotPermitted):
        b.register("m", V1)


def test_schema_by_id_is_served_from_memory_after_first_read(pair: tuple[Registry, Registry]) -> None:
    a, _ = pair
    schema_id = a.register("c", V1).id
    a.schema_cache.clear()
    a.get_schema(schema_id)
    misses = a.schema_cache.misses
    for _ in range(5):
        a.get_schema(schema_id)
    assert a.schema_cache.misses == misses and a.schema_cache.hits >= 5


def test_uninitialized_database_is_a_store_error(tmp_path: Path) -> None:
    registry = Registry(Database(f"sqlite:///{tmp_path / 'empty.db'}"))
    with pytest.raises(errors.StoreError):
        registry.get_config(None)


def test_ids_are_global_and_versions_per_subject(pair: tuple[Registry, Registry]) -> None:
    a, b = pair
    one = a.register("x", V1)
    two = b.register("y", V2)
    three = a.register("y", V1)
    assert (one.id, two.id, three.id) == (1, 2, 1)
    assert (one.version, two.version, three.version) == (1, 1, 2)
