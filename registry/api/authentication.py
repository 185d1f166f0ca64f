"""The Flask side of authentication: one hook before every view, answering 401, 403 or 429 itself.

401 (no or wrong credentials) carries ``WWW-Authenticate`` so that browsers and curl ask; 401 says the same
for an unknown user and a wrong password, and an unknown user costs the same argon2 time as a known one.
Every failure is logged with the user name and the client address (never the secret), and too many of
them from one address for one name answer 429 for a while (``registry.auth.throttle``).
"""

from __future__ import annotations

import logging

from flask import Flask, Response, abort, g, request

from registry.api.errors import error_body
from registry.auth.credentials import (
    BasicCredentials,
    BearerToken,
    MalformedCredentials,
    Verifier,
    parse_authorization,
)
from registry.auth.permissions import Principal, Verdict, decide, public_paths, requirement
from registry.auth.throttle import FailureThrottle
from registry.auth.users import UserDirectory
from registry.config import RegistryConfig
from registry.storage.db import Database

log = logging.getLogger("registry.auth")
REALM = 'Basic realm="schema-registry", charset="UTF-8"'


def install_auth(app: Flask, cfg: RegistryConfig, database: Database) -> None:
    """Registers the hook when authentication is on; with it off the app is unchanged."""
    if not cfg.auth_enabled:
        return
    directory = UserDirectory(database)
    verifier = Verifier()
    throttle = FailureThrottle(cfg.auth_max_failures, cfg.auth_failure_window_s)
    public = public_paths(cfg.metrics_public)

    @app.before_request
    def authenticate() -> Response | None:
        if request.path in public:
            return None
        needed = requirement(request.method, request.endpoint, request.view_args or {}, request.args)
        try:
            presented = parse_authorization(request.headers.get("Authorization"))
        except MalformedCredentials as exc:
            return _unauthorized(f"Unauthorized: {exc}")
        principal: Principal | None = None
        if presented is not None:
            name = (
                presented.user if isinstance(presented, BasicCredentials) else f"token {presented.token_id}"
            )
            key = f"{name}|{request.remote_addr}"
            wait = throttle.retry_after(key)
            if wait:
                log.warning(
                    "authentication refused (throttled): user=%s client=%s", name, request.remote_addr
                )
                response = error_body(
                    42901, f"Too many failed authentication attempts; retry in {wait} s", 429
                )
                response.headers["Retry-After"] = str(wait)
                return response
            principal = _verify(directory, verifier, presented)
            if principal is None:
                failures = throttle.failed(key)
                log.warning(
                    "authentication failed: user=%s client=%s failures=%d",
                    name,
                    request.remote_addr,
                    failures,
                )
                return _unauthorized("Unauthorized: invalid credentials")
            throttle.succeeded(key)
            g.principal = principal
        verdict = decide(principal, needed, cfg.anonymous_read)
        if verdict is Verdict.UNAUTHENTICATED:
            return _unauthorized("Unauthorized: credentials required")
        if verdict is Verdict.FORBIDDEN:
            assert principal is not None
            log.warning(
                "authorization refused: user=%s may not %s (%s %s)",
                principal.name, needed.describe(), request.method, request.path,
            )  # fmt: skip
            forbidden = f"Forbidden: user '{principal.name}' may not {needed.describe()}"
            if request.blueprint == "ui":  # the page's own error page (its handlers), not the API's JSON
                abort(403, forbidden)
            return error_body(40301, forbidden, 403)
        return None


def _verify(
    directory: UserDirectory, verifier: Verifier, presented: BasicCredentials | BearerToken
) -> Principal | None:
    if isinstance(presented, BasicCredentials):
        user = directory.by_name(presented.user)
        if user is None:
            verifier.verify_unknown_user(presented.password)
            return None
        return user.principal if verifier.verify(user.password_hash, presented.password) else None
    user = directory.by_token_id(presented.token_id)
    if user is None:
        verifier.verify_unknown_user(presented.secret)
        return None
    return user.principal if verifier.verify(user.token_hash, presented.secret) else None


def _unauthorized(message: str) -> Response:
    response = error_body(40101, message, 401)
    response.headers["WWW-Authenticate"] = REALM
    return response
