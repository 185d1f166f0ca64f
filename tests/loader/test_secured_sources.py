"""The loader on a secured Kafka (SASL_SSL with SCRAM, mutual TLS, ACLs) and an authenticated registry
over HTTPS, end to end; each refusal (wrong password, untrusted certificate, missing permission) stops
the run at once, names the service and the reason, and stages nothing; the password appears nowhere."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from pyspark.sql import SparkSession
from rich.console import Console

from loader import job
from loader.outcome.report import EXIT_FAILED
from loader.reading.kafka_security import KafkaSecurity
from loader.schema.naming import table_name
from pipeline_client.client_settings import RegistryClientSettings
from pipeline_client.secret_values import Secret, secret_from_file
from tests.fixtures import tls
from tests.fixtures.kafka import SecuredKafkaBroker
from tests.fixtures.ports import free_port
from tests.fixtures.registry_server import HttpsClient, RegistryProcess, start_registry, users_database
from tests.fixtures.tls import Issued
from tests.loader.harness import REPO_ROOT, Harness, record_schema

pytestmark = pytest.mark.integration

EVENT = record_schema("Login", [{"name": "user", "type": "string", "doc": "Who logged in."}])
RECORDS = [{"user": f"u{i}"} for i in range(12)]
REGISTRY_PASSWORD = "registry-pw-5d1e07c2"
# Long enough that a run which waited for the timeout instead of stopping on the refusal is told apart.
PATIENT_TIMEOUT_S = 90.0


@dataclass(frozen=True)
class SecuredRegistry:
    server: RegistryProcess
    pki: dict[str, Issued]
    token: str

    @property
    def url(self) -> str:
        return self.server.url

    def producer_conf(self) -> dict[str, str]:
        """What an application's AvroSerializer is given: a writer's login and the CA."""
        conf = {
            "basic.auth.user.info": f"producer:{REGISTRY_PASSWORD}",
            "ssl.ca.location": str(self.pki["ca"].cert),
        }
        if self.server.https and self.server.https.cert:
            conf["ssl.certificate.location"] = str(self.pki["client"].cert)
            conf["ssl.key.location"] = str(self.pki["client"].key)
        return conf


def start_secured_registry(
    directory: Path, pki: dict[str, Issued], require_client_cert: bool
) -> Iterator[SecuredRegistry]:
    """``registry serve --auth`` over HTTPS (with client certificates required, if asked) with users
    "producer" (write), "loader" (read, password) and "loader-svc" (read, token)."""
    users = [
        ("producer", "write", ["--prefix", ""]),
        ("loader", "read", []),
        ("loader-svc", "read", ["--no-password"]),
    ]
    database, tokens = users_database(directory / "registry.db", REGISTRY_PASSWORD, users)
    tls = ["--certfile", str(pki["server"].cert), "--keyfile", str(pki["server"].key), "--auth"]
    client = None
    if require_client_cert:
        tls += ["--ca-file", str(pki["ca"].cert), "--require-client-cert"]
        client = (pki["client"].cert, pki["client"].key)
    server = start_registry(
        database, directory, workers=1, extra_args=tls, https=HttpsClient(pki["ca"].cert, client)
    )
    try:
        yield SecuredRegistry(server, pki, tokens["loader-svc"])
    finally:
        server.stop()


@pytest.fixture(scope="module")
def registry_pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Issued]:
    return tls.registry_pki(tmp_path_factory.mktemp("registry-pki"), "loader")


@pytest.fixture(scope="module")
def https_registry(
    tmp_path_factory: pytest.TempPathFactory, registry_pki: dict[str, Issued]
) -> Iterator[SecuredRegistry]:
    yield from start_secured_registry(tmp_path_factory.mktemp("https-registry"), registry_pki, False)


@pytest.fixture(scope="module")
def mtls_registry(
    tmp_path_factory: pytest.TempPathFactory, registry_pki: dict[str, Issued]
) -> Iterator[SecuredRegistry]:
    yield from start_secured_registry(tmp_path_factory.mktemp("mtls-registry"), registry_pki, True)


def harness_for(broker: SecuredKafkaBroker, registry: SecuredRegistry, warehouse: Path) -> Harness:
    return Harness(
        kafka=broker, registry_url=registry.url, warehouse=warehouse, registry_conf=registry.producer_conf()
    )


def scram(broker: SecuredKafkaBroker, user: str = "loader", password: Secret | None = None) -> KafkaSecurity:
    return KafkaSecurity(
        "SASL_SSL",
        "SCRAM-SHA-512",
        user,
        password or secret_from_file(broker.password_file(user), "the SASL password"),
        ssl_ca_location=str(broker.ca),
    )


def registry_login(
    registry: SecuredRegistry, password: str = REGISTRY_PASSWORD, ca: str = "ca"
) -> RegistryClientSettings:
    return RegistryClientSettings(
        basic_auth_user_info=Secret(f"loader:{password}", "test"), ssl_ca_location=str(registry.pki[ca].cert)
    )


def state_dir(harness: Harness) -> Path:
    return harness.warehouse / "_loader_state" / harness.database


class ProcessWatch:
    """Every command line on the machine while a process runs: what `ps` shows to every user."""

    def __init__(self, output_dir: Path) -> None:
        self.output_dir = output_dir
        self.seen: set[str] = set()
        self.runs = 0

    def run(
        self, command: list[str], env: dict[str, str], timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """Runs ``command`` (its output through files, so that a full pipe never stalls it)."""
        self.runs += 1
        stdout, stderr = self.output_dir / f"{self.runs}.out", self.output_dir / f"{self.runs}.err"
        with stdout.open("w") as out, stderr.open("w") as err:
            process = subprocess.Popen(command, env=env, cwd=REPO_ROOT, stdout=out, stderr=err, text=True)
            deadline = time.monotonic() + timeout
            while process.poll() is None and time.monotonic() < deadline:
                for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
                    with contextlib.suppress(OSError):  # the process ended meanwhile
                        self.seen.add(cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace"))
                time.sleep(0.2)
            process.wait(timeout=max(1.0, deadline - time.monotonic()))
        return subprocess.CompletedProcess(
            command, process.returncode, stdout.read_text(), stderr.read_text()
        )


def files_containing(root: Path, needle: str, skip: set[Path]) -> list[Path]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and path not in skip and needle.encode() in path.read_bytes():
            found.append(path)
    return found


def test_loads_through_sasl_ssl_scram_512_from_an_authenticated_https_registry(
    secured_kafka: SecuredKafkaBroker, https_registry: SecuredRegistry, tmp_path: Path
) -> None:
    harness = harness_for(secured_kafka, https_registry, tmp_path / "warehouse")
    topic = harness.topic(partitions=2)
    harness.produce(topic, EVENT, RECORDS)
    kafka_password = secured_kafka.password("loader")
    registry_properties = tmp_path / "registry.properties"
    registry_properties.write_text(
        "basic.auth.credentials.source=USER_INFO\n"
        f"basic.auth.user.info=loader:{REGISTRY_PASSWORD}\n"
        f"ssl.ca.location={https_registry.pki['ca'].cert}\n"
    )
    config = tmp_path / "loader.toml"
    config.write_text(
        f"""
