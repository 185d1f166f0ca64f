"""One set of Kafka security settings becomes the configuration of both client libraries (pure; no broker)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from loader.reading.kafka_security import (
    KafkaSecurity,
    KafkaSecurityError,
    jaas_config,
    librdkafka_config,
    spark_kafka_options,
)
from loader.runtime.spark_session import REDACTION
from pipeline_client.secret_values import Secret

PASSWORD = Secret('pa"ss\\word', "file /run/secrets/kafka")
CERT = "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----"
KEY = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----"


@pytest.fixture
def pem(tmp_path: Path) -> dict[str, str]:
    files = {"ca": CERT + "\n", "cert": CERT + "\n", "key": KEY + "\n", "combined": KEY + "\n" + CERT + "\n"}
    for name, text in files.items():
        (tmp_path / f"{name}.pem").write_text(text)
    return {name: str(tmp_path / f"{name}.pem") for name in files}


def scram(**changes: object) -> KafkaSecurity:
    values: dict[str, object] = {
        "protocol": "SASL_SSL",
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_username": "loader",
        "sasl_password": PASSWORD,
    }
    return KafkaSecurity(**{**values, **changes})  # type: ignore[arg-type]


def test_plaintext_is_the_default_and_adds_nothing_but_the_protocol() -> None:
    security = KafkaSecurity().validate()
    assert librdkafka_config(security) == {"security.protocol": "PLAINTEXT"}
    assert spark_kafka_options(security) == {"kafka.security.protocol": "PLAINTEXT"}


def test_sasl_ssl_scram_for_both_clients(pem: dict[str, str]) -> None:
    security = scram(ssl_ca_location=pem["ca"]).validate()
    assert librdkafka_config(security) == {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "loader",
        "sasl.password": 'pa"ss\\word',
        "ssl.ca.location": pem["ca"],
    }
    assert spark_kafka_options(security) == {
        "kafka.security.protocol": "SASL_SSL",
        "kafka.sasl.mechanism": "SCRAM-SHA-512",
        "kafka.sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required "
        'username="loader" password="pa\\"ss\\\\word";',
        "kafka.ssl.truststore.type": "PEM",
        "kafka.ssl.truststore.certificates": CERT,
    }


def test_plain_uses_the_plain_login_module() -> None:
    line = jaas_config("PLAIN", "app", "secret")
    module = "org.apache.kafka.common.security.plain.PlainLoginModule"
    assert line == f'{module} required username="app" password="secret";'


def test_a_line_break_cannot_hide_in_a_jaas_value() -> None:
    with pytest.raises(KafkaSecurityError, match="line break"):
        jaas_config("SCRAM-SHA-256", "app", "one\ntwo")


def test_mutual_tls_gives_java_the_pem_text_and_librdkafka_the_paths(pem: dict[str, str]) -> None:
    security = KafkaSecurity(
        "SSL",
        ssl_ca_location=pem["ca"],
        ssl_certificate_location=pem["combined"],
        ssl_key_location=pem["key"],
    ).validate()
    assert librdkafka_config(security) == {
        "security.protocol": "SSL",
        "ssl.ca.location": pem["ca"],
        "ssl.certificate.location": pem["combined"],
        "ssl.key.location": pem["key"],
    }
    options = spark_kafka_options(security)
    # Only the certificate blocks of a combined file form the chain; the key goes on its own.
    assert options["kafka.ssl.keystore.certificate.chain"] == CERT
    assert options["kafka.ssl.keystore.key"] == KEY
    assert options["kafka.ssl.keystore.type"] == "PEM"
    assert "kafka.ssl.key.password" not in options


def test_an_encrypted_key_needs_its_password(tmp_path: Path, pem: dict[str, str]) -> None:
    encrypted = tmp_path / "encrypted.pem"
    encrypted.write_text("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n-----END ENCRYPTED PRIVATE KEY-----\n")
    base = KafkaSecurity("SSL", ssl_certificate_location=pem["cert"], ssl_key_location=str(encrypted))
    with pytest.raises(KafkaSecurityError, match="encrypted key: give ssl_key_password"):
        base.validate()
    with_password = KafkaSecurity(**{**vars(base), "ssl_key_password": Secret("kp", "env X")}).validate()
    assert librdkafka_config(with_password)["ssl.key.password"] == "kp"
    assert spark_kafka_options(with_password)["kafka.ssl.key.password"] == "kp"


def test_a_pkcs1_key_is_refused_with_the_conversion(tmp_path: Path, pem: dict[str, str]) -> None:
    legacy = tmp_path / "rsa.pem"
    legacy.write_text("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n")
    security = KafkaSecurity("SSL", ssl_certificate_location=pem["cert"], ssl_key_location=str(legacy))
    with pytest.raises(KafkaSecurityError, match=r"RSA PRIVATE KEY \(PKCS#1\).*openssl pkcs8 -topk8"):
        security.validate()


@pytest.mark.parametrize(
    ("security", "message"),
    [
        (KafkaSecurity("SASL_TLS"), "security_protocol 'SASL_TLS' is not one of"),
        (KafkaSecurity("SASL_SSL"), "SASL_SSL needs sasl_mechanism"),
        (KafkaSecurity("SASL_SSL", "GSSAPI"), r"needs sasl_mechanism, one of .* \(not 'GSSAPI'\)"),
        (KafkaSecurity("SSL", "PLAIN"), "SASL settings are given but security_protocol is SSL"),
        (KafkaSecurity(sasl_username="loader"), "SASL settings are given but security_protocol is PLAINTEXT"),
        (scram(sasl_password=None), "SASL SCRAM-SHA-512 needs sasl_username and a password"),
        (scram(sasl_username=None), "needs sasl_username and a password"),
        (KafkaSecurity("SASL_SSL", "OAUTHBEARER", "u", PASSWORD), "OAUTHBEARER takes no sasl_username"),
        (KafkaSecurity("SASL_SSL", "OAUTHBEARER"), "OAUTHBEARER needs kafka.sasl.jaas.config"),
        (
            scram(java_properties={"bootstrap.servers": "x:1"}),
            "kafka.bootstrap.servers: set bootstrap_servers",
        ),
        (scram(java_properties={"sasl.jaas.config": "x"}), "kafka.sasl.jaas.config clashes"),
        (scram(librdkafka_properties={"sasl.password": "x"}), "librdkafka.sasl.password clashes"),
        (scram(java_properties={"enable.auto.commit": "true"}), "Spark's Kafka source manages"),
    ],
)
def test_settings_that_cannot_work_are_refused_by_name(security: KafkaSecurity, message: str) -> None:
    with pytest.raises(KafkaSecurityError, match=message):
        security.validate()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"protocol": "SASL_PLAINTEXT", "ssl_ca_location": "ca"},
            "ssl_ca_location is set but .* SASL_PLAINTEXT",
        ),
        ({"ssl_certificate_location": "cert"}, "needs both ssl_certificate_location and ssl_key_location"),
        (
            {"ssl_key_password": Secret("x", "env")},
            "ssl_key_password is set but there is no ssl_key_location",
        ),
        ({"ssl_ca_location": "/nonexistent/ca.pem"}, "ssl_ca_location: no readable file /nonexistent/ca.pem"),
    ],
)
def test_tls_settings_the_protocol_would_ignore_or_cannot_read_are_refused(
    changes: dict[str, object], message: str
) -> None:
    with pytest.raises(KafkaSecurityError, match=message):
        scram(**changes).validate()


def test_a_java_trust_store_file_does_not_mix_with_the_ca_setting(pem: dict[str, str]) -> None:
    security = scram(ssl_ca_location=pem["ca"], java_properties={"ssl.truststore.location": "/x.jks"})
    with pytest.raises(KafkaSecurityError, match=r"kafka\.ssl\.truststore\.location clashes"):
        security.validate()
    # Without the CA setting, each library gets its own trust settings through its table.
    own = scram(
        java_properties={"ssl.truststore.location": "/x.jks", "ssl.truststore.password": Secret("s", "env")},
        librdkafka_properties={"ssl.ca.location": pem["ca"]},
    ).validate()
    assert spark_kafka_options(own)["kafka.ssl.truststore.password"] == "s"
    assert librdkafka_config(own)["ssl.ca.location"] == pem["ca"]


def test_oauthbearer_takes_the_token_endpoint_from_each_librarys_table() -> None:
    module = "org.apache.kafka.common.security.oauthbearer"
    jaas = Secret(f'{module}.OAuthBearerLoginModule required clientId="l" clientSecret="s";', "file j")
    security = KafkaSecurity(
        "SASL_SSL",
        "OAUTHBEARER",
        java_properties={
            "sasl.jaas.config": jaas,
            "sasl.login.callback.handler.class": f"{module}.OAuthBearerLoginCallbackHandler",
            "sasl.oauthbearer.token.endpoint.url": "https://idp/token",
        },
        librdkafka_properties={
            "sasl.oauthbearer.method": "oidc",
            "sasl.oauthbearer.client.id": "l",
            "sasl.oauthbearer.client.secret": Secret("s", "env S"),
            "sasl.oauthbearer.token.endpoint.url": "https://idp/token",
        },
    ).validate()
    assert librdkafka_config(security)["sasl.mechanism"] == "OAUTHBEARER"
    assert librdkafka_config(security)["sasl.oauthbearer.client.secret"] == "s"
    options = spark_kafka_options(security)
    assert options["kafka.sasl.mechanism"] == "OAUTHBEARER"
    assert options["kafka.sasl.jaas.config"] == jaas.reveal()


def test_printing_the_settings_never_shows_a_secret(pem: dict[str, str]) -> None:
    security = scram(ssl_ca_location=pem["ca"], java_properties={"ssl.truststore.password": PASSWORD})
    for text in (repr(security), str(security), security.describe()):
        assert PASSWORD.reveal() not in text
    assert "file /run/secrets/kafka" in security.describe()


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("spark.kafka.sasl.jaas.config", "ScramLoginModule required username=u;"),  # by the key
        ("spark.loader.login", 'ScramLoginModule required username="u" password="p";'),  # by the value
        ("spark.loader.client.key", "-----BEGIN PRIVATE KEY-----\nMIIE"),
        ("spark.hadoop.fs.s3a.secret.key", "x"),  # what Spark's own default already hides
    ],
)
def test_spark_hides_kafka_secrets_a_user_puts_into_its_settings(key: str, value: str) -> None:
    """Spark redacts a setting on its UI's environment page and in event logs when the key or the value
    matches ``spark.redaction.regex`` (Java's regex; these patterns read the same in Python's)."""
    pattern = REDACTION["spark.redaction.regex"]
    assert re.search(pattern, key) or re.search(pattern, value)
    assert not re.search(pattern, "spark.sql.shuffle.partitions") and not re.search(pattern, "200")
    assert re.search(REDACTION["spark.sql.redaction.options.regex"], "kafka.ssl.keystore.key")
