"""The Flask application factory of the registry service (Confluent Schema Registry REST API)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote, unquote_to_bytes

from flask import Flask, Response

from registry.api import compatibility, config, mode, schemas, subjects, users
from registry.api.authentication import install_auth
from registry.api.common import reply
from registry.api.errors import register_error_handlers
from registry.api.openapi import openapi_document
from registry.api.proxy import behind_proxies
from registry.config import RegistryConfig
from registry.observability import install_observability
from registry.service import requests as parse
from registry.storage.db import Database
from registry.storage.repository import Registry
from registry.ui import install_ui

_KEEP_ENCODED = re.compile(r"%(2[fF]|25)")

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def _keep_encoded_slashes(wsgi_app: WSGIApp) -> WSGIApp:
    """Routes on the raw request path so that ``%2F`` in a subject name stays part of the name.

    WSGI servers decode the path before the app sees it, which would turn subject ``a/b`` (sent as
    ``a%2Fb`` by every client) into two path segments. When the server passes the raw URI (gunicorn and
    Werkzeug do), we decode it ourselves except for ``%2F`` and ``%25``; the URL value preprocessor below
    decodes those inside each path value.
    """

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
        if raw:
            path = raw.split("?", 1)[0].split("#", 1)[0]
            if "://" in path:
                path = "/" + path.split("://", 1)[1].partition("/")[2]
            script = environ.get("SCRIPT_NAME", "")
            if script and path.startswith(script):
                path = path[len(script) :]
            kept = _KEEP_ENCODED.sub(lambda m: "%25" + m.group(1).upper(), path)
            environ["PATH_INFO"] = unquote_to_bytes(kept).decode("latin-1")
            environ["registry.raw_path"] = True
        return wsgi_app(environ, start_response)

    return app


def _convert_path_values(endpoint: str | None, values: dict[str, Any] | None) -> None:
    """Validates and converts path values before any view runs (4xx bodies, never a 500)."""
    from flask import current_app, request

    if not values:
        return
    raw_path = request.environ.get("registry.raw_path", False)
    if "subject" in values:
        name = unquote(values["subject"]) if raw_path else values["subject"]
        cfg: RegistryConfig = current_app.extensions["registry_config"]
        values["subject"] = parse.validate_subject(name, cfg.max_subject_length)
    if "version" in values:
        values["version"] = parse.parse_version(values["version"])
    if "schema_id" in values:
        values["schema_id"] = parse.parse_schema_id(values["schema_id"])


def create_app(cfg: RegistryConfig | None = None, registry: Registry | None = None) -> Flask:
    """Builds the app; tests pass their own config (and may pass a ready repository)."""
    cfg = cfg or RegistryConfig.from_env()
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = cfg.max_body_bytes
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.url_map.strict_slashes = False
    app.url_map.merge_slashes = False
    app.extensions["registry_config"] = cfg
    if registry is None:
        if cfg.auto_upgrade:
            from registry.storage import migrate

            migrate.upgrade_if_empty(cfg.database_url)
        registry = Registry(Database(cfg.database_url), cache_size=cfg.cache_size)
    app.extensions["registry"] = registry
    app.url_value_preprocessor(_convert_path_values)
    register_error_handlers(app)
    install_observability(app, cfg, registry)
    install_auth(app, cfg, registry.db)
    for module in (subjects, schemas, compatibility, config, mode):
        app.register_blueprint(module.bp)
    if cfg.auth_enabled:  # without authentication there is no admin to manage users
        app.register_blueprint(users.bp)
    install_ui(app)  # the page for people at /ui/, beside the API

    @app.get("/")
    def root() -> Response:
        return reply({})

    @app.get("/openapi.json")
    def openapi() -> Response:
        return Response(openapi_document(cfg), mimetype="application/json")

    if cfg.enable_bench_endpoint:

        @app.get("/_bench/empty")
        def bench_empty() -> Response:
            """The ceiling the benchmark compares with: routing and a JSON reply, no registry work."""
            return reply({})

    wsgi_app = _keep_encoded_slashes(app.wsgi_app)
    wsgi_app = behind_proxies(wsgi_app, cfg.trusted_proxy_hops, cfg.forwarded_allow_ips)
    app.wsgi_app = wsgi_app  # type: ignore[method-assign]
    return app