[loader]
bootstrap_servers = "{secured_kafka.sasl_ssl}"
registry_url = "{https_registry.url}"
warehouse = "{harness.warehouse}"
database = "{harness.database}"
include_topics = "{harness.prefix}.*"
partition_granularity = "day"
security_protocol = "SASL_SSL"
sasl_mechanism = "SCRAM-SHA-512"
sasl_username = "loader"
sasl_password_file = "{secured_kafka.password_file("loader")}"
ssl_ca_location = "{secured_kafka.ca}"
registry_properties = "{registry_properties}"
"""
    )
    events = tmp_path / "spark-events"
    events.mkdir()
    env = {
        **os.environ,
        # Spark's event log holds what its UI shows (the environment page, SQL plans, job descriptions).
        "PYSPARK_SUBMIT_ARGS": f"--conf spark.eventLog.enabled=true --conf "
        f"spark.eventLog.dir={events.as_uri()} "
        f"--conf spark.ui.port={free_port()} pyspark-shell",
    }
    report = tmp_path / "report.json"
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    watch = ProcessWatch(outputs)
    loader = [sys.executable, "-m", "loader.cli"]
    done = watch.run(
        [*loader, "run", "--config", str(config), "--spark-master", "local[2]", "--report-json", str(report)],
        env,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    [loaded] = json.loads(report.read_text())["topics"]
    assert (loaded["topic"], loaded["status"], loaded["records"]) == (topic, "loaded", len(RECORDS))
    # The rows themselves are read back in the mutual-TLS test (in this process: one JVM fewer here).

    wide = {**os.environ, "COLUMNS": "300"}  # the table in full, not cut to 80 columns
    status = watch.run([*loader, "status", "--config", str(config), "--spark-master", "local[1]"], wide)
    assert status.returncode == 0, status.stderr[-3000:]
    [row] = [line for line in status.stdout.splitlines() if topic in line]
    shown = " ".join(status.stdout.split())
    password_file = secured_kafka.password_file("loader")
    assert f"Kafka SASL_SSL SCRAM-SHA-512 as 'loader' (<secret from file {password_file}>)" in shown
    assert f"registry HTTP Basic as 'loader' (<secret from file {registry_properties}>)" in shown
    cells = [cell.strip() for cell in row.split("│") if cell.strip()]
    # partitions, saved, end, lag, then the table's valid-through (a UTC time)
    assert cells[2:6] == ["2", str(len(RECORDS)), str(len(RECORDS)), "0"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", cells[6]), cells

    assert list(events.iterdir()), "Spark wrote no event log"
    for secret in (kafka_password, REGISTRY_PASSWORD):
        assert secret not in done.stdout + done.stderr + status.stdout + status.stderr
        assert not [line for line in watch.seen if secret in line], "a password in the process list"
        assert files_containing(tmp_path, secret, skip={registry_properties}) == []


def test_loads_through_mutual_tls_from_a_registry_that_requires_client_certificates(
    secured_kafka: SecuredKafkaBroker,
    mtls_registry: SecuredRegistry,
    spark_warehouse: Path,
    spark: SparkSession,
) -> None:
    harness = harness_for(secured_kafka, mtls_registry, spark_warehouse)
    topic = harness.topic()
    harness.produce(topic, EVENT, RECORDS)
    certificate, key = secured_kafka.client_certificate("loader")
    pki = mtls_registry.pki
    report = harness.run(
        spark,
        bootstrap_servers=secured_kafka.ssl,
        kafka_security=KafkaSecurity(
            "SSL", ssl_ca_location=str(secured_kafka.ca), ssl_certificate_location=str(certificate),
            ssl_key_location=str(key),
        ).validate(),
        registry_access=RegistryClientSettings(
            bearer_auth_token=Secret(mtls_registry.token, "test"), ssl_ca_location=str(pki["ca"].cert),
            ssl_certificate_location=str(pki["client"].cert), ssl_key_location=str(pki["client"].key),
        ),
    )  # fmt: skip
    assert report.error is None
    [loaded] = report.topics
    assert (loaded.topic, loaded.status, loaded.records) == (topic, "loaded", len(RECORDS))
    assert spark.table(loaded.table or "").count() == len(RECORDS)


@pytest.fixture
def produced(
    secured_kafka: SecuredKafkaBroker, https_registry: SecuredRegistry, spark_warehouse: Path
) -> Harness:
    """Records waiting to be loaded, so that a refused run would have had something to stage."""
    harness = harness_for(secured_kafka, https_registry, spark_warehouse)
    harness.produce(harness.topic(), EVENT, RECORDS)
    return harness


def refused_run(
    harness: Harness, spark: SparkSession, broker: SecuredKafkaBroker, **overrides: object
) -> str:
    """Runs with the secured settings changed by ``overrides``; asserts the run stopped at once, exit 1,
    with nothing loaded or staged; returns its error."""
    registry = RegistryClientSettings(
        basic_auth_user_info=Secret(f"loader:{REGISTRY_PASSWORD}", "test"),
        ssl_ca_location=str(Path(harness.registry_conf["ssl.ca.location"])),
    )
    base = harness.settings(
        bootstrap_servers=broker.sasl_ssl,
        kafka_security=scram(broker),
        registry_access=registry,
        metadata_timeout_s=PATIENT_TIMEOUT_S,
    )
    report = harness.run(spark, **{**vars(replace(base, **overrides))})
    assert report.exit_code == EXIT_FAILED
    assert report.seconds < PATIENT_TIMEOUT_S / 3, "the run waited for the timeout instead of stopping"
    assert all(t.records == 0 for t in report.topics)
    assert not (state_dir(harness) / "commits").exists() or not list(
        (state_dir(harness) / "commits").iterdir()
    )
    assert not (state_dir(harness) / "staging").exists() or not list(
        (state_dir(harness) / "staging").rglob("*.orc")
    )
    assert report.error is not None
    return report.error


def test_a_wrong_kafka_password_is_an_authentication_refusal(
    produced: Harness, spark: SparkSession, secured_kafka: SecuredKafkaBroker
) -> None:
    wrong = scram(
        secured_kafka, password=Secret("not-the-password", "environment variable LOADER_SASL_PASSWORD")
    )
    error = refused_run(produced, spark, secured_kafka, kafka_security=wrong)
    assert error == (
        f"Kafka at {secured_kafka.sasl_ssl} refused the loader: authentication failed "
        "(SASL authentication error: "
        "Authentication failed during authentication due to invalid credentials with SASL mechanism "
        "SCRAM-SHA-512); "
        "check sasl_username 'loader' and its password (environment variable LOADER_SASL_PASSWORD)"
    )


def test_a_broker_certificate_of_another_ca_is_a_tls_refusal(
    produced: Harness, spark: SparkSession, secured_kafka: SecuredKafkaBroker, registry_pki: dict[str, Issued]
) -> None:
    untrusted = replace(scram(secured_kafka), ssl_ca_location=str(registry_pki["other-ca"].cert))
    error = refused_run(produced, spark, secured_kafka, kafka_security=untrusted)
    # librdkafka words the handshake failure in more than one way; the reason is in each.
    assert error.startswith(f"Kafka at {secured_kafka.sasl_ssl} refused the loader: TLS failed (")
    assert "certificate verify failed" in error
    assert error.endswith(
        f"the broker's certificate is not signed by a CA in {registry_pki['other-ca'].cert}"
    )


def test_a_kafka_user_without_a_read_acl_is_an_authorization_refusal(
    produced: Harness, spark: SparkSession, secured_kafka: SecuredKafkaBroker
) -> None:
    error = refused_run(produced, spark, secured_kafka, kafka_security=scram(secured_kafka, "describer"))
    [topic] = [
        t for t in produced.kafka.admin().list_topics(timeout=10).topics if t.startswith(produced.prefix)
    ]
    assert error == (
        f"Kafka at {secured_kafka.sasl_ssl} refused the loader: authorization refused: user 'describer' "
        f"may not read topic(s) {topic}; grant it READ and DESCRIBE ACLs on them "
        "(or leave them out: --exclude-topics)"
    )


@pytest.mark.parametrize(
    ("access", "expected"),
    [
        (
            lambda r: registry_login(r, password="not-the-password"),
            "refused the loader: authentication failed (HTTP 401: Unauthorized: invalid credentials); "
            "check basic.auth.user.info or bearer.auth.token",
        ),
        (
            lambda r: RegistryClientSettings(ssl_ca_location=str(r.pki["ca"].cert)),
            "refused the loader: authentication failed (HTTP 401: Unauthorized: credentials required); "
            "check basic.auth.user.info or bearer.auth.token",
        ),
        (
            lambda r: registry_login(r, ca="other-ca"),
            "refused the connection: TLS failed (certificate verify failed: unable to get local issuer "
            "certificate): the registry's certificate is not signed by a CA in ssl.ca.location",
        ),
    ],
    ids=["wrong-password", "no-credentials", "untrusted-certificate"],
)
def test_registry_refusals_name_the_registry_and_the_reason(
    produced: Harness,
    spark: SparkSession,
    secured_kafka: SecuredKafkaBroker,
    https_registry: SecuredRegistry,
    access: object,
    expected: str,
) -> None:
    error = refused_run(produced, spark, secured_kafka, registry_access=access(https_registry))  # type: ignore[operator]
    assert error == f"schema registry at {https_registry.url} {expected}"


def test_the_command_line_says_who_refused_and_exits_1_without_the_password(
    produced: Harness, secured_kafka: SecuredKafkaBroker, https_registry: SecuredRegistry, tmp_path: Path
) -> None:
    produced.warehouse = tmp_path / "warehouse"  # a process of its own needs a metastore of its own
    properties = tmp_path / "registry.properties"
    properties.write_text(
        f"basic.auth.user.info=loader:{REGISTRY_PASSWORD}\nssl.ca.location={https_registry.pki['ca'].cert}\n"
    )
    wrong = "wrong-kafka-password-31c9"
    report = tmp_path / "report.json"
    done = produced.run_cli(
        "--bootstrap-servers", secured_kafka.sasl_ssl, "--security-protocol", "SASL_SSL",
        "--sasl-mechanism", "SCRAM-SHA-512", "--sasl-username", "loader",
        "--ssl-ca-location", str(secured_kafka.ca),
        "--registry-properties", str(properties), "--spark-master", "local[1]", "--report-json", str(report),
        "--metadata-timeout-s", str(PATIENT_TIMEOUT_S),
        env={"LOADER_SASL_PASSWORD": wrong},
    )  # fmt: skip
    assert done.returncode == EXIT_FAILED, done.stderr[-3000:]
    printed = " ".join((done.stdout + done.stderr).split())
    assert f"error: Kafka at {secured_kafka.sasl_ssl} refused the loader: authentication failed" in printed
    written = json.loads(report.read_text())
    assert written["error"].startswith(
        f"Kafka at {secured_kafka.sasl_ssl} refused the loader: authentication"
    )
    assert written["topics"] == []
    for text in (done.stdout, done.stderr, report.read_text()):
        assert wrong not in text
        assert REGISTRY_PASSWORD not in text


def test_a_topic_only_looked_into_for_event_types_that_the_user_may_not_read_is_skipped(
    secured_kafka: SecuredKafkaBroker,
    https_registry: SecuredRegistry,
    spark_warehouse: Path,
    spark: SparkSession,
) -> None:
    """A topic without `<topic>-value` is looked into only because some subject is named by record: that
    the loader may not read it is no reason to stop a run (it was skipped before there were event types)."""
    harness = harness_for(secured_kafka, https_registry, spark_warehouse)
    harness.produce_raw(harness.topic(prefix="raw"), [b"not avro"])
    record_named = {**EVENT, "namespace": f"{harness.prefix}.shop"}  # a RecordNameStrategy subject
    client = SchemaRegistryClient({"url": harness.registry_url, **harness.registry_conf})
    client.register_schema(f"{harness.prefix}.shop.{EVENT['name']}", Schema(json.dumps(record_named), "AVRO"))
    registry = RegistryClientSettings(
        basic_auth_user_info=Secret(f"loader:{REGISTRY_PASSWORD}", "test"),
        ssl_ca_location=str(Path(harness.registry_conf["ssl.ca.location"])),
    )
    report = harness.run(
        spark,
        bootstrap_servers=secured_kafka.sasl_ssl,
        kafka_security=scram(secured_kafka, "describer"),
        registry_access=registry,
        metadata_timeout_s=PATIENT_TIMEOUT_S,
    )
    assert report.exit_code == 0, report.error
    [raw] = report.topics
    assert (raw.status, raw.reason, raw.notes) == (
        "skipped",
        f"no schema registered for subject {raw.topic}-value",
        ["not looked into for event types named by record: no READ access"],
    )


def test_skipping_tombstones_without_leave_to_describe_topic_settings_stops_the_run_naming_it(
    secured_kafka: SecuredKafkaBroker,
    https_registry: SecuredRegistry,
    spark_warehouse: Path,
    spark: SparkSession,
) -> None:
    """`skip-tombstones` skips only the tombstones of topics that are not compacted; user "loader" may not
    describe topic settings, so which topics those are cannot be known: the run stops before it reads,
    naming the refusal, rather than skipping a compacted topic's deletes."""
    harness = harness_for(secured_kafka, https_registry, spark_warehouse)
    topic = harness.topic(prefix="plain")
    harness.produce(topic, EVENT, RECORDS[:1])
    report = harness.run(
        spark,
        bootstrap_servers=secured_kafka.sasl_ssl,
        kafka_security=scram(secured_kafka),
        registry_access=registry_login(https_registry),
        metadata_timeout_s=PATIENT_TIMEOUT_S,
        skip_tombstones=True,
    )
    assert report.exit_code == 1
    assert report.error is not None
    assert f"could not read topic settings from {secured_kafka.sasl_ssl}: {topic} (" in report.error
    assert "AUTHORIZATION_FAILED)" in report.error


