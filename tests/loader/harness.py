"""What the loader's integration tests share: producing real Confluent-framed Avro, running the job
(in this process on the session's Spark, or as a `loader run` subprocess), and reading tables back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from pyspark.sql import DataFrame, SparkSession

from loader import job
from loader.config import LoaderSettings
from loader.formats.catalog_settings import take_catalog
from loader.outcome.report import RunReport
from loader.reading.kafka_metadata import watermarks
from tests.fixtures.kafka import KafkaBroker
from tests.fixtures.object_store import BUCKET, REGION
from tests.fixtures.rest_catalog import RestCatalogService
from tests.fixtures.spark import ICEBERG_EXTENSIONS

REPO_ROOT = Path(__file__).resolve().parents[2]


def record_schema(name: str, fields: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "record", "name": name, "namespace": "com.example", "fields": fields}


def executed_plan(frame: DataFrame) -> str:
    """The frame's executed physical plan, as Spark prints it."""
    return str(frame._jdf.queryExecution().executedPlan().toString())


@dataclass
class Harness:
    kafka: KafkaBroker
    registry_url: str
    warehouse: Path
    database: str = field(default_factory=lambda: f"db_{uuid.uuid4().hex[:8]}")
    # Topics of this test start with it, and its runs load only those: tests share one broker.
    prefix: str = field(default_factory=lambda: f"t{uuid.uuid4().hex[:8]}")
    # What the test's producers give confluent-kafka's registry client besides the URL (credentials, CA).
    registry_conf: dict[str, str] = field(default_factory=dict)
    # Of its runs: in-process ones need a session that can hold the format's tables (`iceberg_spark`).
    table_format: str = "hive"
    iceberg_catalog: str = "hive"  # where those keep Iceberg tables: the metastore, the warehouse, REST
    # A REST catalog's settings (`iceberg_rest_uri`, `s3_endpoint`, ...: loader.formats.catalog_settings)
    # and the variables that hold its secrets: what the harness's processes and readers reach it with.
    catalog_settings: dict[str, Any] = field(default_factory=dict)
    catalog_secrets: dict[str, str] = field(default_factory=dict)
    state_dir: str | None = None  # the loader's state directory, when not the warehouse's

    def settings(self, **overrides: Any) -> LoaderSettings:
        base = LoaderSettings(
            bootstrap_servers=self.kafka.bootstrap,
            registry_url=self.registry_url,
            warehouse=str(self.warehouse),
            database=self.database,
            partition_granularity="day",
            task_pool_size=2,
            include_topics=f"{self.prefix}.*",
            table_format=self.table_format,
            iceberg_catalog=self.iceberg_catalog,
            state_dir=self.state_dir,
            catalog_access=take_catalog(dict(self.catalog_settings), self.catalog_secrets),
        )
        return replace(base, **overrides)

    def in_process(self, warehouse: Path) -> Harness:
        """This harness's topics, database and catalog, for runs in the worker's application, whose
        warehouse (its embedded metastore's) is `warehouse`: where the `loader` processes of a REST
        catalog's harness have one of their own, and the state directory is on the object store."""
        return replace(self, warehouse=warehouse)

    def session(self, spark: SparkSession) -> SparkSession:
        """A session of the worker's application for this harness's tables, as `loader run` makes its
        own: `spark` for Hive tables; for Iceberg's, a new session whose session catalog is the harness's
        (the metastore, the warehouse or a REST catalog: catalog settings are a session's own, read when
        it first looks a table up). In-process runs and readers of a REST catalog's tables use it, with the
        warehouse of the session (`in_process`)."""
        conf = self.settings().session_conf
        if not conf:
            return spark
        session = spark.newSession()
        for key, value in conf.items():
            if key != ICEBERG_EXTENSIONS:  # static: set when the application started
                session.conf.set(key, value)
        # The active one, as a process's only session is: Iceberg's actions look their catalog up there
        # (tests/loader/conftest.py makes the Hive session the active one again after the test).
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(session._jsparkSession)
        return session

    def topic(self, partitions: int = 1, prefix: str = "events", config: dict[str, str] | None = None) -> str:
        return self.kafka.create_topic(
            f"{self.prefix}.{prefix}.{uuid.uuid4().hex[:8]}", partitions=partitions, config=config
        )

    def produce(
        self,
        topic: str,
        schema: dict[str, Any],
        records: list[dict[str, Any]],
        partition: int | None = None,
        at: datetime | None = None,
    ) -> None:
        """Produces like an application does: AvroSerializer, registering the schema on first use; with
        `at`, every record carries that Kafka timestamp (an hour or day in the past) instead of now."""
        serialize = self.serializer(topic, schema)
        producer = Producer({"bootstrap.servers": self.kafka.bootstrap})
        stamp = {"timestamp": int(at.timestamp() * 1000)} if at else {}
        # Asked once, not per record: each question opens an admin client of its own.
        spread = self.partitions_of(topic) if partition is None else 1
        for i, record in enumerate(records):
            target = partition if partition is not None else i % spread
            producer.produce(topic, value=serialize(record), partition=target, **stamp)
        assert producer.flush(30) == 0

    def serializer(
        self, topic: str, schema: dict[str, Any] | str, field: MessageField = MessageField.VALUE
    ) -> Callable[[Any], bytes]:
        """AvroSerializer as an application configures it, registering `<topic>-value` (or `-key`)."""
        client = SchemaRegistryClient({"url": self.registry_url, **self.registry_conf})
        serialize = AvroSerializer(client, schema if isinstance(schema, str) else json.dumps(schema))
        context = SerializationContext(topic, field)
        return lambda record: serialize(record, context)

    def produce_raw(self, topic: str, values: list[bytes | None], partition: int = 0) -> None:
        producer = Producer({"bootstrap.servers": self.kafka.bootstrap})
        for value in values:
            producer.produce(topic, value=value, partition=partition)
        assert producer.flush(30) == 0

    def partitions_of(self, topic: str) -> int:
        return len(self.kafka.admin().list_topics(topic, timeout=10).topics[topic].partitions)

    def run(self, spark: SparkSession, **overrides: Any) -> RunReport:
        return job.run(self.settings(**overrides), spark)

    def run_cli(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        timeout: float = 300,
        command: str = "run",
        answer: str = "",
        cwd: Path = REPO_ROOT,
    ) -> subprocess.CompletedProcess[str]:
        """`loader run` (or another `loader` command) in its own process and JVM, as cron starts it."""
        run_only = ["--partition-granularity", "day", "--include-topics", f"{self.prefix}.*"]
        command_line = [
            sys.executable, "-m", "loader.cli", command,
            "--bootstrap-servers", self.kafka.bootstrap,
            "--registry-url", self.registry_url,
            "--warehouse", str(self.warehouse),
            "--database", self.database,
            *(run_only if command == "run" else []),
            *args,
        ]  # fmt: skip
        return subprocess.run(
            command_line, env={**os.environ, **self.cli_env(), **(env or {})}, capture_output=True, text=True,
            timeout=timeout,
            cwd=cwd, input=answer,  # what a prompt reads, never the terminal of whoever runs the tests
        )  # fmt: skip

    def cli_env(self) -> dict[str, str]:
        """What a `loader` process of this harness gets in its environment besides the test's own."""
        catalog = {
            f"LOADER_{name.upper()}": "true" if value is True else str(value)
            for name, value in self.catalog_settings.items()
        }
        return {
            "LOADER_TABLE_FORMAT": self.table_format,
            "LOADER_ICEBERG_CATALOG": self.iceberg_catalog,
            **catalog,
            **self.catalog_secrets,
            **({"LOADER_STATE_DIR": self.state_dir} if self.state_dir else {}),
        }

    def query_cli(self, sql: str) -> list[dict[str, Any]]:
        """Runs SQL in a separate Spark application on this harness's warehouse and metastore (with
        Iceberg's catalog when the harness's tables are Iceberg's)."""
        (rows,) = self.query_cli_all(sql)
        return rows

    def query_cli_all(self, *statements: str) -> list[list[dict[str, Any]]]:
        """Runs each statement in turn, as `query_cli` does, in one separate Spark application: each
        application costs a JVM's start, several seconds, so a test reading many tables reads them all
        at once."""
        return self._in_spark_application(
            f"""
            results = [
                [r.asDict(recursive=True) for r in spark.sql(statement).collect()]
                for statement in {list(statements)!r}
            ]
            """
        )

    def run_query_and_audit_cli(
        self, *statements: str, **overrides: Any
    ) -> tuple[dict[str, Any], list[list[dict[str, Any]]], dict[str, Any]]:
        """A run, then `statements` and `loader audit`'s report (its JSON), in one application of their
        own (`in_loader_application`): the run after a test's killed `loader run` processes, the tables it
        leaves and their audit, for one JVM's start instead of three (a kill needs a process; the run after
        it does not). `overrides` are settings of the run (`max_bad_ratio=1.0`, say). The run's report,
        the rows, the audit's report; a failed topic's trace is in the process's stderr."""
        return self.in_loader_application(
            f"""
            from loader import job
            from loader.outcome.trace import show_traces
            show_traces()  # as `loader run --debug`: a failed topic's trace in the stderr
            report = job.run(settings, spark, Console(file=sys.stderr))
            rows = [
                [r.asDict(recursive=True) for r in spark.sql(statement).collect()]
                for statement in {list(statements)!r}
            ]
            audited = audit(settings, spark, QUARANTINE_TABLE)
            results = [json.loads(report.to_json()), rows, json.loads(audited.to_json())]
            """,
            **overrides,
        )

    def in_loader_application(
        self, body: str, command: str = "run", cwd: Path = REPO_ROOT, **overrides: Any
    ) -> Any:
        """The `results` that `body` makes, in a process of its own started in `cwd`, from `settings`
        (those `run_cli` gives `command`, with `overrides`) and `spark`, a session as a `loader` command
        makes its own (`job.spark_for`); `body` may use `Console`, `sys`, `audit` and `QUARANTINE_TABLE`."""
        run_only = self.run_only_settings() if command == "run" else {}
        settings = {**self._process_settings(), **run_only, **overrides}
        archive = os.environ.get("LOADER_DRIVER_CLASS_ARCHIVE_DIR")
        session = textwrap.dedent(
            f"""
            import sys
            from rich.console import Console
            from loader.config import LoaderSettings
            from loader.formats.catalog_settings import take_catalog
            from loader.job import QUARANTINE_TABLE, spark_for
            from loader.operations.audit import audit
            access = take_catalog({self.catalog_settings!r}, {self.catalog_secrets!r})
            settings = LoaderSettings(
                **{settings!r}, catalog_access=access, driver_class_archive_dir={archive!r}
            ).validate()
            spark = spark_for(settings)
            """
        )
        return self._in_application(session + textwrap.dedent(body), cwd)

    def run_only_settings(self) -> dict[str, Any]:
        """What `run_cli` gives a `loader run` besides the harness's settings: its topics, day partitions."""
        return {"partition_granularity": "day", "include_topics": f"{self.prefix}.*"}

    def _process_settings(self) -> dict[str, Any]:
        """The settings a `loader` process of this harness runs with, but its catalog's access."""
        return {
            "bootstrap_servers": self.kafka.bootstrap,
            "registry_url": self.registry_url,
            "warehouse": str(self.warehouse),
            "database": self.database,
            "table_format": self.table_format,
            "iceberg_catalog": self.iceberg_catalog,
            "state_dir": self.state_dir,
        }

    def query_and_audit_cli(self, *statements: str) -> tuple[list[list[dict[str, Any]]], dict[str, Any]]:
        """`query_cli_all`, and then `loader audit`'s report (its JSON) from the same application: the
        audit as its command runs it, on a session like its own, for one JVM's start instead of two."""
        settings = self._process_settings()
        rows, report = self._in_spark_application(
            f"""
            from loader.config import LoaderSettings
            from loader.job import QUARANTINE_TABLE
            from loader.operations.audit import audit
            rows = [
                [r.asDict(recursive=True) for r in spark.sql(statement).collect()]
                for statement in {list(statements)!r}
            ]
            settings = LoaderSettings(**{settings!r}, catalog_access=access)
            results = [rows, json.loads(audit(settings, spark, QUARANTINE_TABLE).to_json())]
            """
        )
        return rows, report

    def query_cli_every_table(self, template: str) -> dict[str, list[dict[str, Any]]]:
        """`template` (SQL naming `{table}`) run for every table of the harness's database, each table
        the metastore lists, in one separate Spark application: the tables by name."""
        return self._in_spark_application(
            f"""
            names = [r.tableName for r in spark.sql("SHOW TABLES IN {self.database}").collect()]
            results = {{
                name: [
                    r.asDict(recursive=True)
                    for r in spark.sql({template!r}.format(table=f"{self.database}.{{name}}")).collect()
                ]
                for name in names
            }}
            """
        )

    def _in_spark_application(self, body: str) -> Any:
        """The `results` that `body` makes from `spark`, a session on this harness's warehouse and
        metastore (with Iceberg's catalog when the harness's tables are Iceberg's) in a process of its
        own."""
        session = textwrap.dedent(
            f"""
            import json
            from pathlib import Path
            from loader.formats.catalog_settings import take_catalog
            from loader.formats.iceberg_catalogs import IcebergCatalog, spark_catalog_conf
            from loader.runtime.spark_session import (
                DRIVER_JIT, SparkSettings, build_spark_session, iceberg_jars,
            )
            iceberg = {self.table_format == "iceberg"!r}
            access = take_catalog({self.catalog_settings!r}, {self.catalog_secrets!r})
            catalog = IcebergCatalog({self.iceberg_catalog!r}, {str(self.warehouse)!r}, access)
            conf = spark_catalog_conf(catalog) if iceberg else {{}}
            jars = tuple(iceberg_jars()) if iceberg else ()
            archive = {os.environ.get("LOADER_DRIVER_CLASS_ARCHIVE_DIR")!r}
            settings = SparkSettings(
                warehouse_dir={str(self.warehouse)!r}, master="local[1]", extra_conf=conf, extra_jars=jars,
                class_archive_dir=Path(archive) if archive else None,
                driver_java_options=DRIVER_JIT["quick"],  # the JIT a `loader run` starts with
            )
            spark = build_spark_session(settings)
            """
        )
        return self._in_application(session + textwrap.dedent(body))

    @staticmethod
    def _in_application(body: str, cwd: Path = REPO_ROOT) -> Any:
        """The `results` that `body` (Python that makes its Spark application) makes, in a process of its
        own started in `cwd`."""
        code = "import json\n" + textwrap.dedent(body) + 'print("ROWS=" + json.dumps(results, default=str))\n'
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=cwd
        )
        assert done.returncode == 0, done.stderr[-3000:]
        line = next(line for line in done.stdout.splitlines() if line.startswith("ROWS="))
        return json.loads(line.removeprefix("ROWS="))


