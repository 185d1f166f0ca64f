"""`kill -9` at every step of a run through a REST catalog from its table's creation on, its tables' files
and the loader's state directory (manifests, audit records) on the object store, then a run again: every
record is in its table exactly once and the audit agrees, as under the metastore (test_run_process.py,
whose loop this is)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.outcome.fault_injection import ICEBERG_CRASH_POINTS
from tests.fixtures.rest_catalog import RestCatalogService
from tests.loader.harness import Harness, on_rest_catalog
from tests.loader.test_run_process import killed_at_every_step_then_run
from tests.tiers import FULL

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

# The default tier kills the steps whose state is on the catalog or the store and whose rerun reads it
# there, each a state of its own: the table's commit in the catalog (the rerun finds its offsets in the
# snapshot), the manifest on the store (the rerun reads it from there and completes it). The full tier
# kills every step from the table's making on, the completion half done among them: an Iceberg run's
# manifest moves one file, its audit record, and the kill comes after that move returned (a copy and a
# delete on the store), so its rerun finds the source gone and the target there, as Hive's rerun after
# its own `after_first_move` does (test_run_process.py). Before it, a killed run's state is the catalog's
# lock, which each kill here leaves for the next run to take over, and which test_rest_catalog_runs.py
# leaves and takes over too; kills from outside land in the JVM's start, whatever the catalog, and are
# the metastore's loop's (test_run_process.py).
REST_STATE_POINTS = ("after_iceberg_commit", "after_manifest")
REST_EVERY_POINT = ICEBERG_CRASH_POINTS[ICEBERG_CRASH_POINTS.index("after_table_ready") :]


# The full tier's case: about 12 `loader run` processes one after the other, each with its catalog lock
# and state on the store; the default tier's: 4.
@pytest.mark.timeout(1500)
@pytest.mark.parametrize(
    "crash_points",
    [pytest.param(REST_STATE_POINTS, id="few"), pytest.param(REST_EVERY_POINT, id="every", marks=FULL)],
)
def test_killed_at_every_step_through_a_rest_catalog_and_rerun_loads_every_record_exactly_once(
    cli_harness: Harness,
    rest_catalog: RestCatalogService,
    crash_points: tuple[str, ...],
    spark: SparkSession,
    spark_warehouse: Path,
) -> None:
    """The run after the killed `loader run` processes, and the reads and the audit of their tables, on a
    session of the catalog in the worker's application."""
    assert set(REST_STATE_POINTS) <= set(REST_EVERY_POINT)
    on_rest_catalog(cli_harness, rest_catalog, state_on_store=True)
    in_process = cli_harness.in_process(spark_warehouse)
    killed_at_every_step_then_run(
        cli_harness,
        crash_points,
        kills_from_outside=(),
        killed_after_a_whole_range=False,
        read_in=(in_process, in_process.session(spark)),
    )
