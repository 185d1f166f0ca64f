"""Builds the SparkSession the loader (and the tests) run on.

Embedded defaults need nothing but a directory: local Spark, and a Derby metastore kept inside the
warehouse (`<warehouse>/_loader_metastore/`), so that one warehouse is one self-contained lake and two
warehouses side by side never share a metastore. A cluster passes its own master, metastore URI and
warehouse (HDFS/S3) instead, by configuration only. The Kafka source and Avro functions come either from
spark-submit (`--packages`, `--jars`) or, locally, from the jar cache that `scripts/fetch-jars` fills; so
does Iceberg's Spark runtime, which only a session for Iceberg tables loads (see `iceberg_conf`).

The driver JVM started here runs in a private temporary directory: Spark 4.0 creates `artifacts/` in its
working directory (SPARK-52396), and a loader run from cron must not write into whatever directory it was
started from.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from py4j.java_gateway import JavaClass
from pyspark import SparkContext
from pyspark.sql import SparkSession

from loader.runtime import spark_internals as internals
from loader.runtime.driver_class_archive import (
    CLASSPATH_ENV,
    ClassArchive,
    archive_key,
    archive_refused_by,
    class_path_directories,
    java_installation,
    keep_at_exit,
    say_refused,
    spark_home,
    spark_installation,
    usable_archive,
)
from loader.runtime.driver_class_path import driver_class_path
from loader.runtime.driver_scratch import make_scratch_directory
from loader.runtime.java_values import java_class

REPO_ROOT = Path(__file__).resolve().parents[2]
# The embedded Derby metastore's directory inside a local warehouse (Derby's `metastore_db` and
# `derby.log` go there).
EMBEDDED_METASTORE_DIR = "_loader_metastore"
# The loader hands Kafka credentials to Spark's Kafka source as read options, never as Spark settings, so
# they do not reach the UI's environment page or the event log. Settings a user adds might: Spark hides a
# setting there when its key or value matches `spark.redaction.regex` (by default secret|password|token,
# which a JAAS line's `password=` already matches), extended here to JAAS lines and PEM private keys; the
# same for data source options shown in query plans (`spark.sql.redaction.options.regex`, by default url).
REDACTION = {
    "spark.redaction.regex": r"(?i)secret|password|token|access[.]?key|jaas|private key",
    "spark.sql.redaction.options.regex": r"(?i)url|secret|password|token|jaas|keystore\.key|private key",
}

# Spark's Kafka source keeps, per consumer group and topic partition, the consumer a task used and the
# last batch it polled (up to `max.poll.records`), for five minutes by default: a streaming query's next
# micro-batch then goes on where the last one stopped. The loader's reads are batch queries, each with a
# consumer group of its own, so nothing in those pools is ever taken again, and every topic partition
# read in the last five minutes kept its last batch on the heap (a local driver's; each executor's on a
# cluster): after a run of 200 topics x 499 records, all 99,800 records (benchmarks/JOURNAL.md, "Kafka's
# pools emptied"). Idle for a second, a batch or a consumer goes: a task that reads the next offsets of a
# partition a task of the same query has just read still finds them.
KAFKA_SOURCE_POOLS = {
    "spark.kafka.consumer.fetchedData.cache.timeout": "1s",
    "spark.kafka.consumer.fetchedData.cache.evictorThreadRunInterval": "1s",
    "spark.kafka.consumer.cache.timeout": "1s",
    "spark.kafka.consumer.cache.evictorThreadRunInterval": "1s",
}


@dataclass(frozen=True)
class SparkSettings:
    """Where Spark runs and where its tables live."""

    warehouse_dir: str
    metastore_uri: str | None = None
    master: str | None = None
    app_name: str = "kafka-table-loader"
    jars_dir: Path | None = None
    extra_conf: Mapping[str, str] = field(default_factory=dict)
    # Jars besides the connectors (Iceberg's runtime for a session that writes Iceberg tables).
    extra_jars: tuple[str, ...] = ()
    # Options of the driver JVM, when this process starts it (not under spark-submit, whose driver is up).
    driver_java_options: tuple[str, ...] = ()
    # Where the driver JVM's class archive is kept between runs (see loader.runtime.driver_class_archive);
    # None: no archive, every JVM loads its classes from the jars.
    class_archive_dir: Path | None = None


def _jars_base(jars_dir: Path | None) -> Path:
    return jars_dir or Path(os.environ.get("PIPELINE_JARS_DIR", REPO_ROOT / ".cache" / "jars"))


def connector_jars(jars_dir: Path | None = None) -> list[str]:
    """The Spark Kafka/Avro connector jars matching this pyspark, and the loader's own writer (see
    `loader.formats.hive.many_tables`), from the local cache where they are there."""
    import pyspark

    jars = []
    for name in (f"spark-{pyspark.__version__}", f"loader-{pyspark.__version__}"):
        directory = _jars_base(jars_dir) / name
        if (directory / ".complete").exists():
            jars += sorted(str(jar) for jar in directory.glob("*.jar"))
    return jars


def installed_spark_version() -> str:
    """The version of the pyspark this process runs (the Spark line it adapts to:
    `loader.runtime.spark_versions`)."""
    import pyspark

    return str(pyspark.__version__)


def object_store_jars(jars_dir: Path | None = None) -> list[str]:
    """Iceberg's AWS bundle (S3FileIO's SDK) among `iceberg_jars`, when it was fetched."""
    return [jar for jar in iceberg_jars(jars_dir) if "/iceberg-aws-" in jar]


def iceberg_jars(jars_dir: Path | None = None) -> list[str]:
    """Iceberg's Spark runtime for this pyspark's minor version, from the local cache if it is there (the
    newest fetched Iceberg version when several are), and beside it Iceberg's AWS bundle of the same
    version (the SDK of S3FileIO, for tables on an object store) where that is fetched too."""
    import pyspark

    minor = ".".join(pyspark.__version__.split(".")[:2])
    complete = sorted(_jars_base(jars_dir).glob(f"iceberg-*-spark-{minor}/.complete"))
    if not complete:
        return []
    runtime = complete[-1].parent
    version = runtime.name.removeprefix("iceberg-").removesuffix(f"-spark-{minor}")
    directories = [runtime]
    aws = _jars_base(jars_dir) / f"iceberg-aws-{version}"
    if (aws / ".complete").exists():
        directories.append(aws)
    return sorted(str(jar.resolve()) for directory in directories for jar in directory.glob("*.jar"))


# The loader's JVM module (jvm/tableloader, built by scripts/build-loader-jar), a jar named by its hash.
LOADER_JAR = "tableloader-"
LOADER_PACKAGE = "tableloader"
# Hadoop's local file system with permissions set through Java, not a `chmod` process per file and
# directory (see jvm/tableloader): for `file:` paths of a local Spark, whose warehouse is on local disk.
LOCAL_FILE_SYSTEM = f"{LOADER_PACKAGE}.LocalFileSystemWithJavaPermissions"
DRIVER_CLASS_PATH = "spark.driver.extraClassPath"
LOOPBACK = "127.0.0.1"
HIVE_RESOURCES_DIR = "spark.hadoop.hive.downloaded.resources.dir"
# The data sources Spark reads through their V1 relations; Spark's default names Kafka among them.
V1_SOURCES = "spark.sql.sources.useV1SourceList"
LOCAL_IP_ENV = "SPARK_LOCAL_IP"  # the address Spark's web UI binds to (every interface without it)

# The driver JVM's JIT: `quick` stops at C1, the JVM's quick compiler (`-XX:TieredStopAtLevel=1`);
# `full` leaves the JVM's own tiered compilation. See `driver_java_options`. With C1 alone the JVM would
# keep 48 MB for compiled code instead of the tiered JIT's 240 MB; Spark's code fills 48 MB within a
# short run, and the JVM then stops compiling, or fails where it must (a method handle's intrinsic). The
# space is reserved, not used: what is compiled is what takes memory.
DRIVER_JIT = {"quick": ("-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m"), "full": ()}


def local_path(uri: str) -> Path | None:
    """The local file or directory behind a `file:` URI or a plain path; None on a remote file system
    (HDFS, an object store)."""
    if uri.startswith("file:"):
        return Path("/" + uri.removeprefix("file:").lstrip("/"))
    if "://" not in uri:
        return Path(uri)
    return None


# The embedded metastore (which runs in the driver, on a local warehouse) makes a new database's or
# table's directory and then, as Hive 2.3 does by default, copies its parent's group and permissions onto
# it through Hadoop's shell commands (`chgrp`, `chmod`): each reads the directory's owner and mode by
# starting an `ls -ld` process, three per table, about a third of a table's creation on a local disk
# (benchmarks/JOURNAL.md, "Table directories without Hive's permission copy"). Hive 3 dropped that copy;
# the directory gets the process's umask, as the loader's own partition directories and files always
# have, and whoever cannot enter the database's directory still cannot reach the table's. A metastore
# service keeps its own setting: it makes the directories there, not here.
EMBEDDED_METASTORE_CONF = {"spark.hadoop.hive.warehouse.subdir.inherit.perms": "false"}


@dataclass(frozen=True)
class EmbeddedMetastore:
    """Where the embedded Derby metastore of a local warehouse lives."""

    home: Path  # Derby's system home: `metastore_db/` and `derby.log`
    legacy: bool = False  # the layout of older versions, beside the warehouse

    @property
    def database(self) -> Path:
        return self.home / "metastore_db"


def embedded_metastore(warehouse: Path) -> EmbeddedMetastore:
    """The metastore of a local warehouse: inside it, except for a lake made by an older version.

    Older versions kept `metastore_db` in the warehouse's parent directory, shared by every warehouse
    there. Such a lake (it has a database directory, `<name>.db`, which only a metastore makes, and no
    metastore of its own) keeps using it until it is moved; see docs/loader.md. A new warehouse never
    uses a metastore found beside it.
    """
    warehouse = warehouse.absolute()
    own = EmbeddedMetastore(warehouse / EMBEDDED_METASTORE_DIR)
    old = EmbeddedMetastore(warehouse.parent, legacy=True)
    made_by_a_metastore = any(path.is_dir() for path in warehouse.glob("*.db"))
    if not own.database.exists() and old.database.exists() and made_by_a_metastore:
        return old
    return own


def legacy_metastore_notice(warehouse: str) -> str | None:
    """What to tell the owner of a lake whose embedded metastore still sits beside it (or None)."""
    local = local_path(warehouse)
    if local is None or not (chosen := embedded_metastore(local)).legacy:
        return None
    own = local.absolute() / EMBEDDED_METASTORE_DIR
    return (
        f"this warehouse's metastore is {chosen.database}, beside the warehouse, where older versions kept "
        f"it and where every warehouse in {chosen.home} shares it. When no other warehouse there uses it, "
        f"move it in: mkdir -p {own} && mv {chosen.database} {own}/"
    )


@contextmanager
def _working_directory(directory: Path) -> Iterator[None]:
    """Runs the block (which may launch the driver JVM) from `directory`, so the JVM inherits that as its
    working directory; Python's own working directory is restored at once."""
    previous = os.getcwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(previous)


