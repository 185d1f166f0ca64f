"""Fixtures shared by the whole suite live in tests/fixtures/; this file loads them, chooses the tier
(tests/tiers.py) and orders the test files for the test workers."""

from __future__ import annotations

import pytest

pytest_plugins = [
    "tests.fixtures.kafka",
    "tests.fixtures.spark",
    "tests.fixtures.hive_metastore",
    "tests.fixtures.object_store",
    "tests.fixtures.rest_catalog",
    "tests.fixtures.cluster",
    "tests.fixtures.registry_server",
    "tests.fixtures.postgres",
    "tests.fixtures.browser",
    "tests.fixtures.monitoring",
    "tests.tiers",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files marked `scheduled_first` first, the others after them in their own order. pytest-xdist
    hands its workers whole files in this order (scripts/test turns off its own, by number of tests, which
    put these files of few long tests last): the long files start early and the many short ones fill the
    end, so the two workers end together instead of one running a long file alone."""
    items.sort(key=lambda item: item.get_closest_marker("scheduled_first") is None)
