"""The reads behind the web page, on SQLite and on PostgreSQL: one query per list, same answers on both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from registry.service.bodies import SchemaRequest
from registry.service.contract_config import ConfigUpdate
from registry.storage import migrate
from registry.storage.db import Database
from registry.storage.repository import Registry
from tests.registry.api.helpers import record

V1 = SchemaRequest(record(id="long"))
V2 = SchemaRequest(record(id="long", extra=("int", 0)))


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)])
def registry(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Registry]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'r.db'}"
    else:
        url = request.getfixturevalue("fresh_postgres_url")
    migrate.upgrade(url)
    repository = Registry(Database(url))
    yield repository
    repository.db.dispose()


def names(registry: Registry, text: str = "", prefix_only: bool = False, deleted: bool = False) -> list[str]:
    return [s.name for s in registry.subject_summaries(text, prefix_only, deleted, 0, 100).subjects]


def test_summaries_match_case_insensitively_and_literally(registry: Registry) -> None:
    for name in ("Orders-value", "team.orders-key", "payments-value", "a%b_c-value", "a-b-c-value"):
        registry.register(name, V1)
    assert sorted(names(registry, "ORDERS")) == ["Orders-value", "team.orders-key"]
    assert names(registry, "orders", prefix_only=True) == ["Orders-value"]
    assert names(registry, "%b_") == ["a%b_c-value"], "% and _ are not wildcards"


def test_summaries_count_versions_and_hide_soft_deleted_subjects(registry: Registry) -> None:
    registry.register("both-value", V1)
    registry.register("both-value", V2)
    registry.delete_version("both-value", 2, permanent=False)
    registry.register("gone-value", V1)
    registry.delete_subject("gone-value", permanent=False)
    registry.update_config("both-value", ConfigUpdate("FULL", {}))
    listing = registry.subject_summaries("", False, False, 0, 10)
    assert listing.total == 1
    (both,) = listing.subjects
    assert (both.latest_version, both.live_versions, both.deleted) == (1, 1, False)
    assert (both.settings.compatibility, both.settings.compatibility_own) == ("FULL", True)
    assert (both.settings.mode, both.settings.mode_own) == ("READWRITE", False)
    assert both.last_registered.tzinfo is not None
    shown = {s.name: s for s in registry.subject_summaries("", False, True, 0, 10).subjects}
    assert (shown["gone-value"].deleted, shown["gone-value"].latest_version) == (True, 1)


def test_summaries_page_in_the_database_and_count_every_match(registry: Registry) -> None:
    for n in range(7):
        registry.register(f"t{n}-value", V1)
    page = registry.subject_summaries("", False, False, 5, 5)
    assert (page.total, [s.name for s in page.subjects]) == (7, ["t5-value", "t6-value"])
    past = registry.subject_summaries("", False, False, 50, 5)
    assert (past.total, past.subjects) == (7, ())


def test_history_keeps_soft_deleted_versions_and_the_baseline_follows_the_level(registry: Registry) -> None:
    registry.register("s-value", V1)
    registry.register("s-value", V2)
    registry.delete_version("s-value", 1, permanent=False)
    history = registry.subject_history("s-value")
    assert [(v.version, v.deleted) for v in history.versions] == [(1, True), (2, False)]
    assert [v for v, _ in registry.compatibility_baseline("s-value")[1]] == [2]
    registry.update_config("s-value", ConfigUpdate("NONE", {}))
    assert registry.compatibility_baseline("s-value")[0] == "NONE"
    assert [v for v, _ in registry.compatibility_baseline("s-value")[1]] == [2], "shown, though not compared"
    assert registry.compatibility_baseline("new-value") == ("BACKWARD", [])


def test_the_baseline_keeps_to_the_compatibility_group_a_registration_would_join(registry: Registry) -> None:
    major = {str(n): {"properties": {"major": str(n)}} for n in (1, 2)}
    registry.update_config("g-value", ConfigUpdate(None, {"compatibility_group": "major"}))
    registry.register("g-value", SchemaRequest(record(a="int"), metadata=major["1"]))
    registry.register("g-value", SchemaRequest(record(a="string"), metadata=major["2"]))
    registry.register("g-value", SchemaRequest(record(a="string", b=("int", 0)), metadata=major["2"]))
    assert [v for v, _ in registry.compatibility_baseline("g-value")[1]] == [3]
    registry.update_config("g-value", ConfigUpdate("BACKWARD_TRANSITIVE", {}))
    assert [v for v, _ in registry.compatibility_baseline("g-value")[1]] == [2, 3], "not version 1: major 1"
