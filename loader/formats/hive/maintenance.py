"""`loader maintain` on Hive ORC tables: the small files every run adds to a time partition are
compacted once the partition is closed, without readers ever seeing a partial or doubled partition.

A partition is compacted by writing its rows into a new directory
(`<table>/_compacted/<maintain run id>/dt=.../hour=...`) and then pointing the metastore's partition
there, all of a table's compacted partitions in one request: a query plans with the old directory or the
new one. The old files stay for `maintain-grace-minutes`, for queries that listed them before the switch,
and a later maintain run removes them. Each compaction is recorded in the state directory before its
directory is written (`loader.formats.hive.relocation_record`), so a run killed anywhere leaves nothing a
reader sees and nothing a later run cannot finish or undo. Which partitions, and what to do with what
earlier runs left, are pure decisions (`loader.formats.hive.compaction_plan`); the metastore and file
system calls are in `loader.formats.hive.compaction_io`.
"""

from __future__ import annotations

from pyspark.sql import SparkSession

from loader.formats.hive.compaction_io import (
    HiveTable,
    current_location,
    list_partitions,
    loader_tables,
    mark_relocated,
    rewrite_partition,
    switch_locations,
)
from loader.formats.hive.compaction_plan import Cleanup, Compaction, cleanup_decision, plan_compactions
from loader.formats.hive.relocation_record import Relocation, RelocationLog
from loader.formats.maintenance import Maintained, MaintainRequest, PartitionAction
from loader.formats.metastore import partition_directory
from loader.outcome.fault_injection import crash_point
from loader.planning.state_store import StateFiles
from loader.runtime.spark_errors import first_line

COMPACTED_DIR = "_compacted"  # under a table's directory; `_` keeps it out of every reader's listing
# Where tests kill `loader maintain` (LOADER_CRASH_AT), besides anywhere by time.
CRASH_POINTS = ("maintain_after_record", "maintain_after_rewrite", "maintain_after_switch")
CLEANUP_ACTIONS = {
    Cleanup.CONFIRM_SWITCH: "switch confirmed",
    Cleanup.WAIT: "old files kept",
    Cleanup.DROP_NEW: "unfinished compaction removed",
    Cleanup.REMOVE_OLD: "old files removed",
}


def maintain_hive_tables(spark: SparkSession, store: StateFiles, request: MaintainRequest) -> Maintained:
    """Finishes what earlier maintain runs recorded, then compacts each of the loader's ORC tables."""
    actions: list[PartitionAction] = []
    pending = _finish_earlier_runs(spark, store, request, actions)
    tables = loader_tables(spark, store, request.database)
    for table in tables:
        partitions = list_partitions(spark, store, request.database, table)
        _sweep_orphans(store, table, [p.location for p in partitions], pending, request)
        planned = plan_compactions(partitions, request.compaction, request.now)
        actions += _compact(spark, store, request, table, planned)
    return Maintained(len(tables), "loader's table", actions)


def _finish_earlier_runs(
    spark: SparkSession, store: StateFiles, request: MaintainRequest, actions: list[PartitionAction]
) -> list[Relocation]:
    """Completes or undoes what earlier runs recorded; returns the relocations still waiting."""
    waiting = []
    log = RelocationLog(store)
    for relocation in log.read_all():
        where = current_location(spark, store, relocation.table, relocation.spec)
        decision = cleanup_decision(relocation, where, request.now, request.grace)
        if decision is Cleanup.CONFIRM_SWITCH:
            waiting.append(log.confirm(relocation, request.now))
        elif decision is Cleanup.WAIT:
            waiting.append(relocation)
        elif decision is Cleanup.DROP_NEW:
            store.delete(relocation.new_location)
            log.remove(relocation)
        else:
            for old in relocation.old_files:
                store.delete(old, recursive=False)
            if not store.list(relocation.old_location):
                store.delete(relocation.old_location)
            log.remove(relocation)
        actions.append(
            PartitionAction(
                relocation.table,
                partition_directory(relocation.spec),
                CLEANUP_ACTIONS[decision],
                detail=decision.value,
            )
        )
    return waiting


def _sweep_orphans(
    store: StateFiles,
    table: HiveTable,
    locations: list[str],
    pending: list[Relocation],
    request: MaintainRequest,
) -> None:
    """Removes a maintain run's directory under `<table>/_compacted/` that no partition points into and
    no record names, once it is older than the grace period (what is left when records were lost)."""
    root = f"{table.location}/{COMPACTED_DIR}"
    named = [r.new_location for r in pending]
    for directory in store.list(root):
        inside = [p for p in [*locations, *named] if p.startswith(directory.rstrip("/") + "/")]
        if inside:
            continue
        modified = store.modified_at(directory)
        if request.now - modified >= request.grace:
            store.delete(directory)


def _compact(
    spark: SparkSession,
    store: StateFiles,
    request: MaintainRequest,
    table: HiveTable,
    compactions: list[Compaction],
) -> list[PartitionAction]:
    """Rewrites each planned partition into a new directory, then switches them all in one request."""
    database, now = request.database, request.now
    qualified = f"{database}.{table.name}"
    log = RelocationLog(store)
    actions: list[PartitionAction] = []
    done: list[tuple[Relocation, Compaction, int]] = []
    for i, compaction in enumerate(compactions):
        partition = compaction.partition
        relative = partition_directory(partition.spec)
        relocation = Relocation(
            id=f"{request.run_id}-{table.name}-{i:04d}",
            table=qualified,
            spec=partition.spec,
            old_location=partition.location,
            old_files=[f.path for f in partition.files],
            new_location=f"{table.location}/{COMPACTED_DIR}/{request.run_id}/{relative}",
            created_at=now,
        )
        log.write(relocation)
        crash_point("maintain_after_record")
        try:
            rows = rewrite_partition(
                spark, database, table, partition.spec, relocation.new_location, compaction.output_files
            )
        except Exception as exc:  # never pointed to: removed now, the partition stays as it was
            store.delete(relocation.new_location)
            log.remove(relocation)
            reason = first_line(exc, 300) or type(exc).__name__
            actions.append(
                PartitionAction(qualified, relative, "failed", compaction.input_files, detail=reason)
            )
            continue
        done.append((relocation, compaction, rows))
    if not done:
        return actions
    crash_point("maintain_after_rewrite")
    mark_relocated(spark, database, table)
    switch_locations(spark, database, table.name, [(r.spec, r.new_location) for r, _, _ in done])
    crash_point("maintain_after_switch")
    for relocation, compaction, rows in done:
        log.confirm(relocation, now)
        written = len(store.list_files(relocation.new_location))
        actions.append(
            PartitionAction(
                qualified,
                partition_directory(relocation.spec),
                "compacted",
                compaction.input_files,
                written,
                rows,
            )
        )
    return actions
