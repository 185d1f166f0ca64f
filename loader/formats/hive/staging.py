"""Writing a run's rows to its staging directory, and what the commit must do with them.

The commit (`loader.planning.commit_protocol`) moves each staged file to its table and registers the
partitions the manifest lists. Only partitions that are new are listed: a partition directory that exists
in the table already was registered by the commit that created it (a run first completes every committed
manifest, so none is left half applied), and registering it again is a metastore round trip per table and
run, the biggest cost of a run over many quiet-ish topics."""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from loader.formats.hive.many_tables import write_table, writer_available
from loader.planning.commit_protocol import StagedTable, final_file_name, partition_spec, relative_to
from loader.planning.state_store import StateFiles
from loader.schema.partitioning import Granularity, partition_columns, partition_values


def stage_rows(
    store: StateFiles,
    directory: str,
    table: str,
    location: str,
    rows: DataFrame,
    granularity: Granularity,
    run_id: str,
    timestamp_column: str = "_kafka_timestamp",
    moved_partitions: Callable[[list[str]], dict[str, str]] = lambda directories: {},
) -> StagedTable:
    """Writes the rows as ORC files under `directory`, partitioned like the table; names each file's
    final place in the table and the partitions the table does not have yet.

    `moved_partitions` says which of the partition directories written have their partition elsewhere
    (see `TableCatalog.moved_partitions`): files of those go to the partition's location."""
    require_one_file_system(store, directory, location, table)
    spark = rows.sparkSession
    if writer_available(spark):  # the loader's writer: no sort of the rows first
        files = write_table(spark, rows, directory, granularity, timestamp_column)
    else:
        partitioned = rows.withColumns(partition_values(F.col(timestamp_column), granularity))
        # The directory is the run's own: a run's staging is deleted before the next one starts.
        partitioned.write.format("orc").partitionBy(*partition_columns(granularity)).mode(
            "errorifexists"
        ).save(directory)
        files = store.list_files(directory)
    return staged_files(store, directory, table, location, files, run_id, moved_partitions)


def require_one_file_system(store: StateFiles, directory: str, location: str, table: str) -> None:
    """Checked before anything is written: after the commit point a move that cannot happen would stop
    every later run at recovery."""
    staging_fs, table_fs = store.file_system(directory), store.file_system(location)
    if staging_fs != table_fs:
        raise ValueError(
            f"table {table} is on {table_fs} but the loader's state directory is on {staging_fs}; files "
            "reach their tables by rename, which needs one file system: set --state-dir on the table's"
        )


def staged_files(
    store: StateFiles,
    directory: str,
    table: str,
    location: str,
    files: list[str],
    run_id: str,
    moved_partitions: Callable[[list[str]], dict[str, str]] = lambda directories: {},
) -> StagedTable:
    """The staged table of `files` written under `directory`: each file's final place in the table, and
    the partitions the table does not have yet."""
    directories = sorted({posixpath.dirname(relative_to(f, directory)) for f in files})
    moved = moved_partitions(directories) if directories else {}
    moves = []
    for f in files:
        relative = relative_to(f, directory)
        partition_dir = moved.get(posixpath.dirname(relative))
        if partition_dir is None:
            moves.append((f, final_file_name(f, directory, location, run_id)))
        else:
            moves.append((f, posixpath.join(partition_dir, f"{run_id}-{posixpath.basename(relative)}")))
    new = [
        d for d in directories if d not in moved and not store.exists(posixpath.join(location.rstrip("/"), d))
    ]
    return StagedTable(table, moves, [partition_spec(d) for d in new])