def test_an_iceberg_run_whose_user_may_not_describe_topic_settings_goes_on_without_compaction(
    secured_kafka: SecuredKafkaBroker,
    https_registry: SecuredRegistry,
    spark_warehouse: Path,
    spark: SparkSession,
    iceberg_spark: SparkSession,
) -> None:
    """User "loader" may describe and read topics, not describe their settings (no DESCRIBE_CONFIGS
    ACL): an Iceberg run cannot tell which topics are compacted. It goes on: the topic the pattern adds
    gets its current-state table, the compacted topic its history table only, and the run says once for
    which topics compaction was not checked, and which ACL is missing."""
    harness = harness_for(secured_kafka, https_registry, spark_warehouse)
    harness.table_format = "iceberg"
    added = harness.topic(prefix="flags")
    compacted = harness.topic(prefix="accounts", config={"cleanup.policy": "compact"})
    producer = Producer({"bootstrap.servers": secured_kafka.bootstrap})
    for topic in (added, compacted):
        serialize = harness.serializer(topic, EVENT)
        for key, record in zip([b"1", b"2", b"1"], RECORDS[:3], strict=True):
            producer.produce(topic, key=key, value=serialize(record))
    assert producer.flush(30) == 0
    console = Console(record=True, width=300)
    try:
        report = job.run(
            harness.settings(
                bootstrap_servers=secured_kafka.sasl_ssl,
                kafka_security=scram(secured_kafka),
                registry_access=registry_login(https_registry),
                metadata_timeout_s=PATIENT_TIMEOUT_S,
                current_state_topics=f"{harness.prefix}\\.flags\\..*",
            ),
            iceberg_spark,
            console,
        )
        assert report.exit_code == 0, report.to_json()
        assert {t.topic: (t.status, t.records) for t in report.topics} == {
            added: ("loaded", 3),
            compacted: ("loaded", 3),
        }
        said = " ".join(console.export_text().split())
        topics = ", ".join(sorted((added, compacted)))
        note = f"compaction not checked for topic(s) {topics}: Kafka refused to describe their settings ("
        assert said.count(note) == 1, said
        assert "AUTHORIZATION_FAILED); grant the user a DESCRIBE_CONFIGS ACL on them" in said
        for topic in report.topics:
            assert any(n.startswith(note) for n in topic.notes), topic.notes
        current = iceberg_spark.sql(
            f"SELECT _kafka_key_string AS k, `user` FROM {harness.database}.{table_name(added)}_current"
        ).collect()
        assert {r["k"]: r["user"] for r in current} == {"1": "u2", "2": "u1"}
        assert not iceberg_spark.catalog.tableExists(f"{harness.database}.{table_name(compacted)}_current")
    finally:  # an Iceberg run made its session the active one: later tests expect the Hive one's
        spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)
