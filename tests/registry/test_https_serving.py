"""``registry serve`` over HTTPS (optionally requiring client certificates), reached by confluent-kafka's
client and by ``registry check``/``push`` with Confluent's client properties, over real TLS."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner, Result
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient

from registry.cli import main
from tests.fixtures.registry_server import HttpsClient, RegistryProcess, start_registry, users_database
from tests.fixtures.tls import Issued, registry_pki
from tests.registry.schema_check import schemas

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[2]
V1 = schemas.record("PageView", [{"name": "a", "type": "int"}])
PASSWORD = "ci-pushes-0f3a9c"  # a throw-away test user's


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Issued]:
    """A CA with a server and a client certificate, and a second CA nobody trusts."""
    return registry_pki(tmp_path_factory.mktemp("pki"), "ci")


def tls_args(pki: dict[str, Issued], *extra: str) -> list[str]:
    return ["--certfile", str(pki["server"].cert), "--keyfile", str(pki["server"].key), *extra]


@pytest.fixture(scope="module")
def https_registry(
    pki: dict[str, Issued], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RegistryProcess]:
    """HTTPS with --auth, users "ci" (write on every subject) and "viewer" (read): one server for the
    module's tests (each pushes subjects of its own; one refused login is far below the throttle)."""
    home = tmp_path_factory.mktemp("https-registry")
    users = [("ci", "write", ["--prefix", ""]), ("viewer", "read", [])]
    database, _ = users_database(home / "auth.db", PASSWORD, users)
    server = start_registry(
        database, home, workers=1, extra_args=[*tls_args(pki), "--auth"], https=HttpsClient(pki["ca"].cert)
    )
    try:
        yield server
    finally:
        server.stop()


def properties(tmp_path: Path, **values: str) -> Path:
    path = tmp_path / f"registry-{uuid.uuid4().hex[:6]}.properties"
    path.write_text("".join(f"{name}={value}\n" for name, value in values.items()))
    return path


def cli(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False, env=env)


def schema_file(tmp_path: Path) -> tuple[Path, str]:
    topic = f"secure-{uuid.uuid4().hex[:8]}"
    path = tmp_path / "schemas" / f"{topic}.avsc"
    path.parent.mkdir(exist_ok=True)
    path.write_text(V1)
    return path, topic


def test_confluent_kafkas_client_registers_over_https(
    https_registry: RegistryProcess, pki: dict[str, Issued]
) -> None:
    client = SchemaRegistryClient(
        {
            "url": https_registry.url,
            "ssl.ca.location": str(pki["ca"].cert),
            "basic.auth.user.info": f"ci:{PASSWORD}",
        }
    )
    assert client.register_schema("https-value", Schema(V1, "AVRO")) >= 1
    # Plain HTTP to the TLS port gets no answer from the registry.
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.get(https_registry.url.replace("https://", "http://") + "/subjects", timeout=5)


def test_push_and_check_with_the_producers_properties(
    https_registry: RegistryProcess, pki: dict[str, Issued], tmp_path: Path
) -> None:
    path, topic = schema_file(tmp_path)
    secret = tmp_path / "ci.properties"
    secret.write_text(
        "# as a producer's config has them\n"
        f"schema.registry.url={https_registry.url}\n"
        "basic.auth.credentials.source=USER_INFO\n"
        f"basic.auth.user.info=ci:{PASSWORD}\n"
        f"ssl.ca.location={pki['ca'].cert}\n"
    )
    pushed = cli("push", str(path), "--registry-properties", str(secret))
    assert pushed.exit_code == 0, pushed.output
    assert f"{topic}-value registered version 1" in pushed.output
    checked = cli("check", str(path), "--registry-properties", str(secret))
    assert checked.exit_code == 0, checked.output
    assert PASSWORD not in pushed.output + checked.output


def test_the_environment_carries_the_settings_for_a_ci_job(
    https_registry: RegistryProcess, pki: dict[str, Issued], tmp_path: Path
) -> None:
    path, _ = schema_file(tmp_path)
    env = {
        "REGISTRY_URL": https_registry.url,
        "REGISTRY_BASIC_AUTH_USER_INFO": f"viewer:{PASSWORD}",
        "REGISTRY_SSL_CA_LOCATION": str(pki["ca"].cert),
    }
    assert cli("check", str(path), env=env).exit_code == 0


