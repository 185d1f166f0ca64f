"""Behind a reverse proxy every request comes from the proxy's address: failed logins must be counted per
real client (X-Forwarded-For from trusted proxies), or one attacker would lock out everyone."""

from __future__ import annotations

from pathlib import Path

import pytest

from registry.api import create_app
from registry.api.proxy import is_trusted, parse_allowed
from registry.auth.permissions import Role
from registry.auth.users import add_user
from registry.config import RegistryConfig

PASSWORD = "s3cret-password"


def client_for(tmp_path: Path, hops: int):  # type: ignore[no-untyped-def]
    cfg = RegistryConfig(
        database_url=f"sqlite:///{tmp_path / f'r{hops}.db'}",
        auth_enabled=True,
        auth_max_failures=2,
        trusted_proxy_hops=hops,
    )
    app = create_app(cfg)
    add_user(app.extensions["registry"].db, "alice", Role.READ, password=PASSWORD)
    return app.test_client()


def attempt(client, password: str, forwarded_for: str) -> int:  # type: ignore[no-untyped-def]
    headers = {"X-Forwarded-For": forwarded_for}
    return client.get("/subjects", auth=("alice", password), headers=headers).status_code


@pytest.mark.parametrize(("hops", "other_client_status"), [(1, 200), (0, 429)])
def test_failures_are_counted_per_forwarded_client_only_when_the_proxy_is_trusted(
    tmp_path: Path, hops: int, other_client_status: int
) -> None:
    client = client_for(tmp_path, hops)
    assert [attempt(client, "wrong-one", "203.0.113.7") for _ in range(3)] == [401, 401, 429]
    # Another client behind the same proxy: its own count when the proxy is trusted; when it is not,
    # everyone shares the proxy's address (and a forged header cannot dodge the throttle either).
    assert attempt(client, PASSWORD, "198.51.100.9") == other_client_status


def test_forwarded_headers_count_only_from_the_named_proxies(tmp_path: Path) -> None:
    """A client reaching the port directly cannot pick a new address per guess to dodge the throttle."""
    cfg = RegistryConfig(
        database_url=f"sqlite:///{tmp_path / 'named.db'}",
        auth_enabled=True,
        auth_max_failures=2,
        trusted_proxy_hops=1,
        forwarded_allow_ips="10.0.0.0/8, 192.168.1.7",
    )
    app = create_app(cfg)
    add_user(app.extensions["registry"].db, "alice", Role.READ, password=PASSWORD)
    direct = app.test_client()
    direct.environ_base["REMOTE_ADDR"] = "203.0.113.50"
    statuses = [attempt(direct, "wrong-one", f"198.51.100.{n}") for n in range(3)]
    assert statuses == [401, 401, 429], "forged X-Forwarded-For from an unnamed peer is ignored"
    proxy = app.test_client()
    proxy.environ_base["REMOTE_ADDR"] = "10.1.2.3"
    assert [attempt(proxy, "wrong-one", "203.0.113.60") for _ in range(3)] == [401, 401, 429]
    assert attempt(proxy, PASSWORD, "198.51.100.9") == 200, "another client behind the named proxy"


@pytest.mark.parametrize(
    ("spec", "peer", "trusted"),
    [
        ("", "203.0.113.1", True),  # no list: any peer (then only the proxy may reach the port)
        ("*", "2001:db8::1", True),
        ("10.0.0.0/8", "10.200.0.1", True),
        ("10.0.0.0/8", "11.0.0.1", False),
        ("10.0.0.0/8, 2001:db8::/32", "2001:db8::5", True),
        ("192.168.1.7", "192.168.1.8", False),
        ("192.168.1.7", "not-an-address", False),
    ],
)
def test_which_peers_are_proxies(spec: str, peer: str, trusted: bool) -> None:
    assert is_trusted(peer, *parse_allowed(spec)) is trusted


@pytest.mark.parametrize("spec", ["10.0.0.5/8", "proxy.example.com"])
def test_a_malformed_proxy_list_is_an_error_not_silence(spec: str) -> None:
    with pytest.raises(ValueError):
        parse_allowed(spec)
