"""The loader's settings: global only, never per topic. From flags, environment variables
(`LOADER_<NAME>`) or a TOML file (`--config`), in that order of precedence."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from loader.operations.compaction_plan import CompactionPolicy
from loader.reading.kafka_security import KafkaSecurity
from loader.reading.security_settings import CONFIG_KEYS as SECURITY_KEYS
from loader.runtime.spark_session import DRIVER_JIT, ICEBERG_CATALOGS, installed_spark_version
from loader.runtime.spark_versions import iceberg_refusal
from loader.schema.partitioning import Granularity
from pipeline_client.client_settings import RegistryClientSettings

LOG_FORMATS = ("text", "json")


@dataclass(frozen=True)
class LoaderSettings:
    bootstrap_servers: str
    registry_url: str
    warehouse: str
    metastore_uri: str | None = None
    database: str = "kafka"
    state_dir: str | None = None  # default: <warehouse>/_loader_state/<database>
    include_topics: str | None = None  # regular expressions over whole topic names
    exclude_topics: str | None = None
    partition_granularity: Granularity = "hour"
    # How tables are stored and committed (see docs/loader.md, "Table formats"): Hive ORC tables committed
    # by the loader's manifest and file moves, or Apache Iceberg tables committed by Iceberg.
    table_format: Literal["hive", "iceberg"] = "hive"
    iceberg_catalog: Literal["hive", "hadoop"] = "hive"  # Iceberg's catalog: the metastore, or none
    records_per_task: int = 500_000
    # A run reads at most this many offsets of each partition (a first run over days of backlog commits in
    # steps of minutes; `until_caught_up` runs again until nothing is left).
    max_records_per_partition: int = 1_000_000
    until_caught_up: bool = False
    task_pool_size: int = 4
    topic_threads: int = 8  # topics decoded and written at the same time (Spark runs their jobs side by side)
    # Topics with at most this many new offsets share one query and write job, `topics_per_query` at a
    # time (1: every topic its own); see loader.topic_group_pass.
    small_topic_records: int = 20_000
    topics_per_query: int = 16
    max_bad_ratio: float = 0.0  # above this share of quarantined records, a topic fails the run
    skip_tombstones: bool = False  # tombstones of topics that are not compacted are counted, not loaded
    accept_cluster: str | None = None  # a Kafka cluster id the saved offsets may continue on
    spark_master: str | None = None
    # The JIT of the driver JVM the loader starts (see docs/loader.md, "The JIT of a fresh JVM"): quick
    # compiles with C1 alone, which a run over many small topics gains by; full is the JVM's default.
    driver_jit: Literal["quick", "full"] = "quick"
    # A local directory where the driver JVM's class archive is kept between runs, so that each run's JVM
    # maps its classes instead of loading them from the jars (see loader.runtime.driver_class_archive).
    # None: off.
    driver_class_archive_dir: str | None = None
    # How long Kafka and the registry may take to answer a question, a topic's read included (see
    # loader.reading.topic_read.read_timeouts): a broker that goes away ends the run about this long after.
    metadata_timeout_s: float = 30.0
    # `loader maintain` (see `loader.operations`): a closed partition (its time span ended at least
    # `maintain_min_age_minutes` ago) of more than `maintain_min_files` files under
    # `maintain_small_file_mb` is rewritten into files of about `maintain_target_file_mb`; the files it
    # replaced are removed by a run at least `maintain_grace_minutes` after the switch.
    maintain_min_age_minutes: float = 60.0
    maintain_min_files: int = 10
    maintain_small_file_mb: int = 32
    maintain_target_file_mb: int = 128
    maintain_grace_minutes: float = 60.0
    # Iceberg tables: snapshots older than this are expired (never the newest one carrying the offsets).
    maintain_snapshot_retention_minutes: float = 1440.0
    # What a run tells a monitoring system (see docs/operations.md, "Monitoring the loader"): its metrics
    # in Prometheus' text format, as a file for node_exporter's textfile collector and/or pushed to a
    # Pushgateway; at most `metrics_max_topics` topics have series of their own (the rest are summed).
    metrics_file: str | None = None
    pushgateway_url: str | None = None
    metrics_max_topics: int = 100
    log_format: Literal["text", "json"] = "text"  # json: one JSON object per line and event
    # A Kafka topic each committed run produces its per-topic, per-window counts to, as Avro registered
    # in the registry (see `loader.observability.audit_stream`). None: off.
    audit_topic: str | None = None
    # How every Kafka client and the registry client authenticate and verify
    # (see loader.reading.security_settings).
    kafka_security: KafkaSecurity = field(default_factory=KafkaSecurity)
    registry_access: RegistryClientSettings = field(default_factory=RegistryClientSettings)

    @property
    def state_location(self) -> str:
        return self.state_dir or f"{self.warehouse.rstrip('/')}/_loader_state/{self.database}"

    def validate(self) -> LoaderSettings:
        if self.partition_granularity not in ("day", "hour"):
            raise ValueError(
                f"partition granularity must be 'day' or 'hour', not {self.partition_granularity!r}"
            )
        if self.table_format not in ("hive", "iceberg"):
            raise ValueError(f"table format must be 'hive' or 'iceberg', not {self.table_format!r}")
        if self.driver_jit not in DRIVER_JIT:
            raise ValueError(f"driver JIT must be 'quick' or 'full', not {self.driver_jit!r}")
        if self.iceberg_catalog not in ICEBERG_CATALOGS:
            raise ValueError(f"the Iceberg catalog must be 'hive' or 'hadoop', not {self.iceberg_catalog!r}")
        if self.table_format == "iceberg" and (refusal := iceberg_refusal(installed_spark_version())):
            raise ValueError(refusal)
        counts = (
            self.records_per_task,
            self.task_pool_size,
            self.topic_threads,
            self.max_records_per_partition,
            self.topics_per_query,
        )
        if min(counts) < 1:
            raise ValueError(
                "records per task, the task pool size, topic threads, the records per partition and run "
                "and the topics per query must be at least 1"
            )
        if self.metrics_max_topics < 1:
            raise ValueError("metrics-max-topics must be at least 1")
        if self.log_format not in LOG_FORMATS:
            raise ValueError(f"the log format must be 'text' or 'json', not {self.log_format!r}")
        if self.metrics_file and is_uri(self.metrics_file):
            raise ValueError(f"the metrics file must be a local path, not {self.metrics_file!r}")
        if self.small_topic_records < 0:
            raise ValueError("small-topic-records must not be negative")
        if not 0 <= self.max_bad_ratio <= 1:
            raise ValueError("the bad-record ratio must be between 0 and 1")
        self.compaction_policy()  # raises for maintenance settings out of range
        if self.maintain_grace_minutes < 0 or self.maintain_snapshot_retention_minutes < 0:
            raise ValueError(
                "maintain-grace-minutes and maintain-snapshot-retention-minutes must not be negative"
            )
        self.kafka_security.validate()
        self.registry_access.session(self.registry_url, self.kafka_security.sasl_login)  # checks its files
        # Local paths are made absolute against the directory the loader was started from: Spark's JVM
        # runs elsewhere (see `loader.runtime.spark_session`) and would read a relative path against its own.
        state_dir = absolute_if_local(self.state_dir) if self.state_dir else None
        archive_dir = self.driver_class_archive_dir
        if archive_dir and is_uri(archive_dir):
            raise ValueError(f"the driver class archive directory must be a local path, not {archive_dir!r}")
        if archive_dir and os.pathsep in archive_dir:
            # The JVM reads `-XX:SharedArchiveFile` as a list of archives separated by it.
            raise ValueError(
                f"the driver class archive directory must not contain {os.pathsep!r}: {archive_dir!r}"
            )
        return replace(
            self,
            warehouse=absolute_if_local(self.warehouse),
            state_dir=state_dir,
            driver_class_archive_dir=str(Path(archive_dir).absolute()) if archive_dir else None,
            metrics_file=str(Path(self.metrics_file).absolute()) if self.metrics_file else None,
        )

    def compaction_policy(self) -> CompactionPolicy:
        return CompactionPolicy(
            min_files=self.maintain_min_files,
            small_file_bytes=self.maintain_small_file_mb * 1024 * 1024,
            target_file_bytes=self.maintain_target_file_mb * 1024 * 1024,
            min_age=timedelta(minutes=self.maintain_min_age_minutes),
        ).validate()

    @property
    def maintain_grace(self) -> timedelta:
        return timedelta(minutes=self.maintain_grace_minutes)


def is_uri(location: str) -> bool:
    return "://" in location or location.startswith("file:")


def absolute_if_local(location: str) -> str:
    """A local path made absolute; a URI (`hdfs://`, `s3a://`, `file:`) left as it is."""
    return location if is_uri(location) else str(Path(location).absolute())


def read_config_file(path: Path) -> dict[str, Any]:
    """The `[loader]` table of a TOML file (or its top level), with dashes in keys read as underscores."""
    data = tomllib.loads(path.read_text())
    section = data.get("loader", data)
    known = {f.name for f in fields(LoaderSettings)} - {"kafka_security", "registry_access"}
    known |= set(SECURITY_KEYS)
    values = {key.replace("-", "_"): value for key, value in section.items()}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"{path}: unknown setting(s) {', '.join(unknown)}")
    return values
