"""Maintenance of the loader's Iceberg tables, through Iceberg's own procedures: each is one Iceberg
commit (or none), so readers see the table before or after it, never a mix.

- `rewrite_data_files` compacts the small files of closed time partitions only (a `where` on the
  partition's timestamp column below `closed_before`), so a partition still being written is left alone;
  a current-state table (`loader.formats.iceberg_current`, not partitioned by time) has its small files
  compacted and every data file with a deletion vector or delete file rewritten without its deleted
  rows, so the delete files go (`delete-file-threshold` 1);
- `expire_snapshots` drops snapshots older than `maintain-snapshot-retention-minutes`, and with them the
  files only they reference (the small files a compaction replaced), but never the newest snapshot that
  carries the loader's offsets in its summary, nor any snapshot after it: the table format walks back from
  the current snapshot to that one to learn which offsets the table holds;
- orphan files (written by a run that was killed before its commit) older than `maintain-grace-minutes`
  are removed with Iceberg's DeleteOrphanFiles action (the procedure refuses an interval under a day; the
  run lock keeps every loader write away meanwhile, which is what that refusal guards against).

Which tables: those Iceberg's own catalog behind the session catalog lists in the database's namespace
(`Catalog.listTables`), whatever its kind: the metastore's Iceberg tables (`hive`), the table
directories under `<warehouse>/<database>` (`hadoop`, where the metastore holds none) or a REST
catalog's tables (on an object store). The run lock's table of a REST catalog is not one of them.

Orphan files are always found by listing the table's location through the table's own FileIO (the
action's prefix listing, `usePrefixListing`), not through Hadoop's FileSystem: a REST catalog's tables
are written by Iceberg's S3FileIO to `s3://` locations, a scheme no Hadoop file system of the session
serves, and the same listing is right for the others (HadoopFileIO lists a local or HDFS location, with
each file's modification time for the grace, and the action skips hidden paths other than partition
directories whichever listing it uses). One path for every catalog, so each is tested the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from py4j.protocol import Py4JJavaError
from pyspark.sql import SparkSession

from loader.formats.catalog_lock import LOCK_TABLE
from loader.formats.iceberg import newest_loader_snapshot
from loader.formats.iceberg_namespace import namespace_of, session_iceberg_catalog
from loader.formats.maintenance import (
    Maintained,
    MaintainRequest,
    PartitionAction,
    TablesNotListed,
    closed_before,
)
from loader.planning.state_store import StateFiles
from loader.runtime.spark_errors import first_line
from loader.schema.current_state import CURRENT_STATE_PROPERTY

CATALOG = "spark_catalog"  # the session catalog, which Iceberg's SparkSessionCatalog serves


class NotTimePartitioned(ValueError):
    """An Iceberg table in the database that the loader did not make: it is left alone."""


@dataclass(frozen=True)
class IcebergMaintenance:
    table: str
    closed_before: datetime
    rewritten_files: int
    added_files: int
    expired_snapshots: int
    deleted_files: int
    orphan_files: int


def maintain_iceberg_tables(spark: SparkSession, _: StateFiles, request: MaintainRequest) -> Maintained:
    """Each Iceberg table of the database maintained by Iceberg's procedures (its records are in its
    snapshots, not in the state directory); one table's failure is its action, the others go on."""
    names = iceberg_tables(spark, request.database)
    kind = f"Iceberg table in the {request.catalog_name} catalog"
    return Maintained(len(names), kind, [_maintained(spark, request, name) for name in names])


def _maintained(spark: SparkSession, request: MaintainRequest, table: str) -> PartitionAction:
    qualified = f"{request.database}.{table}"
    try:
        done = maintain_table(spark, request, table)
    except NotTimePartitioned as exc:
        return PartitionAction(qualified, "", "skipped", detail=str(exc))
    except Exception as exc:  # Iceberg commits all or nothing: the table is as it was
        return PartitionAction(qualified, "", "failed", detail=first_line(exc, 300) or type(exc).__name__)
    return PartitionAction(
        qualified,
        f"before {done.closed_before:%Y-%m-%d %H:%M} UTC",
        "compacted" if done.rewritten_files else "nothing to compact",
        done.rewritten_files,
        done.added_files,
        detail=(
            f"{done.expired_snapshots} snapshot(s) expired, {done.deleted_files} replaced file(s) deleted, "
            f"{done.orphan_files} orphan file(s) removed"
        ),
    )


