"""Behind a reverse proxy: whose ``X-Forwarded-*`` headers to believe about the client's address.

The client address is what failed logins are counted by (``registry.auth.throttle``) and what logs show.
With ``trusted_proxy_hops`` the registry takes it from the proxies' headers (Werkzeug's ``ProxyFix``);
with ``forwarded_allow_ips`` as well, only when the TCP peer is one of those proxies. Without that list
any peer's header is believed, and a client that can reach the port directly could send a new made-up
address with every guess and never be throttled.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.middleware.proxy_fix import ProxyFix

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_allowed(spec: str) -> tuple[bool, list[Network]]:
    """``"10.0.0.5, 192.168.0.0/24"`` -> (any peer?, networks); empty or ``*``: any peer.

    A malformed entry raises ValueError, so that a typo stops the server instead of trusting no one.
    """
    entries = [entry.strip() for entry in spec.split(",") if entry.strip()]
    if not entries or "*" in entries:
        return True, []
    return False, [ipaddress.ip_network(entry) for entry in entries]  # strict, as gunicorn: 10.0.0.0/8


def is_trusted(peer: str, any_peer: bool, networks: list[Network]) -> bool:
    """Whether the TCP peer is one of the proxies."""
    if any_peer:
        return True
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    return any(address.version == net.version and address in net for net in networks)


def behind_proxies(wsgi_app: WSGIApp, hops: int, allowed: str) -> WSGIApp:
    """The app, taking the client's address, scheme and host from ``hops`` proxies' headers (see above)."""
    if hops <= 0:
        return wsgi_app
    fixed = ProxyFix(wsgi_app, x_for=hops, x_proto=hops, x_host=hops)
    any_peer, networks = parse_allowed(allowed)
    if any_peer:
        return fixed

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if is_trusted(environ.get("REMOTE_ADDR", ""), any_peer, networks):
            return fixed(environ, start_response)
        return wsgi_app(environ, start_response)

    return app