@contextmanager
def _python_temporary_files_in(directory: Path) -> Iterator[None]:
    """Runs the block (which may launch the driver JVM) with Python's `tempfile` making its files in
    `directory`. PySpark waits for the JVM with a connection directory made by `tempfile.mkdtemp()` and
    removes it when the JVM has answered; a run killed meanwhile left it in the system's temporary
    directory for good. In the driver's scratch directory it goes with that (see
    `loader.runtime.driver_scratch`). The process's own default is restored at once."""
    previous = tempfile.tempdir
    tempfile.tempdir = str(directory)
    try:
        yield
    finally:
        tempfile.tempdir = previous


@contextmanager
def _web_ui_on_loopback(local: bool) -> Iterator[None]:
    """Runs the block (which may launch the driver JVM) with `SPARK_LOCAL_IP` set to loopback for a local
    driver, unless the environment names an address already. Spark binds its web UI to that variable's
    address, and to every interface without it, whatever `spark.driver.bindAddress` says: a cron run on
    a shared host would show its jobs, settings and environment to the network. The JVM inherits the
    variable; Python's own environment is restored at once. A cluster's driver keeps its UI reachable."""
    if not local or LOCAL_IP_ENV in os.environ:
        yield
        return
    os.environ[LOCAL_IP_ENV] = LOOPBACK
    try:
        yield
    finally:
        os.environ.pop(LOCAL_IP_ENV, None)


