"""Registry client settings under Confluent's property names: parsing, the session they make, and how a
refusal is told (pure; the settings over real HTTPS are in tests/registry/test_https_serving.py)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
import requests

from pipeline_client.client_settings import (
    RegistryClientSettings,
    RegistrySettingsError,
    read_properties_file,
    settings_from,
)
from pipeline_client.http_session import describe_refusal, describe_tls_failure
from pipeline_client.secret_values import (
    Secret,
    SecretError,
    looks_secret,
    secret_from_file,
    secret_reference,
)

URL = "https://registry.example:8081"


def authorization(settings: RegistryClientSettings, url: str = URL, **kwargs: object) -> str | None:
    """The Authorization header the settings' session sends."""
    session = settings.session(url, **kwargs)  # type: ignore[arg-type]
    prepared = session.prepare_request(requests.Request("GET", url.split("@")[-1] + "/subjects"))
    return prepared.headers.get("Authorization")


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def test_a_producers_properties_file_is_read_as_is(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("pem")
    properties = tmp_path / "registry.properties"
    properties.write_text(
        "# copied from the producer's config\n"
        f"schema.registry.url=https://registry.example:8081\n"
        "basic.auth.credentials.source = USER_INFO\n"
        "schema.registry.basic.auth.user.info: ci:s3cr:et\n"
        f"! Java writes comments this way too\nssl.ca.location={ca}\n"
    )
    settings = read_properties_file(properties)
    assert settings.url == URL
    assert settings.basic_auth_user_info == Secret("ci:s3cr:et", f"file {properties}")
    assert settings.ssl_ca_location == str(ca)
    assert authorization(settings) == basic("ci", "s3cr:et")
    assert settings.session(URL).verify == str(ca)
    assert "s3cr" not in repr(settings) and "s3cr" not in settings.describe()
    assert (
        settings.describe() == f"HTTP Basic as 'ci' (<secret from file {properties}>), ssl.ca.location={ca}"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("basic.auth.user.infos=x:y\n", "unknown registry client property 'basic.auth.user.infos'"),
        ("ssl.key.password=x\n", "ssl.key.password is not supported: the client key must be unencrypted"),
        ("schema.registry.ssl.truststore.location=/t.jks\n", "give the CA as a PEM file in ssl.ca.location"),
        ("just a line\n", r":1: expected name=value"),
    ],
)
def test_properties_it_cannot_honour_are_refused_not_ignored(tmp_path: Path, text: str, message: str) -> None:
    properties = tmp_path / "registry.properties"
    properties.write_text(text)
    with pytest.raises(RegistrySettingsError, match=message):
        read_properties_file(properties)


def test_the_environment_overrides_the_file(tmp_path: Path) -> None:
    properties = tmp_path / "registry.properties"
    properties.write_text("basic.auth.user.info=file:one\nssl.ca.location=/file/ca.pem\n")
    env = {"REGISTRY_BASIC_AUTH_USER_INFO": "env:two", "REGISTRY_URL": "ignored-here"}
    settings = settings_from(properties, "REGISTRY_", env)
    assert settings.basic_auth_user_info == Secret(
        "env:two", "environment variable REGISTRY_BASIC_AUTH_USER_INFO"
    )
    assert settings.ssl_ca_location == "/file/ca.pem"
    assert settings_from(None, "LOADER_REGISTRY_", {}) == RegistryClientSettings()


def test_credentials_by_each_source() -> None:
    user_info = Secret("alice:pw", "env X")
    assert authorization(RegistryClientSettings()) is None
    assert authorization(RegistryClientSettings(basic_auth_user_info=user_info)) == basic("alice", "pw")
    assert authorization(RegistryClientSettings(), "https://bob:p%40ss@registry.example:8081") == basic(
        "bob", "p@ss"
    )
    inherit = RegistryClientSettings(basic_auth_credentials_source="SASL_INHERIT")
    assert authorization(inherit, sasl_login=("kafka-user", Secret("k", "file"))) == basic("kafka-user", "k")
    token = RegistryClientSettings(
        bearer_auth_credentials_source="STATIC_TOKEN", bearer_auth_token=Secret("t0k", "f")
    )
    assert authorization(token) == "Bearer t0k"


