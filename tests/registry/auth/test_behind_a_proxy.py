"""Behind a reverse proxy every request comes from the proxy's address: failed logins must be counted per
real client (X-Forwarded-For from trusted proxies), or one attacker would lock out everyone."""

from __future__ import annotations

from pathlib import Path

import pytest

from registry.api import create_app
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