def submitted_by_spark_submit() -> bool:
    """Whether spark-submit started this driver: its JVM is up before Python runs, and Python reaches it
    through the gateway whose port spark-submit hands down. spark-submit's `--master` and `--jars` /
    `--packages` then rule: a master set here would replace `--master` (the run would stay on the driver
    machine, in local mode), jars set here would replace what spark-submit ships to the executors."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def _master(master: str | None, submitted: bool) -> str | None:
    """The settings' master; `local[2]` when neither they, spark-submit nor the environment name one."""
    if master or submitted or "SPARK_MASTER" in os.environ or os.environ.get("PYSPARK_SUBMIT_ARGS"):
        return master
    return "local[2]"


def _session_conf(warehouse_dir: str) -> dict[str, str]:
    """What every loader session sets, whatever its master and metastore."""
    return {
        "spark.sql.warehouse.dir": warehouse_dir,
        # Tables evolve with their schemas (int -> long, a field added inside a struct): the metastore
        # must accept the new column types. An external metastore needs the same setting on its side.
        "spark.hadoop.hive.metastore.disallow.incompatible.col.type.changes": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
        "spark.sql.hive.convertMetastoreParquet": "true",
        # Spark's own writes go to the loader's private staging directories (or create empty tables):
        # one rename per file at task commit, no `_SUCCESS` marker, instead of two renames per file.
        "spark.hadoop.mapreduce.fileoutputcommitter.algorithm.version": "2",
        "spark.hadoop.mapreduce.fileoutputcommitter.marksuccessfuljobs": "false",
        # PySpark 4 otherwise records the Python call site of every Column function it is given (a
        # look-up of the session, a conf read and two more JVM calls each, thousands per topic's query)
        # for error messages that point into user code; the loader builds the same queries for every
        # topic, and its errors name the topic.
        "spark.python.sql.dataFrameDebugging.enabled": "false",
        **KAFKA_SOURCE_POOLS,
        **REDACTION,
    }