@pytest.mark.parametrize(
    ("settings", "url", "message"),
    [
        (
            RegistryClientSettings(basic_auth_credentials_source="USER_INFO"),
            URL,
            "USER_INFO needs basic.auth.user",
        ),
        (RegistryClientSettings(basic_auth_credentials_source="URL"), URL, "URL needs user:password@ in the"),
        (
            RegistryClientSettings(basic_auth_credentials_source="SASL_INHERIT"),
            URL,
            "SASL_INHERIT needs a Kafka",
        ),
        (RegistryClientSettings(basic_auth_credentials_source="LDAP"), URL, "LDAP is not one of USER_INFO"),
        (
            RegistryClientSettings(basic_auth_user_info=Secret("no-colon", "f")),
            URL,
            r"\(f\) must be user:password",
        ),
        (
            RegistryClientSettings(basic_auth_user_info=Secret("a:b", "f")),
            "https://c:d@registry.example",
            "credentials both in the URL and in basic.auth.user.info",
        ),
        (
            RegistryClientSettings(
                basic_auth_user_info=Secret("a:b", "f"), bearer_auth_token=Secret("t", "f")
            ),
            URL,
            "HTTP Basic credentials or a bearer token, not both",
        ),
        (
            RegistryClientSettings(bearer_auth_credentials_source="OAUTHBEARER"),
            URL,
            "OAUTHBEARER is not supported",
        ),
        (
            RegistryClientSettings(bearer_auth_credentials_source="STATIC_TOKEN"),
            URL,
            "needs bearer.auth.token",
        ),
        (RegistryClientSettings(ssl_ca_location="/ca.pem"), "http://registry:8081", "is not https://"),
        (
            RegistryClientSettings(ssl_ca_location="/nonexistent.pem"),
            URL,
            "no readable file /nonexistent.pem",
        ),
    ],
)
def test_settings_that_cannot_work_are_named(
    settings: RegistryClientSettings, url: str, message: str
) -> None:
    with pytest.raises(RegistrySettingsError, match=message):
        settings.session(url)


def test_a_key_needs_its_certificate(tmp_path: Path) -> None:
    key = tmp_path / "key.pem"
    key.write_text("k")
    with pytest.raises(RegistrySettingsError, match=r"ssl\.key\.location needs ssl\.certificate\.location"):
        RegistryClientSettings(ssl_key_location=str(key)).session(URL)


def test_the_session_keeps_its_ca_when_requests_ca_bundle_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("pem")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/etc/ssl/other.pem")
    session = RegistryClientSettings(ssl_ca_location=str(ca)).session(URL)
    assert session.merge_environment_settings(URL, {}, None, None, None)["verify"] == str(ca)
    # Without a CA of its own, the environment's bundle applies as requests always did.
    plain = RegistryClientSettings().session(URL)
    assert plain.merge_environment_settings(URL, {}, None, None, None)["verify"] == "/etc/ssl/other.pem"


def test_refusals_name_authentication_or_authorization() -> None:
    body = '{"error_code": 40101, "message": "Unauthorized: invalid credentials"}'
    assert describe_refusal(401, body) == (
        "authentication failed (HTTP 401: Unauthorized: invalid credentials); "
        "check basic.auth.user.info or bearer.auth.token"
    )
    assert describe_refusal(403, "<html>denied</html>") == (
        "authorization refused (HTTP 403: <html>denied</html>); the user lacks a permission the request needs"
    )
    assert describe_refusal(404, body) is None


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        (
            "Max retries exceeded (Caused by SSLError(SSLCertVerificationError(1, '[SSL: "
            "CERTIFICATE_VERIFY_FAILED] "
            "certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)')))",
            "TLS failed (certificate verify failed: unable to get local issuer certificate): the registry's "
            "certificate is not signed by a CA in ssl.ca.location",
        ),
        (
            "('Connection aborted.', SSLError(1, '[SSL: TLSV13_ALERT_CERTIFICATE_REQUIRED] tlsv13 alert "
            "certificate required (_ssl.c:2578)'))",
            "TLS failed (tlsv13 alert certificate required): the registry did not accept the client "
            "certificate "
            "(ssl.certificate.location)",
        ),
        (
            "(Caused by SSLError(SSLError(1, '[SSL: WRONG_VERSION_NUMBER] wrong version number "
            "(_ssl.c:1006)')))",
            "TLS failed (wrong version number): is the registry serving HTTPS on that port?",
        ),
    ],
)
def test_tls_failures_are_told_with_the_property_to_check(text: str, hint: str) -> None:
    assert describe_tls_failure(requests.exceptions.SSLError(text)) == hint


def test_other_connection_failures_are_not_tls() -> None:
    refused = requests.exceptions.ConnectionError("Failed to establish a new connection: [Errno 111] refused")
    assert describe_tls_failure(refused) is None


def test_secrets_read_from_files_and_references(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("t0ken\r\n")
    secret = secret_from_file(path, "the token")
    assert (secret.reveal(), str(secret), repr(secret)) == (
        "t0ken",
        f"<secret from file {path}>",
        f"Secret(source='file {path}')",
    )
    assert secret_reference({"env": "T"}, "x", {"T": "v"}) == Secret("v", "environment variable T")
    with pytest.raises(SecretError, match="x is a secret: give it as"):
        secret_reference("literal", "x", {})


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("sasl.password", True),
        ("sasl.jaas.config", True),
        ("basic.auth.user.info", True),
        ("bearer.auth.token", True),
        ("ssl.keystore.key", True),
        ("ssl.key.pem", True),
        ("sasl.oauthbearer.client.secret", True),
        ("sasl.oauthbearer.token.endpoint.url", False),
        ("ssl.key.location", False),
        ("ssl.truststore.certificates", False),
        ("client.id", False),
    ],
)
def test_which_property_names_hold_secrets(name: str, secret: bool) -> None:
    assert looks_secret(name) is secret
