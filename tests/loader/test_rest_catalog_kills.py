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

# The steps whose state is on the catalog or the store and whose rerun reads it there: the table's commit
# in the catalog (the rerun finds its offsets in the snapshot), the run's files staged on the store and
# its manifest (each then reads from the store), the completion half done (a move on the store is a copy
# and a delete: the rerun finds some sources gone) and its marker. Left out, each the same code as a step
# kept here, or killed elsewhere with the same state: the steps before the table is ready (their state
# is the catalog's lock, which each kill here leaves for the next run to take over, and which
# test_rest_catalog_runs.py leaves and takes over too), the table made and empty, the manifest's
# temporary file (a staged file like the others), every move done (some sources gone, as after the
# first), and the partitions' step, which for an Iceberg table registers none. Every step is killed
# under the metastore (test_run_process.py), and the kills from outside land there too: at 3 to 9 s a
# run is still starting its JVM, whatever its catalog.
REST_KILL_POINTS = (
    "after_iceberg_commit", "after_staging", "after_manifest", "after_first_move", "after_applied_marker",
)  # fmt: skip


# About 8 `loader run` processes one after the other, each with its catalog lock and state on the store.
@pytest.mark.timeout(1200)
def test_killed_at_every_step_through_a_rest_catalog_and_rerun_loads_every_record_exactly_once(
    cli_harness: Harness, rest_catalog: RestCatalogService
) -> None:
    assert set(REST_KILL_POINTS) <= set(ICEBERG_CRASH_POINTS)
    on_rest_catalog(cli_harness, rest_catalog, state_on_store=True)
    killed_at_every_step_then_run(
        cli_harness, REST_KILL_POINTS, kills_from_outside=(), killed_after_a_whole_range=False
    )
