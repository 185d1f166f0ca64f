"""The one kind of HTTP session every client of a registry sends through (pure: no registry is reached; the
session over real HTTPS is in tests/registry/test_https_serving.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from loader.reading.registry_client import RegistryClient as LoaderRegistryClient
from pipeline_client.client_settings import RegistryClientSettings
from pipeline_client.http_session import ACCEPT, BasicAuth, BearerAuth, registry_session
from pipeline_client.secret_values import Secret
from registry.schema_check.registry_source import RegistryClient as CheckRegistryClient

URL = "https://registry.example:8081"


def test_the_check_and_the_loader_ask_through_the_same_kind_of_session() -> None:
    check, loader = CheckRegistryClient(URL), LoaderRegistryClient(URL)
    assert type(check.session) is type(loader.session) is type(registry_session())
    assert check.session.headers["Accept"] == loader.session.headers["Accept"] == ACCEPT
    assert ACCEPT == "application/vnd.schemaregistry.v1+json, application/json"


def test_without_a_ca_of_its_own_the_checks_session_takes_the_environments_bundle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/etc/ssl/other.pem")
    session = CheckRegistryClient(URL).session
    assert session.merge_environment_settings(URL, {}, None, None, None)["verify"] == "/etc/ssl/other.pem"


@pytest.mark.parametrize(
    ("certificate", "key", "expected"),
    [
        (None, None, None),
        ("client.pem", None, "client.pem"),
        ("client.pem", "client.key", ("client.pem", "client.key")),
    ],
)
def test_the_settings_files_reach_the_session(
    tmp_path: Path, certificate: str | None, key: str | None, expected: str | tuple[str, str] | None
) -> None:
    for name in ("ca.pem", "client.pem", "client.key"):
        (tmp_path / name).write_text("pem")
    settings = RegistryClientSettings(
        ssl_ca_location=str(tmp_path / "ca.pem"),
        ssl_certificate_location=str(tmp_path / certificate) if certificate else None,
        ssl_key_location=str(tmp_path / key) if key else None,
    )
    session = settings.session(URL)
    assert session.verify == str(tmp_path / "ca.pem")
    if isinstance(expected, tuple):
        assert session.cert == tuple(str(tmp_path / name) for name in expected)
    else:
        assert session.cert == (str(tmp_path / expected) if expected else None)


def test_credentials_stay_secret_until_the_header_is_made() -> None:
    basic = BasicAuth("ci", Secret("s3cret", "file /run/secrets/registry"))
    bearer = BearerAuth(Secret("t0ken", "environment variable REGISTRY_BEARER_AUTH_TOKEN"))
    assert (repr(basic), repr(bearer)) == ("HTTP Basic as 'ci'", "bearer token")
    assert "s3cret" not in repr(vars(basic)) and "t0ken" not in repr(vars(bearer))
    headers = [
        registry_session(auth).prepare_request(requests.Request("GET", URL)).headers["Authorization"]
        for auth in (basic, bearer)
    ]
    assert headers == ["Basic Y2k6czNjcmV0", "Bearer t0ken"]
