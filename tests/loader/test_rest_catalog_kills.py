"""`kill -9` at every step of a run through a REST catalog, its tables' files and the loader's state
directory (manifests, audit records) on the object store, then a run again: every record is in its table
exactly once and the audit agrees, as under the metastore (test_run_process.py, whose loop this is)."""

from __future__ import annotations

import pytest

from loader.fault_injection import ICEBERG_CRASH_POINTS
from tests.fixtures.rest_catalog import RestCatalogService
from tests.loader.harness import Harness, on_rest_catalog
from tests.loader.test_run_process import killed_at_every_step_then_run

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]


# About 20 `loader run` processes one after the other, each with its catalog lock and state on the store.
@pytest.mark.timeout(1200)
def test_killed_at_every_step_through_a_rest_catalog_and_rerun_loads_every_record_exactly_once(
    cli_harness: Harness, rest_catalog: RestCatalogService
) -> None:
    on_rest_catalog(cli_harness, rest_catalog, state_on_store=True)
    killed_at_every_step_then_run(cli_harness, ICEBERG_CRASH_POINTS)