@pytest.mark.parametrize(
    ("user_info", "ca", "expected"),
    [
        (
            f"ci:not-{PASSWORD}",
            "ca",
            "refused: authentication failed (HTTP 401: Unauthorized: invalid credentials)",
        ),
        (f"ci:{PASSWORD}", "other-ca", "TLS failed (certificate verify failed: unable to get local issuer"),
    ],
)
def test_a_refusal_says_why_and_stops_with_exit_2(
    https_registry: RegistryProcess,
    pki: dict[str, Issued],
    tmp_path: Path,
    user_info: str,
    ca: str,
    expected: str,
) -> None:
    path, _ = schema_file(tmp_path)
    settings = properties(
        tmp_path, **{"basic.auth.user.info": user_info, "ssl.ca.location": str(pki[ca].cert)}
    )
    result = cli(
        "check", str(path), "--registry-url", https_registry.url, "--registry-properties", str(settings)
    )
    assert result.exit_code == 2
    assert expected in result.output
    assert PASSWORD not in result.output


def test_a_read_only_user_is_refused_the_push_as_an_authorization(
    https_registry: RegistryProcess, pki: dict[str, Issued], tmp_path: Path
) -> None:
    path, topic = schema_file(tmp_path)
    settings = properties(
        tmp_path, **{"basic.auth.user.info": f"viewer:{PASSWORD}", "ssl.ca.location": str(pki["ca"].cert)}
    )
    result = cli(
        "push", str(path), "--registry-url", https_registry.url, "--registry-properties", str(settings)
    )
    assert result.exit_code == 1
    assert (
        f"{topic}-value refused: Forbidden: user 'viewer' may not write to subject '{topic}-value'"
        in result.output
    )


def test_mutual_tls_refuses_a_client_without_a_certificate(
    registry_factory: Callable[..., RegistryProcess], pki: dict[str, Issued], tmp_path: Path
) -> None:
    client = (pki["client"].cert, pki["client"].key)
    server = registry_factory(
        extra_args=tls_args(pki, "--ca-file", str(pki["ca"].cert), "--require-client-cert"),
        https=HttpsClient(pki["ca"].cert, client),
    )
    path, topic = schema_file(tmp_path)
    without = properties(tmp_path, **{"ssl.ca.location": str(pki["ca"].cert)})
    refused = cli("push", str(path), "--registry-url", server.url, "--registry-properties", str(without))
    assert refused.exit_code == 2
    assert "the registry did not accept the client certificate (ssl.certificate.location)" in refused.output
    with_certificate = properties(
        tmp_path,
        **{
            "ssl.ca.location": str(pki["ca"].cert),
            "ssl.certificate.location": str(client[0]),
            "ssl.key.location": str(client[1]),
        },
    )
    pushed = cli(
        "push", str(path), "--registry-url", server.url, "--registry-properties", str(with_certificate)
    )
    assert pushed.exit_code == 0, pushed.output
    assert f"{topic}-value registered version 1" in pushed.output


def serve(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "registry.cli", "serve", "--port", "1", *args],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--keyfile", "k.pem"], "--keyfile need(s) --certfile"),
        (["--require-client-cert"], "--require-client-cert need(s) --certfile"),
        (["--certfile", "c.pem"], "--certfile needs --keyfile"),
    ],
)
def test_tls_flags_that_cannot_serve_stop_before_anything_starts(args: list[str], message: str) -> None:
    done = serve(*args)
    assert done.returncode == 2
    assert message in done.stderr


def test_a_key_of_another_certificate_or_a_missing_ca_stops_serve(
    pki: dict[str, Issued], tmp_path: Path
) -> None:
    mismatched = serve(
        "--certfile", str(pki["server"].cert), "--keyfile", str(pki["client"].key), cwd=tmp_path
    )
    assert mismatched.returncode == 2
    assert (
        f"cannot serve with certificate {pki['server'].cert} and key {pki['client'].key}" in mismatched.stderr
    )
    no_ca = serve(*tls_args(pki), "--require-client-cert")
    assert no_ca.returncode == 2
    assert "--require-client-cert needs --ca-file" in no_ca.stderr
    missing = serve(*tls_args(pki), "--ca-file", str(tmp_path / "none.pem"))
    assert missing.returncode == 2
    assert f"cannot read CA file {tmp_path / 'none.pem'}" in missing.stderr
    assert not (tmp_path / "registry.db").exists()  # stopped before the default database was made