def remote_warehouse_refusal(warehouse: str) -> str:
    """Why a session without a metastore URI cannot have `warehouse` (not a local directory), and what to
    give instead."""
    return (
        f"the warehouse {warehouse} is not a local directory, which the embedded Derby metastore needs: "
        "with a remote warehouse, pass the metastore URI (thrift://...). Under an Iceberg REST catalog "
        "the warehouse holds only that metastore, none of the catalog's tables: keep it on a local "
        'disk, and the loader\'s state on the object store with state-dir = "s3://..."'
    )


def _metastore_conf(
    metastore_uri: str | None, warehouse: str, local: Path | None, java_options: list[str]
) -> dict[str, str]:
    """The metastore's settings: a Thrift URI, or an embedded Derby metastore beside a local warehouse
    (its home passed to the driver JVM in `java_options`)."""
    if metastore_uri:
        return {"spark.hadoop.hive.metastore.uris": metastore_uri}
    if local is None:
        raise ValueError(remote_warehouse_refusal(warehouse))
    metastore = embedded_metastore(local)
    metastore.home.mkdir(parents=True, exist_ok=True)
    java_options.append(f"-Dderby.system.home={metastore.home}")
    derby = f"jdbc:derby:;databaseName={metastore.database};create=true"
    return {"spark.hadoop.javax.jdo.option.ConnectionURL": derby, **EMBEDDED_METASTORE_CONF}


