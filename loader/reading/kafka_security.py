"""How the loader's Kafka clients authenticate and encrypt: one setting, two client libraries.

The loader reaches Kafka through two clients: librdkafka (confluent-kafka: topics, partitions and offsets,
on the driver) and the Java client inside Spark's Kafka source (the records, on the driver and the
executors). Their configuration vocabularies differ (librdkafka takes ``sasl.username``/``sasl.password``
and PEM file paths; Java takes a JAAS line and key stores), so one ``KafkaSecurity`` is turned into each
here, by pure functions, and every client gets the same protocol, mechanism, user and certificates.

The Java side gets the certificates' and key's PEM *text* (``ssl.truststore.certificates``,
``ssl.keystore.certificate.chain``, ``ssl.keystore.key``), read on the driver, rather than file paths: the
options travel with Spark's tasks, so executors on other hosts need no copy of the files.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pipeline_client.secret_values import Secret

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")
_LOGIN_MODULES = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
}
# What the loader sets itself: an extra property may not say otherwise.
_OWN_PROPERTIES = {"bootstrap.servers"}
# Spark's Kafka source refuses these `kafka.` options (it manages them); refused here before Spark starts.
_SPARK_MANAGED = {
    "auto.offset.reset",
    "enable.auto.commit",
    "interceptor.classes",
    "key.deserializer",
    "value.deserializer",
}
_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z ]+)-----.+?-----END \1-----", re.S)


class KafkaSecurityError(ValueError):
    """Security settings that cannot work together; the message names the settings and the fix."""


@dataclass(frozen=True)
class KafkaSecurity:
    """The loader's Kafka security settings; the default is an open, plaintext cluster."""

    protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    sasl_username: str | None = None
    sasl_password: Secret | None = None
    ssl_ca_location: str | None = None  # PEM: the CA(s) that signed the brokers' certificates
    ssl_certificate_location: str | None = None  # PEM: the client certificate, for mutual TLS
    ssl_key_location: str | None = None  # PEM (PKCS#8): its private key
    ssl_key_password: Secret | None = None  # when that key is encrypted
    # Any other client property, in each library's own names: `kafka.` in the config file goes to Spark's
    # Kafka source (the Java client, as Spark's own `kafka.` prefix), `librdkafka.` to the metadata client.
    java_properties: Mapping[str, str | Secret] = field(default_factory=dict)
    librdkafka_properties: Mapping[str, str | Secret] = field(default_factory=dict)

    @property
    def uses_sasl(self) -> bool:
        return self.protocol.startswith("SASL_")

    @property
    def uses_tls(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def sasl_login(self) -> tuple[str, Secret] | None:
        """The SASL user and password (PLAIN, SCRAM), which a registry may be told to inherit."""
        if self.sasl_username and self.sasl_password is not None:
            return self.sasl_username, self.sasl_password
        return None

    def validate(self) -> KafkaSecurity:
        """Refuses any setting the chosen protocol would ignore: nothing given is silently dropped."""
        if self.protocol not in PROTOCOLS:
            raise KafkaSecurityError(
                f"security_protocol {self.protocol!r} is not one of {', '.join(PROTOCOLS)}"
            )
        self._validate_sasl()
        tls_files = [
            name
            for name in ("ssl_ca_location", "ssl_certificate_location", "ssl_key_location")
            if getattr(self, name)
        ]
        if tls_files and not self.uses_tls:
            raise KafkaSecurityError(
                f"{tls_files[0]} is set but security_protocol is {self.protocol}: use SSL or SASL_SSL"
            )
        if bool(self.ssl_certificate_location) != bool(self.ssl_key_location):
            raise KafkaSecurityError("mutual TLS needs both ssl_certificate_location and ssl_key_location")
        if self.ssl_key_password is not None and not self.ssl_key_location:
            raise KafkaSecurityError("ssl_key_password is set but there is no ssl_key_location")
        for name in tls_files:
            if not Path(getattr(self, name)).is_file():
                raise KafkaSecurityError(f"{name}: no readable file {getattr(self, name)}")
        self._validate_extras()
        return self

    def _validate_sasl(self) -> None:
        login_given = self.sasl_username is not None or self.sasl_password is not None
        if not self.uses_sasl:
            if self.sasl_mechanism or login_given:
                raise KafkaSecurityError(
                    f"SASL settings are given but security_protocol is {self.protocol}: "
                    "use SASL_SSL (or SASL_PLAINTEXT)"
                )
            return
        if self.sasl_mechanism not in MECHANISMS:
            raise KafkaSecurityError(
                f"security_protocol {self.protocol} needs sasl_mechanism, one of {', '.join(MECHANISMS)}"
                + (f" (not {self.sasl_mechanism!r})" if self.sasl_mechanism else "")
            )
        if self.sasl_mechanism == "OAUTHBEARER":
            if login_given:
                raise KafkaSecurityError(
                    "OAUTHBEARER takes no sasl_username or password: give the token endpoint's settings "
                    "as kafka and librdkafka properties (see the manual)"
                )
            if "sasl.jaas.config" not in self.java_properties:
                raise KafkaSecurityError(
                    "OAUTHBEARER needs kafka.sasl.jaas.config (OAuthBearerLoginModule with clientId and "
                    "clientSecret) for Spark's Kafka source"
                )
            if "sasl.oauthbearer.method" not in self.librdkafka_properties:
                raise KafkaSecurityError(
                    'OAUTHBEARER needs librdkafka.sasl.oauthbearer.method = "oidc" and its token endpoint '
                    "settings for the metadata client"
                )
            return
        if not self.sasl_username or self.sasl_password is None:
            raise KafkaSecurityError(
                f"SASL {self.sasl_mechanism} needs sasl_username and a password "
                "(--sasl-password-file, or the LOADER_SASL_PASSWORD environment variable)"
            )

    def _validate_extras(self) -> None:
        for table, names in (("kafka", self.java_properties), ("librdkafka", self.librdkafka_properties)):
            for name in names:
                if name in _OWN_PROPERTIES:
                    raise KafkaSecurityError(f"{table}.{name}: set bootstrap_servers instead")
                if table == "kafka" and name in _SPARK_MANAGED:
                    raise KafkaSecurityError(
                        f"kafka.{name}: Spark's Kafka source manages this property itself"
                    )
        # Both builders refuse an extra property that clashes with what they make of the settings, and the
        # Java one reads the PEM files: a key in a form Java cannot read is found now, not on an executor.
        librdkafka_config(self)
        spark_kafka_options(self)

    def describe(self) -> str:
        """The settings as a person may see them (never a secret's text)."""
        parts = [self.protocol]
        if self.sasl_mechanism:
            parts.append(self.sasl_mechanism)
        if self.sasl_username:
            parts.append(f"as {self.sasl_username!r} ({self.sasl_password})")
        if self.ssl_certificate_location:
            parts.append(f"client certificate {self.ssl_certificate_location}")
        return " ".join(parts)


def librdkafka_config(security: KafkaSecurity) -> dict[str, str]:
    """The librdkafka (confluent-kafka) properties for these settings, secrets revealed: built right
    where a client is made, never kept or printed."""
    config = {"security.protocol": security.protocol}
    if security.uses_sasl and security.sasl_mechanism:
        config["sasl.mechanism"] = security.sasl_mechanism
        if security.sasl_login:
            config["sasl.username"] = security.sasl_login[0]
            config["sasl.password"] = security.sasl_login[1].reveal()
    optional = {
        "ssl.ca.location": security.ssl_ca_location,
        "ssl.certificate.location": security.ssl_certificate_location,
        "ssl.key.location": security.ssl_key_location,
        "ssl.key.password": security.ssl_key_password.reveal() if security.ssl_key_password else None,
    }
    config.update({key: value for key, value in optional.items() if value})
    return _merged(config, _revealed(security.librdkafka_properties), "librdkafka", "")


# librdkafka's own log lines (`%6|...|BGQUEUE|...` as an admin client closes) reach people and log
# pipelines through this logger, as the run's other lines do (JSON lines with `--log-format json`),
# never written straight onto stderr by the C library.
CLIENT_LOGGER = logging.getLogger("loader.kafka")


def client_config(security: KafkaSecurity) -> dict[str, object]:
    """A confluent-kafka client's configuration: `librdkafka_config` and the loader's logger."""
    return {**librdkafka_config(security), "logger": CLIENT_LOGGER}


def spark_kafka_options(
    security: KafkaSecurity, read_text: Callable[[str], str] = lambda p: Path(p).read_text()
) -> dict[str, str]:
    """Options for Spark's Kafka source (the Java client, prefixed ``kafka.``), secrets revealed.

    ``read_text`` reads the PEM files (on the driver); their text becomes the Java client's PEM trust and key
    stores, so executors need no copy of the files.
    """
    options = {"kafka.security.protocol": security.protocol, **_sasl_java(security)}
    if security.ssl_ca_location:
        options["kafka.ssl.truststore.type"] = "PEM"
        options["kafka.ssl.truststore.certificates"] = _certificates(
            read_text(security.ssl_ca_location), "ssl_ca_location"
        )
    if security.ssl_certificate_location and security.ssl_key_location:
        options["kafka.ssl.keystore.type"] = "PEM"
        options["kafka.ssl.keystore.certificate.chain"] = _certificates(
            read_text(security.ssl_certificate_location), "ssl_certificate_location"
        )
        options["kafka.ssl.keystore.key"] = _private_key(
            read_text(security.ssl_key_location), security.ssl_key_password is not None
        )
        if security.ssl_key_password is not None:
            options["kafka.ssl.key.password"] = security.ssl_key_password.reveal()
    return _merged(options, _revealed(security.java_properties), "kafka", "kafka.")


def jaas_config(mechanism: str, username: str, password: str) -> str:
    """The Java client's ``sasl.jaas.config`` line for PLAIN or SCRAM, quotes and backslashes escaped as the
    JAAS parser reads them."""
    if "\n" in password or "\r" in password or "\n" in username:
        raise KafkaSecurityError("a SASL user name or password cannot contain a line break")

    def quoted(value: str) -> str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    return f"{_LOGIN_MODULES[mechanism]} required username={quoted(username)} password={quoted(password)};"


def _sasl_java(security: KafkaSecurity) -> dict[str, str]:
    if not security.uses_sasl or not security.sasl_mechanism:
        return {}
    options = {"kafka.sasl.mechanism": security.sasl_mechanism}
    if security.sasl_mechanism in _LOGIN_MODULES and security.sasl_login:
        user, password = security.sasl_login
        options["kafka.sasl.jaas.config"] = jaas_config(security.sasl_mechanism, user, password.reveal())
    return options


def _certificates(text: str, setting: str) -> str:
    """Only the CERTIFICATE blocks of a PEM file (a combined file may also hold a key)."""
    blocks = [m.group(0) for m in _PEM_BLOCK.finditer(text) if m.group(1) == "CERTIFICATE"]
    if not blocks:
        raise KafkaSecurityError(f"{setting}: no PEM certificate (-----BEGIN CERTIFICATE-----) in the file")
    return "\n".join(blocks)


def _private_key(text: str, has_password: bool) -> str:
    """The PKCS#8 private key block, the only form the Java client's PEM key store reads."""
    kinds = {m.group(1): m.group(0) for m in _PEM_BLOCK.finditer(text)}
    if "PRIVATE KEY" in kinds:
        return kinds["PRIVATE KEY"]
    if "ENCRYPTED PRIVATE KEY" in kinds:
        if not has_password:
            raise KafkaSecurityError("ssl_key_location holds an encrypted key: give ssl_key_password too")
        return kinds["ENCRYPTED PRIVATE KEY"]
    legacy = [k for k in kinds if k.endswith("PRIVATE KEY")]
    if legacy:
        raise KafkaSecurityError(
            f"ssl_key_location holds a {legacy[0]} (PKCS#1) key; Spark's Kafka client reads PKCS#8 only: "
            "openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem"
        )
    raise KafkaSecurityError("ssl_key_location: no PEM private key (-----BEGIN PRIVATE KEY-----) in the file")


def _merged(generated: dict[str, str], extras: dict[str, str], table: str, prefix: str) -> dict[str, str]:
    """The generated properties plus the extra ones, refusing an extra that would override one of them or
    mix with a generated trust or key store (Java refuses a store given both as text and as a file)."""
    families = {key.removeprefix(prefix).rsplit(".", 1)[0] for key in generated if ".truststore." in key}
    families |= {key.removeprefix(prefix).rsplit(".", 1)[0] for key in generated if ".keystore." in key}
    for name in extras:
        if prefix + name in generated or name.rsplit(".", 1)[0] in families:
            raise KafkaSecurityError(
                f"{table}.{name} clashes with what the loader makes of its security settings "
                "(security_protocol, sasl_*, ssl_*): set one or the other"
            )
    return {**generated, **{prefix + k: v for k, v in extras.items()}}


def _revealed(properties: Mapping[str, str | Secret]) -> dict[str, str]:
    return {k: v.reveal() if isinstance(v, Secret) else str(v) for k, v in properties.items()}
