"""Request and response plumbing shared by the blueprints (one place for flags, bodies and JSON)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from flask import Response, current_app, request

from registry.config import RegistryConfig
from registry.service import bodies, errors
from registry.service import requests as parse
from registry.service.bodies import SchemaRequest
from registry.storage.repository import Registry
from registry.storage.views import StoredSchema, VersionView

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
ACCEPTED_CONTENT_TYPES = (CONTENT_TYPE, "application/vnd.schemaregistry+json", "application/json")


def registry() -> Registry:
    """The repository of the current app (built by the factory, one per process)."""
    return current_app.extensions["registry"]


def settings() -> RegistryConfig:
    return current_app.extensions["registry_config"]


def reply(body: Any, status: int = 200) -> Response:
    """A JSON response with Confluent's content type."""
    return Response(json.dumps(body), status=status, mimetype=CONTENT_TYPE)


def flag(name: str, default: bool = False, *aliases: str) -> bool:
    """A boolean query flag; clients send true/True/false/False (and Python's client snake_case names)."""
    for key in (name, *aliases):
        if key in request.args:
            return parse.parse_bool(request.args.get(key), default, key)
    return default


def paginate(items: list[Any]) -> list[Any]:
    """Applies ``offset`` and ``limit`` (negative limit: no limit), as Confluent does."""
    offset = parse.parse_int(request.args.get("offset"), 0, "offset")
    limit = parse.parse_int(request.args.get("limit"), -1, "limit")
    if offset < 0 or limit < -1:
        raise errors.BadRequest("offset must be >= 0 and limit >= -1 (-1: no limit).")
    return items[offset:] if limit < 0 else items[offset : offset + limit]


def in_format(stored: StoredSchema) -> StoredSchema:
    """``stored`` in the ``format`` the request names (``serialized``: a Protobuf schema's descriptor)."""
    return registry().formatted(stored, request.args.get("format", ""))


def version_in_format(view: VersionView) -> VersionView:
    """``view`` with its schema :func:`in_format`."""
    return replace(view, schema=in_format(view.schema))


def json_body() -> dict[str, Any]:
    """The request body as a JSON object (size, UTF-8, depth and syntax checked)."""
    return parse.parse_json_body(request.get_data(cache=True), settings().max_json_depth)


def schema_body() -> SchemaRequest:
    """The body of a register/lookup/compatibility request."""
    return bodies.schema_request(json_body(), settings())