def build_spark_session(settings: SparkSettings) -> SparkSession:
    """A Hive-enabled SparkSession for the given settings (re-uses an active one with the same JVM)."""
    builder = SparkSession.builder.appName(settings.app_name)
    submitted = submitted_by_spark_submit()
    master = _master(settings.master, submitted)
    if master:
        builder = builder.master(master)
    local = local_path(settings.warehouse_dir)
    conf = _session_conf(str(local.absolute()) if local is not None else settings.warehouse_dir)
    local_master = bool(master and master.startswith("local"))
    if local_master:
        # A local driver talks only to itself: keep it on loopback whatever the host name resolves to
        # (its web UI too, see `_web_ui_on_loopback`).
        conf["spark.driver.host"] = LOOPBACK
        conf["spark.driver.bindAddress"] = LOOPBACK
    jars = connector_jars(settings.jars_dir) + list(settings.extra_jars)
    if jars and not submitted:
        conf["spark.jars"] = ",".join(jars)
    configured_class_path = settings.extra_conf.get(DRIVER_CLASS_PATH, "")
    local_file_system = local_file_system_conf(master, submitted, jars, configured_class_path)
    class_path = local_file_system.get(DRIVER_CLASS_PATH, configured_class_path)
    java_options = list(settings.driver_java_options)
    starts_jvm = not submitted and SparkContext._gateway is None
    if starts_jvm:
        class_path = driver_class_path(class_path, jars, spark_home() / "jars")
    archive = class_archive_for(settings, class_path) if starts_jvm and settings.class_archive_dir else None
    writing_archive = archive is not None and archive.missing()
    if archive is not None and writing_archive and archive.being_written():
        archive, writing_archive = None, False  # another run's JVM writes it: this one starts without
    if archive is not None:
        java_options += archive.java_options(writing_archive)
    conf.update(_metastore_conf(settings.metastore_uri, settings.warehouse_dir, local, java_options))
    scratch = make_scratch_directory()
    if starts_jvm and not any(option.startswith("-Djava.io.tmpdir=") for option in java_options):
        # The JVM's own temporary files (a local Spark's `blockmgr-*` and `spark-*` directories, native
        # libraries such as lz4's) are removed by its shutdown hooks, which a JVM killed (the OOM killer
        # picks the biggest process) never runs: they stayed in the system's temporary directory. In the
        # driver's scratch directory they go with it (see `loader.runtime.driver_scratch`).
        java_options.append(f"-Djava.io.tmpdir={scratch}")
    if java_options:
        # Spark splits the setting as a shell would: a warehouse path with a space stays one option.
        conf["spark.driver.extraJavaOptions"] = " ".join(shlex.quote(option) for option in java_options)
    conf.update(local_file_system)
    # Hive's session makes `<java.io.tmpdir>/<session id>_resources` and, as Spark never closes that
    # session, leaves it there: one more directory in /tmp for every run. In the driver's scratch
    # directory instead (also its working directory, see below), which goes when the run ends.
    conf[HIVE_RESOURCES_DIR] = f"{scratch}/${{hive.session.id}}_resources"
    conf.update(settings.extra_conf)  # the settings' own Spark options win
    if class_path:
        conf[DRIVER_CLASS_PATH] = class_path  # theirs, the loader's jar, the most used jars
    for key, value in conf.items():
        builder = builder.config(key, value)
    with (
        _working_directory(scratch),
        _python_temporary_files_in(scratch),
        _web_ui_on_loopback(local_master and starts_jvm),
    ):
        spark = builder.enableHiveSupport().getOrCreate()
    if archive is not None and writing_archive:
        keep_at_exit(archive, spark.sparkContext._gateway.proc)
    read_kafka_with_v2_reader(spark)
    read_string_escapes_as_spark_does(spark)
    return spark


def without_kafka(v1_sources: str) -> str:
    """A `spark.sql.sources.useV1SourceList` value without Kafka, the other sources as they were."""
    return ",".join(s for s in (name.strip() for name in v1_sources.split(",")) if s and s.lower() != "kafka")


ESCAPED_STRING_LITERALS = "spark.sql.parser.escapedStringLiterals"


def read_string_escapes_as_spark_does(session: SparkSession) -> None:
    """The session's SQL reads a backslash in a string literal as an escape, Spark's default, which the
    loader's queries are written for (SQL text with string literals: schemas, subjects; see
    loader.reading.sql_text), whatever a cluster's defaults say. Set only where a cluster's defaults
    turned it off: Spark 4 deprecates the setting and warns each time it is set. A session's own setting,
    so checked on every session the loader makes."""
    if (session.conf.get(ESCAPED_STRING_LITERALS, "false") or "").strip().lower() == "true":
        session.conf.set(ESCAPED_STRING_LITERALS, "false")


def read_kafka_with_v2_reader(session: SparkSession) -> None:
    """The session's Kafka reads go through Spark's V2 reader, which hands the query Spark's internal rows.

    Spark reads a Kafka batch through its V1 relation by default, whose scan turns every record into a
    `Row` object and back, and generates that conversion's code again for every topic partition a task
    reads: 12% of a small topics' group task's CPU in a profile, and a big topic's load took about 0.94x
    the time without it (benchmarks/JOURNAL.md, "Spark's Kafka source read by its V2 reader"). Both read
    with the same consumers and options. A session's own setting, so set on every session the loader
    makes (a new session starts from the application's settings)."""
    current = session.conf.get(V1_SOURCES)
    wanted = without_kafka(current or "")
    if wanted != current:
        session.conf.set(V1_SOURCES, wanted)