def iceberg_tables(spark: SparkSession, database: str) -> list[str]:
    """The Iceberg tables of the database, as Iceberg's catalog behind the session catalog lists them
    (none when the catalog has no such namespace: a Hadoop catalog has none before its first table);
    raises `TablesNotListed` when the catalog does not answer."""
    try:
        listed = session_iceberg_catalog(spark).listTables(namespace_of(spark, database))
    except Py4JJavaError as exc:
        if str(exc.java_exception.getClass().getSimpleName()) == "NoSuchNamespaceException":
            return []
        raise TablesNotListed(
            f"Iceberg's catalog did not list the tables of database {database}: {first_line(exc, 400)}"
        ) from exc
    names = {str(identifier.name()) for identifier in _iterate(listed)}
    return sorted(names - {LOCK_TABLE})


def maintain_table(spark: SparkSession, request: MaintainRequest, table: str) -> IcebergMaintenance:
    qualified, now = f"{request.database}.{table}", request.now
    jvm = spark._jvm
    catalog = session_iceberg_catalog(spark)
    iceberg_table = catalog.loadTable(jvm.org.apache.iceberg.catalog.TableIdentifier.parse(qualified))
    policy = request.compaction
    options = {
        "min-input-files": str(policy.min_files + 1),  # more than min-files small files in a partition
        "min-file-size-bytes": str(min(policy.small_file_bytes, policy.target_file_bytes - 1)),
        "target-file-size-bytes": str(policy.target_file_bytes),
    }
    if is_current_state(iceberg_table):
        bound = now
        options["delete-file-threshold"] = "1"  # a data file with any deleted row is rewritten
        where = ""
    else:
        column, hourly = _time_partition(iceberg_table)
        bound = closed_before(now, policy.min_age, hourly)
        where = f"where => \"`{column}` < TIMESTAMP '{_sql_time(bound)}'\", "
    rewritten = spark.sql(
        f"CALL {CATALOG}.system.rewrite_data_files(table => '{qualified}', "
        f"{where}options => map({_map(options)}))"
    ).first()
    older_than = now - request.snapshot_retention
    offsets_at = newest_offsets_snapshot_time(spark, iceberg_table)
    if offsets_at is not None:
        older_than = min(older_than, offsets_at)
    expired = spark.sql(
        f"CALL {CATALOG}.system.expire_snapshots(table => '{qualified}', "
        f"older_than => TIMESTAMP '{_sql_time(older_than)}', retain_last => 1)"
    ).first()
    iceberg_table.refresh()
    orphans = (
        jvm.org.apache.iceberg.spark.actions.SparkActions.get(spark._jsparkSession)
        .deleteOrphanFiles(iceberg_table)
        .usePrefixListing(True)  # through the table's FileIO: s3:// has no Hadoop file system here
        .olderThan(int((now - request.grace).timestamp() * 1000))
        .execute()
    )
    return IcebergMaintenance(
        qualified,
        bound,
        int(rewritten["rewritten_data_files_count"] or 0),
        int(rewritten["added_data_files_count"] or 0),
        int(expired["deleted_manifest_lists_count"] or 0),  # one manifest list per expired snapshot
        int(expired["deleted_data_files_count"] or 0),
        sum(1 for _ in _iterate(orphans.orphanFileLocations())),
    )


def newest_offsets_snapshot_time(spark: SparkSession, iceberg_table) -> datetime | None:  # type: ignore[no-untyped-def]
    """When the newest snapshot carrying the loader's offsets was committed (compactions carry none);
    None when no snapshot carries them."""
    snapshot = newest_loader_snapshot(spark, iceberg_table)
    return None if snapshot is None else datetime.fromtimestamp(snapshot.timestamp_millis / 1000, UTC)


def is_current_state(iceberg_table) -> bool:  # type: ignore[no-untyped-def]
    return str(iceberg_table.properties().get(CURRENT_STATE_PROPERTY)) == "true"


def _time_partition(iceberg_table) -> tuple[str, bool]:  # type: ignore[no-untyped-def]
    """The column the table is partitioned by and whether by hour (else by day)."""
    fields = iceberg_table.spec().fields()
    for i in range(fields.size()):
        field = fields.get(i)
        transform = str(field.transform().toString())
        if transform in ("hour", "day"):
            return str(iceberg_table.schema().findColumnName(field.sourceId())), transform == "hour"
    raise NotTimePartitioned(
        "not partitioned by the day or hour of a timestamp, so not a table of the loader's; left alone"
    )


def _iterate(iterable):  # type: ignore[no-untyped-def]
    iterator = iterable.iterator()
    while iterator.hasNext():
        yield iterator.next()


def _sql_time(moment: datetime) -> str:
    """A timestamp literal in UTC (the session's time zone), to the millisecond."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _map(values: dict[str, str]) -> str:
    return ", ".join(f"'{k}', '{v}'" for k, v in values.items())
