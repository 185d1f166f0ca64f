"""The secured broker of ``scripts/kafka``, reached by both of the loader's Kafka clients (librdkafka for
metadata and offsets, Spark's Kafka source for records) through every listener and SASL mechanism, with
the settings the loader makes from one ``KafkaSecurity``."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from confluent_kafka import Producer
from pyspark.sql import SparkSession

from loader.planning.offsets import Watermarks
from loader.reading.kafka_metadata import list_topics, watermarks
from loader.reading.kafka_security import KafkaSecurity, spark_kafka_options
from pipeline_client.secret_values import secret_from_file
from tests.fixtures.kafka import SecuredKafkaBroker

pytestmark = pytest.mark.integration

RECORDS = 7


@pytest.fixture(scope="module")
def topic(secured_kafka: SecuredKafkaBroker) -> str:
    """A topic with RECORDS records, produced through the plaintext (administrator's) listener."""
    name = secured_kafka.create_topic()
    producer = Producer({"bootstrap.servers": secured_kafka.bootstrap})
    for i in range(RECORDS):
        producer.produce(name, value=f"v{i}".encode())
    assert producer.flush(30) == 0
    return name


def settings_for(
    broker: SecuredKafkaBroker, listener: str, mechanism: str | None
) -> tuple[str, KafkaSecurity]:
    """The loader's settings for one listener, as user "loader"."""
    if listener == "SSL":
        cert, key = broker.client_certificate("loader")
        return broker.ssl, KafkaSecurity(
            "SSL",
            ssl_ca_location=str(broker.ca),
            ssl_certificate_location=str(cert),
            ssl_key_location=str(key),
        )
    password = secret_from_file(broker.password_file("loader"), "password")
    security = KafkaSecurity(listener, mechanism, "loader", password)
    if listener == "SASL_SSL":
        security = KafkaSecurity(listener, mechanism, "loader", password, ssl_ca_location=str(broker.ca))
    address = broker.sasl_ssl if listener == "SASL_SSL" else broker.sasl_plaintext
    return address, security.validate()


@pytest.mark.parametrize(
    ("listener", "mechanism"),
    [
        ("SASL_PLAINTEXT", "PLAIN"),
        ("SASL_PLAINTEXT", "SCRAM-SHA-256"),
        ("SASL_SSL", "SCRAM-SHA-512"),
        ("SASL_SSL", "PLAIN"),
        ("SSL", None),  # mutual TLS: the client certificate is the login
    ],
)
def test_both_clients_read_through_every_listener(
    secured_kafka: SecuredKafkaBroker, spark: SparkSession, topic: str, listener: str, mechanism: str | None
) -> None:
    address, security = settings_for(secured_kafka, listener, mechanism)
    assert list_topics(address, include=topic, timeout_s=20, security=security).partitions == {topic: 1}
    assert watermarks(address, [(topic, 0)], 20, security) == {(topic, 0): Watermarks(0, RECORDS)}
    frame = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", address)
        .options(**spark_kafka_options(security))
        .option("assign", f'{{"{topic}":[0]}}')
        .option("startingOffsets", f'{{"{topic}":{{"0":0}}}}')
        .option("endingOffsets", f'{{"{topic}":{{"0":{RECORDS}}}}}')
        .load()
    )
    assert sorted(r.value.decode() for r in frame.collect()) == [f"v{i}" for i in range(RECORDS)]


def test_the_plain_listener_beside_them_still_answers_without_credentials(
    secured_kafka: SecuredKafkaBroker, topic: str
) -> None:
    assert topic in list_topics(secured_kafka.bootstrap, timeout_s=20).partitions


def test_secrets_and_keys_are_readable_by_their_owner_only(secured_kafka: SecuredKafkaBroker) -> None:
    data = secured_kafka.data_dir
    private = [
        secured_kafka.storage_dir / "server.properties",  # the PLAIN users' passwords, the key store's
        *(data / "secrets").iterdir(),
        *(data / "tls").glob("*.key"),
        data / "tls" / "broker.p12",
    ]
    assert len(private) >= 8
    for path in private:
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
    for directory in (data / "secrets", data / "tls"):
        assert stat.S_IMODE(Path(directory).stat().st_mode) == 0o700
