"""Fixtures shared by the whole suite live in tests/fixtures/; this file only loads them."""

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
]
