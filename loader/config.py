"""The loader's settings: global only, never per topic. From flags, environment variables
(`LOADER_<NAME>`) or a TOML file (`--config`), in that order of precedence.

`LoaderSettings` is the one place a setting is declared: its type, its bounds (constraints pydantic checks:
`Ge(1)`), its default, its help text and the commands that take it (`loader.setting_fields.Setting`). The
command line's flags (their ranges included) and variables, the config file's keys and the manual's tables
(`python -m loader.config docs/loader.md`) follow from it. Three modules, three jobs: this one declares;
`loader.config_rules` holds the rules over values that types and bounds do not say, which the model's
validators apply whenever settings are made; `loader.config_environment` checks them against this machine
(`validate()`), once, before a command uses them.
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, Literal

from annotated_types import Ge, Interval
from pydantic import (
    InstanceOf,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic.dataclasses import dataclass as model

from loader import config_rules as rules
from loader.config_environment import checked_on_this_machine
from loader.formats.catalog_settings import CatalogInputs
from loader.formats.iceberg_catalogs import CatalogAccess, CatalogKind, IcebergCatalog
from loader.formats.maintenance import CompactionPolicy, MaintainRequest
from loader.formats.preflight import FORMAT_NAMES, PREFLIGHTS, Lake, Preflight
from loader.reading.kafka_security import KafkaSecurity
from loader.reading.security_settings import SecurityInputs
from loader.schema.partitioning import Granularity
from loader.setting_fields import (
    MAINTAIN,
    METRICS,
    RUN,
    Declared,
    Setting,
    config_keys,
    declared,
    manual_table,
    with_tables,
)
from pipeline_client.client_settings import RegistryClientSettings

OBJECT_STORE_SCHEMES = ("s3://", "s3a://", "s3n://", "gs://", "abfs://", "abfss://", "wasb://", "wasbs://")


@model(frozen=True)
class LoaderSettings:
    """Every setting of the loader, each declared once: a new setting is a field here (or, for Kafka's and
    the registry's security, in `loader.reading.security_settings.SecurityInputs`)."""

    bootstrap_servers: Annotated[str, Setting("Kafka's brokers, host:port,...")]
    registry_url: Annotated[str, Setting("The Confluent-compatible schema registry's URL.")]
    warehouse: Annotated[
        str,
        Setting(
            "Where the tables' files live: a directory, or hdfs:// or s3a:// with a metastore service "
            "(metastore-uri); the embedded metastore needs a local directory, which it lives in. Under an "
            "Iceberg REST catalog the catalog places the tables: the warehouse holds the embedded metastore "
            "and, unless state-dir says otherwise, the loader's state, on a local disk."
        ),
    ]
    metastore_uri: Annotated[
        str | None,
        Setting(
            "The Hive metastore, thrift://host:port.", shown_default="embedded Derby inside the warehouse"
        ),
    ] = None
    database: Annotated[str, Setting("The database of the tables.")] = "kafka"
    state_dir: Annotated[
        str | None,
        Setting(
            "The loader's offsets and commits. Hive tables: on the tables' file system, since files reach "
            "their tables by rename (a topic whose table is elsewhere fails, before anything is written, "
            "saying so). Iceberg tables commit themselves: under a REST catalog the state may be on the "
            'object store (s3://..., see "Iceberg catalogs and object stores").',
            shown_default="`<warehouse>/_loader_state/<database>`",
        ),
    ] = None
    include_topics: Annotated[
        str | None,
        Setting("A regular expression over whole topic names: load only those.", RUN, shown_default="all"),
    ] = None
    exclude_topics: Annotated[
        str | None, Setting("A regular expression over whole topic names: never load those.", RUN)
    ] = None
    partition_granularity: Annotated[
        Granularity, Setting("Time partitions dt=YYYY-MM-DD[/hour=HH] from the record timestamp, UTC.", RUN)
    ] = "hour"
    table_format: Annotated[
        str,
        Setting(
            "Hive ORC tables committed by the loader's manifest and file moves, or Apache Iceberg tables "
            'committed by Iceberg (see "Table formats").',
            choices=FORMAT_NAMES,  # the formats of `loader.formats.preflight`, checked against it
        ),
    ] = "hive"
    iceberg_catalog: Annotated[
        CatalogKind,
        Setting(
            "Iceberg's catalog: the metastore (hive), the warehouse alone without a catalog (hadoop), or an "
            'Iceberg REST catalog (rest, with the iceberg-rest-* settings; see "Iceberg catalogs and object '
            'stores").',
            label="the Iceberg catalog",
        ),
    ] = "hive"
    iceberg_format_version: Annotated[
        int,
        Setting(
            "The Iceberg format version of the tables the loader creates: 3 (columns' defaults for old rows, "
            'deletion vectors) or 2 (read by more engines; see "Iceberg format version 2 or 3"). A table '
            "keeps the version it was made with.",
            label="the Iceberg format version",
        ),
    ] = 3
    records_per_task: Annotated[
        int,
        Ge(1),
        Setting("How a topic's read is split into Spark tasks: none reads more than this many records.", RUN),
    ] = 500_000
    max_records_per_partition: Annotated[
        int,
        Ge(1),
        Setting(
            "A run reads at most this many offsets of each partition; the rest is the next run's (see "
            '"Many topics and big backlogs").',
            RUN,
        ),
    ] = 1_000_000
    until_caught_up: Annotated[
        bool,
        Setting(
            "Run again, each run its own commit, until the last run read every partition to its end.", RUN
        ),
    ] = False
    task_pool_size: Annotated[
        int,
        Ge(1),
        Setting(
            "A topic with at least 50,000 offsets to read per task gets up to this many tasks (a small topic "
            "is one task).",
            RUN,
        ),
    ] = 4
    topic_threads: Annotated[
        int,
        Ge(1),
        Setting(
            "Topics read, decoded and written at the same time, each in a Spark scheduler pool of its own "
            "(FAIR), so that small topics' jobs run beside a big topic's instead of queueing behind it.",
            RUN,
        ),
    ] = 8
    # Small topics share one query: see loader.run.topic_group_pass.
    small_topic_records: Annotated[
        int,
        Ge(0),
        Setting(
            "Topics with at most this many new offsets share one query and one write job, "
            'topics-per-query at a time (see "Many topics and big backlogs").',
            RUN,
        ),
    ] = 20_000
    topics_per_query: Annotated[
        int, Ge(1), Setting("How many small topics share one query (1: every topic its own).", RUN)
    ] = 16
    valid_through_step_s: Annotated[
        float,
        Ge(0),
        Setting(
            "Hive tables: a table's loader.valid-through property is rewritten once it is this many seconds "
            "behind the run's (each table between half of this and all of it, by its name, so that tables "
            "come due in different runs); it then lags the true value by less than this plus one run's "
            "interval, and is never ahead of it. Each rewrite is a metastore call per table; 0: every run. "
            'Iceberg records it in every snapshot (see "Valid through").',
            RUN,
        ),
    ] = 600.0
    max_bad_ratio: Annotated[
        float,
        Interval(ge=0, le=1),
        Setting(
            "The share of quarantined records above which a run exits 3 (the good records are loaded).", RUN
        ),
    ] = 0.0
    skip_tombstones: Annotated[
        bool,
        Setting(
            "Count the tombstones of topics that are not compacted (report, audit) instead of loading them "
            "as deletion rows.",
            RUN,
        ),
    ] = False
    current_state_topics: Annotated[
        str | None,
        Setting(
            "A regular expression over whole topic names: these get a current-state table too, besides "
            'compacted topics and Debezium change streams (see "Current-state tables").',
            RUN,
        ),
    ] = None
    no_current_state_topics: Annotated[
        str | None,
        Setting(
            "A regular expression over whole topic names: these never get a current-state table (it wins "
            "over `current-state-topics`).",
            RUN,
        ),
    ] = None
    current_state_history: Annotated[
        bool,
        Setting(
            "Keep the history (append) table of topics that have a current-state table; false: such a "
            "topic gets its current-state table only (its records without a key are then counted, not "
            'kept; see "Current-state tables").',
            RUN,
        ),
    ] = True
    accept_cluster: Annotated[
        str | None,
        Setting(
            "A Kafka cluster id the saved offsets may continue on although they were read from another "
            'cluster (see "Failover and recreated topics").',
            RUN,
            metavar="CLUSTER_ID",
        ),
    ] = None
    spark_master: Annotated[
        str | None, Setting("Where Spark runs.", shown_default="`local[2]` (spark-submit sets its own)")
    ] = None
    driver_jit: Annotated[
        Literal["quick", "full"],
        Setting(
            "The JIT of the driver JVM the loader starts: quick compiles with C1 alone "
            '(-XX:TieredStopAtLevel=1), full is the JVM\'s own tiered JIT (see "The JIT of a fresh JVM").',
            label="driver JIT",
        ),
    ] = "quick"
    driver_class_archive_dir: Annotated[
        str | None,
        Setting(
            "A local directory where the driver JVM's class archive is kept between runs: each run's JVM "
            "then maps Spark's classes instead of loading them from the jars, seconds sooner; the first run "
            "writes it (about 200 MB; 15 to 40 s more at its end); not with configuration files on the "
            "driver's class path (HADOOP_CONF_DIR); see \"The driver JVM's class archive\"."
        ),
    ] = None
    metadata_timeout_s: Annotated[
        float,
        Setting(
            "How long Kafka and the registry may take to answer a request, a topic's read included: each of "
            "Kafka's requests and calls, Spark's offset lookups (tried once) and a read task's wait for "
            "records time out after it, so a broker that goes away ends the run about this long after (at "
            "most about twice this long, when it goes between a read's two offset lookups; on a cluster, "
            "times Spark's task attempts, spark.task.maxFailures); the run ends with status 1 and moves no "
            'offset of what it could not read (see "When something fails").'
        ),
    ] = 30.0
    maintain_min_age_minutes: Annotated[
        float,
        Ge(0),
        Setting(
            "A partition is closed this long after its day or hour ended: late records are unlikely.",
            MAINTAIN,
        ),
    ] = 60.0
    maintain_min_files: Annotated[
        int,
        Ge(1),
        Setting("A closed partition is compacted when it has more than this many small files.", MAINTAIN),
    ] = 10
    maintain_small_file_mb: Annotated[
        int,
        Ge(1),
        Setting("A file under this size is small (big files are rewritten too, but not counted).", MAINTAIN),
    ] = 32
    maintain_target_file_mb: Annotated[
        int, Ge(1), Setting("The size of the files a compaction writes.", MAINTAIN)
    ] = 128
    maintain_grace_minutes: Annotated[
        float,
        Ge(0),
        Setting(
            "The files a compaction replaced stay this long after the switch, for queries planned before it; "
            "a maintain run removes them after that.",
            MAINTAIN,
        ),
    ] = 60.0
    maintain_snapshot_retention_minutes: Annotated[
        float,
        Ge(0),
        Setting(
            "Iceberg tables: snapshots older than this are expired (never the newest one, which carries the "
            "offsets).",
            MAINTAIN,
        ),
    ] = 1440.0
    metrics_file: Annotated[
        str | None,
        Setting(
            "A local file to write the run's or the audit's metrics to, in Prometheus' text format and "
            "atomically: a .prom file in node_exporter's textfile collector directory (see \"Monitoring the "
            'loader" in docs/operations.md).',
            METRICS,
        ),
    ] = None
    pushgateway_url: Annotated[
        str | None,
        Setting(
            "A Prometheus Pushgateway to push the metrics to (job loader, instance the database).", METRICS
        ),
    ] = None
    metrics_max_topics: Annotated[
        int,
        Ge(1),
        Setting(
            "At most this many topics get metric series of their own (the failed ones, then the furthest "
            'behind); the others are summed into topic="_other".',
            METRICS,
        ),
    ] = 100
    log_format: Annotated[
        Literal["text", "json"],
        Setting(
            "json: the loader's stderr is one JSON object per line and event, with the run's id (a failed "
            "topic is one line with its whole reason in either format).",
            label="the log format",
        ),
    ] = "text"
    audit_topic: Annotated[
        str | None,
        Setting(
            "A Kafka topic each committed run produces its per-topic, per-window counts to, as Avro "
            'registered in the registry and marked with the run\'s id (see "The audit as a stream" in '
            "docs/operations.md).",
            RUN,
        ),
    ] = None
    # How every Kafka client and the registry client authenticate and verify: made from the security
    # settings (`loader.reading.security_settings`), not settings of their own.
    kafka_security: InstanceOf[KafkaSecurity] = field(default_factory=KafkaSecurity)
    registry_access: InstanceOf[RegistryClientSettings] = field(default_factory=RegistryClientSettings)
    # How Iceberg's REST catalog and the tables' object store are reached: made from the catalog settings
    # (`loader.formats.catalog_settings`).
    catalog_access: InstanceOf[CatalogAccess] = field(default_factory=CatalogAccess)

    @field_validator("*", mode="wrap")
    @classmethod
    def _as_declared(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        """A value outside its declared choices or bounds refused in the words of the setting's flag."""
        try:
            return handler(value)
        except ValidationError as exc:
            kinds = {error["type"] for error in exc.errors()}
            setting = SETTINGS.get(info.field_name or "")
            if setting is None or not kinds & {"literal_error", "greater_than_equal", "less_than_equal"}:
                raise
            if "literal_error" in kinds:
                raise ValueError(
                    f"{setting.label} must be {' or '.join(map(repr, setting.choices))}, not {value!r}"
                ) from None
            limit = setting.lowest if "greater_than_equal" in kinds else setting.highest
            side = "at least" if "greater_than_equal" in kinds else "at most"
            raise ValueError(f"{setting.key} must be {side} {limit:g}, not {value!r}") from None

    @field_validator("table_format")
    @classmethod
    def _a_format(cls, value: str) -> str:
        """One of the formats `loader.formats.preflight` knows when the settings are made."""
        if value not in PREFLIGHTS:
            raise ValueError(f"table format must be {' or '.join(map(repr, PREFLIGHTS))}, not {value!r}")
        return value

    @field_validator("current_state_topics", "no_current_state_topics")
    @classmethod
    def _a_pattern(cls, value: str | None, info: ValidationInfo) -> str | None:
        return rules.a_pattern(value, info.field_name or "")

    @field_validator("metrics_file")
    @classmethod
    def _metrics_file(cls, value: str | None) -> str | None:
        return rules.a_local_file(value, "the metrics file")

    @field_validator("driver_class_archive_dir")
    @classmethod
    def _archive_dir(cls, value: str | None) -> str | None:
        return rules.an_archive_directory(value)

    @model_validator(mode="after")
    def _tables_and_store(self) -> LoaderSettings:
        rules.check_tables_and_store(self.preflight, self.lake)
        return self

    @property
    def iceberg(self) -> IcebergCatalog:
        """Where the Iceberg tables are kept (a Hive run's settings describe one too, never used)."""
        return IcebergCatalog(
            self.iceberg_catalog, self.warehouse, self.catalog_access, self.iceberg_format_version
        )

    @property
    def lake(self) -> Lake:
        """What the table format looks at before its session exists (`loader.formats.preflight`)."""
        return Lake(self.iceberg, self.catalog_access, self.warehouse, self.state_location)

    @property
    def preflight(self) -> Preflight:
        return PREFLIGHTS[self.table_format]

    @property
    def session_conf(self) -> dict[str, str]:
        """The Spark settings the table format's session needs (the Iceberg catalog's; none for Hive)."""
        return self.preflight.session_conf(self.lake)

    @property
    def session_jars(self) -> list[str]:
        return self.preflight.session_jars(self.lake)

    @property
    def state_files_on_object_store(self) -> bool:
        """Whether the state directory is written through Iceberg's S3FileIO (`loader.formats.lookup.
        open_state`): on S3, for a REST catalog's run, whose lock the catalog keeps."""
        return self.lake.state_on_object_store

    @property
    def state_location(self) -> str:
        return self.state_dir or f"{self.warehouse.rstrip('/')}/_loader_state/{self.database}"

    def validate(self) -> LoaderSettings:
        """The settings checked against this machine, their local paths made absolute
        (`loader.config_environment`); the values alone were checked when the settings were made."""
        return checked_on_this_machine(self)

    def maintain_request(self, run_id: str, now: datetime) -> MaintainRequest:
        """What `loader maintain` asks of the format's maintenance, from the maintain settings."""
        compaction = CompactionPolicy(
            min_files=self.maintain_min_files,
            small_file_bytes=self.maintain_small_file_mb * 1024 * 1024,
            target_file_bytes=self.maintain_target_file_mb * 1024 * 1024,
            min_age=timedelta(minutes=self.maintain_min_age_minutes),
        ).validate()
        return MaintainRequest(
            run_id,
            self.database,
            now,
            compaction,
            grace=timedelta(minutes=self.maintain_grace_minutes),
            snapshot_retention=timedelta(minutes=self.maintain_snapshot_retention_minutes),
            catalog_name=self.iceberg_catalog,
        )


# Every setting a user gives: the loader's own, then the security settings that become `kafka_security`
# and `registry_access`, then the catalog settings that become `catalog_access`.
DECLARED: list[Declared] = declared(LoaderSettings, SecurityInputs, CatalogInputs)
SETTINGS = {setting.name: setting for setting in DECLARED}
REQUIRED = [setting.name for setting in DECLARED if setting.required]


def problem(exc: ValueError) -> str:
    """What is wrong with settings, as a usage error says it: each validator's own message."""
    if not isinstance(exc, ValidationError):
        return str(exc)
    messages = []
    for error in exc.errors():
        if error["type"] == "value_error":
            messages.append(str(error["ctx"]["error"]))
        else:
            where = ".".join(str(part).replace("_", "-") for part in error["loc"])
            messages.append(f"{where}: {error['msg']}" if where else error["msg"])
    return "; ".join(dict.fromkeys(messages))


def read_config_file(path: Path) -> dict[str, Any]:
    """The `[loader]` table of a TOML file (or its top level), with dashes in keys read as underscores."""
    data = tomllib.loads(path.read_text())
    section = data.get("loader", data)
    values = {key.replace("-", "_"): value for key, value in section.items()}
    unknown = sorted(set(values) - config_keys(DECLARED))
    if unknown:
        raise ValueError(f"{path}: unknown setting(s) {', '.join(unknown)}")
    return values


def manual_tables() -> dict[str, str]:
    """The tables of docs/loader.md that list settings, by the name their marker gives."""
    security, catalog = declared(SecurityInputs), declared(CatalogInputs)
    return {
        "loader": manual_table(setting for setting in DECLARED if setting not in security + catalog),
        "security": manual_table(security),
        "catalog": manual_table(catalog),
        "maintain": manual_table(setting for setting in DECLARED if setting.setting.commands == MAINTAIN),
    }


def with_manual_tables(text: str) -> str:
    """`text` (docs/loader.md) with its settings tables as the declarations make them."""
    return with_tables(text, manual_tables())


if __name__ == "__main__":  # python -m loader.config docs/loader.md: writes the manual's settings tables
    for name in sys.argv[1:]:
        manual = Path(name)
        manual.write_text(with_manual_tables(manual.read_text()))