def on_rest_catalog(harness: Harness, catalog: RestCatalogService, state_on_store: bool = False) -> Harness:
    """The harness's runs and readers on the REST catalog, as a cron job's environment would say it: no
    secret on the command line, the tables' keys vended by the catalog. With `state_on_store`, the loader's
    state directory is on the object store too (a prefix of its own), written with the store's keys,
    read from their files."""
    harness.table_format, harness.iceberg_catalog = "iceberg", "rest"
    harness.catalog_settings = {
        "iceberg_rest_uri": catalog.uri,
        "iceberg_vended_credentials": True,
        "s3_endpoint": catalog.store.endpoint,
        "s3_region": REGION,
        "s3_path_style": True,
    }
    harness.catalog_secrets = {"LOADER_ICEBERG_REST_CREDENTIAL": "loader:any"}  # any is granted a token
    if state_on_store:
        harness.state_dir = f"s3://{BUCKET}/loader-state/{harness.database}"
        harness.catalog_settings["s3_access_key_file"] = str(catalog.store.keys_dir / "access-key")
        harness.catalog_settings["s3_secret_key_file"] = str(catalog.store.keys_dir / "secret-key")
    return harness


def committed_offsets(harness: Harness, topic: str) -> list[tuple[int, int]]:
    """(partition, offset) of every record a read_committed consumer gets from the topic now."""
    partitions = harness.partitions_of(topic)
    ends = watermarks(harness.kafka.bootstrap, [(topic, p) for p in range(partitions)])
    consumer = Consumer(
        {
            "bootstrap.servers": harness.kafka.bootstrap,
            "group.id": f"check-{uuid.uuid4().hex}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
        }
    )
    assigned = [TopicPartition(topic, p, ends[(topic, p)].earliest) for p in range(partitions)]
    consumer.assign(assigned)
    found: list[tuple[int, int]] = []
    deadline = time.monotonic() + 60
    try:
        while True:
            message = consumer.poll(0.5)
            if message is not None and not message.error():
                found.append((message.partition(), message.offset()))
            # Done when every position reached the end: gaps (markers, compaction) are skipped over.
            positions = consumer.position([TopicPartition(topic, p) for p in range(partitions)])
            if all(
                tp.offset >= ends[(topic, tp.partition)].end
                or ends[(topic, tp.partition)].end == ends[(topic, tp.partition)].earliest
                for tp in positions
            ):
                return sorted(found)
            assert time.monotonic() < deadline, f"could not read {topic} to its end"
    finally:
        consumer.close()


def transactional_producer(harness: Harness) -> Producer:
    producer = Producer(
        {
            "bootstrap.servers": harness.kafka.bootstrap,
            "transactional.id": f"tx-{uuid.uuid4().hex}",
            # A transaction is held open across a whole run: the broker must not abort it meanwhile.
            "transaction.timeout.ms": 600_000,
        }
    )
    producer.init_transactions(30)
    return producer


def in_transaction(producer: Producer, topic: str, values: list[bytes], *, commit: bool) -> None:
    producer.begin_transaction()
    for value in values:
        producer.produce(topic, value=value)
    if commit:
        producer.commit_transaction(30)
    else:
        producer.flush(30)
        producer.abort_transaction(30)


def run_driver_script(script: str, *args: str, cwd: Path) -> tuple[Any, str]:
    """Runs `script` (Python that builds a driver and prints JSON as its last line) in a process of its
    own, as a `loader` command starts its driver JVM: the JSON, and everything the process printed."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stdout + done.stderr