def local_file_system_conf(
    master: str | None, submitted: bool, jars: list[str], class_path: str
) -> dict[str, str]:
    """Spark's settings for the loader's local file system (`LOCAL_FILE_SYSTEM`): a local Spark whose
    jars hold the loader's, which goes on the driver's class path (with `class_path`, the settings' own)
    because spark-submit reads the jars' paths through the file system before it adds any jar. Nothing for
    a cluster or under spark-submit, whose executors and class path are not this process's to set."""
    if not master or not master.startswith("local") or submitted:
        return {}
    loader_jar = next((jar for jar in jars if Path(jar).name.startswith(LOADER_JAR)), None)
    if loader_jar is None:
        return {}
    return {
        DRIVER_CLASS_PATH: os.pathsep.join(filter(None, [loader_jar, class_path])),
        "spark.hadoop.fs.file.impl": LOCAL_FILE_SYSTEM,
    }


# Whether each of the loader's classes is on the class path of a JVM (by its gateway): asked once per JVM,
# as each question searches the class path (see `loader.runtime.java_values.java_class`).
_LOADER_CLASSES: dict[tuple[int, str], bool] = {}


def loader_class(spark: SparkSession, name: str) -> JavaClass | None:
    """One of the loader's own JVM classes (`tableloader.<name>`, jvm/tableloader); None when the loader's jar
    is not on the driver's class path (its jar comes with the connectors)."""
    key = (id(spark.sparkContext._gateway), name)
    if key not in _LOADER_CLASSES:
        _LOADER_CLASSES[key] = isinstance(getattr(getattr(spark._jvm, LOADER_PACKAGE), name), JavaClass)
    return java_class(spark, f"{LOADER_PACKAGE}.{name}") if _LOADER_CLASSES[key] else None


def decodes_protobuf(session: SparkSession) -> bool:
    """Whether the session's JVM has the loader's Protobuf decoder (`tableloader.ProtobufRows`: the
    loader's jar is on its class path)."""
    return loader_class(session, "ProtobufRows") is not None


def class_archive_for(settings: SparkSettings, class_path: str = "") -> ClassArchive | None:
    """The driver's class archive for these settings and the driver's extra class path: keyed by what
    the JVM's classes come from and by the options that decide whether an archive maps (not the
    per-warehouse ones, such as Derby's home)."""
    assert settings.class_archive_dir is not None
    refused = archive_refused_by(class_path_directories(os.environ, spark_home()))
    if refused:
        say_refused(refused)
        return None
    key = archive_key(
        [
            java_installation(),
            spark_installation(),
            *(f"{name}={os.environ.get(name, '')}" for name in CLASSPATH_ENV),
            class_path,
            *settings.driver_java_options,
        ]
    )
    return usable_archive(settings.class_archive_dir, key)


def forget_cached_tables(spark: SparkSession) -> None:
    """Drops what this session remembers of every table (relations, file listings): one call after a
    commit instead of a metastore round trip per table."""
    internals.forget_cached_tables(spark)


def interpreted_session(spark: SparkSession) -> SparkSession:
    """A session of the same application (same catalog, same jobs) whose queries evaluate their
    expressions interpreted instead of generating and compiling Java code for them.

    For the queries over many small topics (`loader.run.topic_group_pass`). Such a query holds every member
    topic's decoding and row, hundreds of fields, more than Spark compiles into one whole-stage function
    (`spark.sql.codegen.maxFields`), so Spark generates a projection's code in every task, and in a
    fresh driver JVM (every cron run) the JIT then compiles that code as well: a profile of a run's JVM
    spent about as much CPU compiling as running. A group reads a few thousand records per topic,
    where interpreting costs less than generating; the passes of busy topics keep generated code.
    Measured in benchmarks/JOURNAL.md ("Small topics' queries interpreted")."""
    session = spark.newSession()
    read_kafka_with_v2_reader(session)
    read_string_escapes_as_spark_does(session)
    session.conf.set("spark.sql.codegen.wholeStage", "false")
    # Spark's own fallback path when code generation fails, chosen up front; an internal setting, so a
    # Spark that no longer knows it keeps generating code, which is only slower.
    session.conf.set("spark.sql.codegen.factoryMode", "NO_CODEGEN")
    return session
