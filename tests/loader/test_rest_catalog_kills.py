"""`kill -9` at every step of a run through a REST catalog from its table's creation on, its tables' files
and the loader's state directory (manifests, audit records) on the object store, then a run again: every
record is in its table exactly once and the audit agrees, as under the metastore (test_run_process.py,
whose loop this is)."""

from __future__ import annotations

import pytest

from loader.fault_injection import ICEBERG_CRASH_POINTS
from tests.fixtures.rest_catalog import RestCatalogService
from tests.loader.harness import Harness, on_rest_catalog
from tests.loader.test_run_process import killed_at_every_step_then_run

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

# Every step whose state is the catalog's or the store's: the table made in the catalog, its commit, and
# the manifest, its completion's copies on the store and its marker there. Left out: the steps before the
# table is ready (recovery, the plan), whose state is the catalog's lock alone, which each kill here
# leaves for the next run to take over; and the partitions' step, which for an Iceberg table registers
# none (its state is the moves'). Every step is killed under the metastore (test_run_process.py), and the
# kills from outside land there too: at 3 to 9 s a run is still starting its JVM, whatever its catalog.
REST_KILL_POINTS = (
    "after_table_ready", "after_iceberg_commit", "after_staging", "after_manifest_temp", "after_manifest",
    "after_first_move", "after_moves", "after_applied_marker",
)  # fmt: skip


# About 12 `loader run` processes one after the other, each with its catalog lock and state on the store.
@pytest.mark.timeout(1200)
def test_killed_at_every_step_through_a_rest_catalog_and_rerun_loads_every_record_exactly_once(
    cli_harness: Harness, rest_catalog: RestCatalogService
) -> None:
    assert set(REST_KILL_POINTS) <= set(ICEBERG_CRASH_POINTS)
    on_rest_catalog(cli_harness, rest_catalog, state_on_store=True)
    killed_at_every_step_then_run(
        cli_harness, REST_KILL_POINTS, kills_from_outside=(), killed_after_a_whole_range=False
    )
