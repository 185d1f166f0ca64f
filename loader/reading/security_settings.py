"""The loader's security settings as a user gives them: flags, ``LOADER_*`` variables and the config file.

Kafka's settings are flat (``security_protocol``, ``sasl_*``, ``ssl_*``) plus two tables of extra client
properties, ``kafka`` (Spark's Kafka source, Java names) and ``librdkafka`` (the metadata client); the
registry's come as a file of Confluent client properties (``registry_properties``) and ``LOADER_REGISTRY_*``
variables. Secrets are read from files or environment variables only: ``--sasl-password-file`` or
``LOADER_SASL_PASSWORD``, ``--ssl-key-password-file`` or ``LOADER_SSL_KEY_PASSWORD``, and in the tables
``{ file = "..." }`` or ``{ env = "..." }``. There is no flag that takes a secret: the process list shows
every flag to every user of the machine.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from loader.reading.kafka_security import MECHANISMS, PROTOCOLS, KafkaSecurity
from loader.setting_fields import Setting, declared
from pipeline_client.client_settings import RegistryClientSettings, settings_from
from pipeline_client.secret_values import (
    Secret,
    looks_secret,
    one_secret,
    secret_reference,
)

SASL_PASSWORD_VARIABLE = "LOADER_SASL_PASSWORD"
SSL_KEY_PASSWORD_VARIABLE = "LOADER_SSL_KEY_PASSWORD"
REGISTRY_VARIABLE_PREFIX = "LOADER_REGISTRY_"


@dataclass(frozen=True)
class SecurityInputs:
    """The security settings as a user gives them (flags, variables, config file keys; none of them takes a
    secret): declared here, made into a `KafkaSecurity` and the registry's settings by `take_security`."""

    security_protocol: Annotated[
        str | None,
        Setting(
            "Kafka: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.",
            choices=PROTOCOLS,
            case_sensitive=False,
            shown_default="`PLAINTEXT`",
        ),
    ] = None
    sasl_mechanism: Annotated[
        str | None,
        Setting(
            "Kafka's SASL mechanism: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (or OAUTHBEARER, below).",
            choices=MECHANISMS,
            case_sensitive=False,
        ),
    ] = None
    sasl_username: Annotated[str | None, Setting("The SASL user.")] = None
    sasl_password_file: Annotated[
        str | None,
        Setting(f"A file holding the SASL password (or set {SASL_PASSWORD_VARIABLE}).", file=True),
    ] = None
    ssl_ca_location: Annotated[
        str | None,
        Setting(
            "PEM file of the CA(s) that signed the brokers' certificates.",
            file=True,
            shown_default="the system's",
        ),
    ] = None
    ssl_certificate_location: Annotated[
        str | None, Setting("PEM client certificate, for mutual TLS.", file=True)
    ] = None
    ssl_key_location: Annotated[
        str | None, Setting("PEM (PKCS#8) key of the client certificate.", file=True)
    ] = None
    ssl_key_password_file: Annotated[
        str | None,
        Setting(
            f"When that key is encrypted: a file holding its password (or set {SSL_KEY_PASSWORD_VARIABLE}).",
            file=True,
        ),
    ] = None
    kafka: Annotated[
        dict[str, Any],
        Setting("Any other property of Spark's Kafka source, in Java's names (below).", flag=False),
    ] = field(default_factory=dict)
    librdkafka: Annotated[
        dict[str, Any],
        Setting(
            "Any other property of librdkafka, which asks Kafka for topics and offsets (below).", flag=False
        ),
    ] = field(default_factory=dict)
    registry_properties: Annotated[
        str | None,
        Setting(
            "A file of the registry's client properties (basic.auth.user.info, ..., below).",
            file=True,
            shown_default="anonymous",
        ),
    ] = None


# Keys of the config file (and flags, as --dashed-names) that become a KafkaSecurity or registry settings.
CONFIG_KEYS = tuple(setting.name for setting in declared(SecurityInputs))


def take_security(
    values: dict[str, Any], environ: Mapping[str, str] | None = None
) -> tuple[KafkaSecurity, RegistryClientSettings]:
    """Removes the security keys from ``values`` (config file and flags merged) and returns what they
    describe, with secrets read; raises ``ValueError`` naming a setting that cannot be used."""
    env = os.environ if environ is None else environ
    given = {key: values.pop(key) for key in CONFIG_KEYS if values.get(key) is not None}
    mechanism = given.get("sasl_mechanism")
    kafka = KafkaSecurity(
        protocol=str(given.get("security_protocol", "PLAINTEXT")).upper(),
        sasl_mechanism=str(mechanism).upper() if mechanism else None,
        sasl_username=given.get("sasl_username"),
        sasl_password=one_secret(
            "the SASL password", given.get("sasl_password_file"), SASL_PASSWORD_VARIABLE, env
        ),
        ssl_ca_location=given.get("ssl_ca_location"),
        ssl_certificate_location=given.get("ssl_certificate_location"),
        ssl_key_location=given.get("ssl_key_location"),
        ssl_key_password=one_secret(
            "the SSL key password", given.get("ssl_key_password_file"), SSL_KEY_PASSWORD_VARIABLE, env
        ),
        java_properties=client_properties(given.get("kafka", {}), "kafka", env),
        librdkafka_properties=client_properties(given.get("librdkafka", {}), "librdkafka", env),
    )
    registry = settings_from(given.get("registry_properties"), REGISTRY_VARIABLE_PREFIX, env)
    return kafka, registry


def client_properties(
    table: object, name: str, environ: Mapping[str, str] | None = None
) -> dict[str, str | Secret]:
    """A config table of client properties as flat dotted names (TOML's unquoted dotted keys nest), values
    as the clients want them (``true``/``false``, numbers as text); secrets only as file or variable."""
    if not isinstance(table, Mapping):
        raise ValueError(f"{name} must be a table of client properties, e.g. [loader.{name}]")
    found: dict[str, str | Secret] = {}
    for key, value in _flattened(table):
        if isinstance(value, Mapping) or looks_secret(key):
            found[key] = secret_reference(value, f"{name}.{key}", environ)
        elif isinstance(value, bool):
            found[key] = "true" if value else "false"
        else:
            found[key] = str(value)
    return found


def _flattened(table: Mapping[str, object], prefix: str = "") -> list[tuple[str, object]]:
    """(dotted name, value) pairs; a ``{ file = ... }`` or ``{ env = ... }`` table is a value, not a level."""
    pairs: list[tuple[str, object]] = []
    for key, value in table.items():
        if isinstance(value, Mapping) and not _is_reference(value):
            pairs += _flattened(value, f"{prefix}{key}.")
        else:
            pairs.append((f"{prefix}{key}", value))
    return pairs


def _is_reference(value: Mapping[str, object]) -> bool:
    return len(value) == 1 and next(iter(value)) in ("file", "env")
