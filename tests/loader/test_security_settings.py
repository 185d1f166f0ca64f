"""The loader's security settings as users give them: flags, environment, config file; secrets never on
the command line and never in a config file's values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loader.cli import _settings, main
from loader.config import read_config_file
from loader.reading.security_settings import client_properties, take_security
from pipeline_client.secret_values import Secret, SecretError

KEY_PEM = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"
CERT_PEM = "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n"


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def test_the_password_comes_from_its_file_or_its_variable_never_both(tmp_path: Path) -> None:
    secret_file = write(tmp_path / "kafka.password", "from-file\n")
    values: dict[str, Any] = {"security_protocol": "sasl_ssl", "sasl_password_file": secret_file}
    kafka, _ = take_security(dict(values), environ={})
    assert kafka.protocol == "SASL_SSL"
    assert kafka.sasl_password == Secret("from-file", f"file {secret_file}")  # the final line break dropped
    kafka, _ = take_security({"security_protocol": "SASL_SSL"}, environ={"LOADER_SASL_PASSWORD": "from-env"})
    assert kafka.sasl_password == Secret("from-env", "environment variable LOADER_SASL_PASSWORD")
    with pytest.raises(SecretError, match=r"both as a file .* and in LOADER_SASL_PASSWORD: give one"):
        take_security(dict(values), environ={"LOADER_SASL_PASSWORD": "from-env"})


def test_unreadable_and_empty_secret_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(SecretError, match="cannot read the SASL password from /nonexistent/pw"):
        take_security({"sasl_password_file": "/nonexistent/pw"}, environ={})
    empty = write(tmp_path / "empty", "")
    with pytest.raises(SecretError, match=f"the SSL key password file {empty} is empty"):
        take_security({"ssl_key_password_file": empty}, environ={})


def test_security_keys_leave_the_other_settings_alone() -> None:
    values: dict[str, Any] = {"warehouse": "/w", "sasl_username": "u", "kafka": {"client.id": "x"}}
    kafka, registry = take_security(values, environ={})
    assert values == {"warehouse": "/w"}
    assert (kafka.sasl_username, dict(kafka.java_properties)) == ("u", {"client.id": "x"})
    assert registry.describe() == "anonymous"


def test_client_property_tables_flatten_dotted_keys_and_take_secrets_only_by_reference(
    tmp_path: Path,
) -> None:
    secret_file = write(tmp_path / "truststore.password", "ts-secret")
    table = {
        # TOML's unquoted dotted keys nest; quoted ones stay flat: both mean the same property names.
        "ssl": {"endpoint": {"identification": {"algorithm": ""}}},
        "request.timeout.ms": 20000,
        "enable.ssl.certificate.verification": True,
        "ssl.truststore.password": {"file": secret_file},
        "sasl.oauthbearer.client.secret": {"env": "OIDC_SECRET"},
    }
    found = client_properties(table, "kafka", environ={"OIDC_SECRET": "oidc"})
    assert found == {
        "ssl.endpoint.identification.algorithm": "",
        "request.timeout.ms": "20000",
        "enable.ssl.certificate.verification": "true",
        "ssl.truststore.password": Secret("ts-secret", f"file {secret_file}"),
        "sasl.oauthbearer.client.secret": Secret("oidc", "environment variable OIDC_SECRET"),
    }


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"sasl.jaas.config": '...password="x";'}, "kafka.sasl.jaas.config is a secret: give it as"),
        ({"ssl.keystore.key": "-----BEGIN"}, "kafka.ssl.keystore.key is a secret"),
        ({"ssl.truststore.password": {"env": "UNSET_VARIABLE"}}, "UNSET_VARIABLE is not set"),
        ({"sasl.password": {"path": "/a"}}, r"sasl\.password\.path is a secret: give it as \{ file = "),
    ],
)
def test_a_secret_written_into_the_config_file_is_refused(table: dict[str, Any], message: str) -> None:
    with pytest.raises(SecretError, match=message):
        client_properties(table, "kafka", environ={})


def test_the_config_file_takes_security_keys_and_tables(tmp_path: Path) -> None:
    password = write(tmp_path / "pw", "s3cr3t-value")
    ca = write(tmp_path / "ca.pem", CERT_PEM)
    config = tmp_path / "loader.toml"
    config.write_text(
        f"""
[loader]
bootstrap-servers = "b:9093"
registry-url = "https://registry:8081"
warehouse = "{tmp_path / "w"}"
security-protocol = "SASL_SSL"
sasl-mechanism = "SCRAM-SHA-512"
sasl-username = "loader"
sasl-password-file = "{password}"
ssl-ca-location = "{ca}"
kafka."client.id" = "loader"

[loader.librdkafka]
"client.id" = "loader-metadata"
"""
    )
    settings = _settings(config)
    assert settings.kafka_security.sasl_password == Secret("s3cr3t-value", f"file {password}")
    assert dict(settings.kafka_security.java_properties) == {"client.id": "loader"}
    assert dict(settings.kafka_security.librdkafka_properties) == {"client.id": "loader-metadata"}
    assert "s3cr3t-value" not in repr(settings)
    assert f"Secret(source='file {password}')" in repr(settings)


def test_unknown_keys_are_still_refused_including_the_settings_objects_names(tmp_path: Path) -> None:
    config = tmp_path / "loader.toml"
    config.write_text('[loader]\nkafka_security = "x"\nsasl_pasword_file = "y"\n')
    with pytest.raises(ValueError, match="unknown setting\\(s\\) kafka_security, sasl_pasword_file"):
        read_config_file(config)


def test_bad_security_settings_are_usage_errors_before_anything_starts(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        [
            "status",
            "--bootstrap-servers",
            "b:9093",
            "--registry-url",
            "http://r",
            "--warehouse",
            str(tmp_path),
            "--security-protocol",
            "SASL_SSL",
            "--sasl-mechanism",
            "SCRAM-SHA-256",
            "--sasl-username",
            "u",
        ],
        env={"LOADER_SASL_PASSWORD": ""},
    )
    assert result.exit_code == 2
    assert "SASL SCRAM-SHA-256 needs sasl_username and a password" in result.output


def test_registry_tls_settings_need_https(tmp_path: Path) -> None:
    ca = write(tmp_path / "ca.pem", CERT_PEM)
    properties = write(tmp_path / "registry.properties", f"ssl.ca.location={ca}\n")
    result = CliRunner().invoke(
        main,
        ["status", "--bootstrap-servers", "b:9092", "--registry-url", "http://registry:8081",
         "--warehouse", str(tmp_path), "--registry-properties", properties],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "ssl.ca.location is set but the registry URL http://registry:8081 is not https://" in result.output


def test_no_flag_takes_a_secret_itself() -> None:
    """Flags are visible in the process list: secrets have only -file flags and variables."""
    run = main.commands["run"]
    secret_like = [
        option
        for param in run.params
        for option in getattr(param, "opts", [])
        if any(word in option for word in ("password", "secret", "token", "user-info", "credential", "key"))
    ]
    assert sorted(secret_like) == [
        "--iceberg-rest-credential-file",
        "--iceberg-rest-token-file",
        "--iceberg-vended-credentials",  # a switch: the catalog hands out the credentials
        "--s3-access-key-file",
        "--s3-secret-key-file",
        "--sasl-password-file",
        "--ssl-key-location",  # a path to the key file, as librdkafka and Spark want it
        "--ssl-key-password-file",
    ]
