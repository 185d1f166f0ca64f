"""The one place where failures become Confluent error bodies ``{"error_code": N, "message": "..."}``.

Domain errors carry their code; Werkzeug's HTTP errors (unknown route, wrong method, body too large,
malformed request) use the HTTP status as the code, as Confluent does; anything unexpected is logged and
answered as 50001 so that no client ever sees an HTML page.
"""

from __future__ import annotations

from flask import Flask, Response
from werkzeug.exceptions import HTTPException

from registry.api.common import reply
from registry.service.errors import RegistryError


def error_body(code: int, message: str, status: int) -> Response:
    return reply({"error_code": code, "message": message}, status)


def _registry_error(exc: RegistryError) -> Response:
    return error_body(exc.error_code, exc.message, exc.http_status)


def _http_error(exc: HTTPException) -> Response:
    status = exc.code or 500
    message = f"HTTP {status} {exc.name}"
    if exc.description and status not in (404, 405):
        message = f"{message}: {exc.description}"
    response = error_body(status, message, status)
    if status == 405 and exc.response is None:
        allowed = getattr(exc, "valid_methods", None)
        if allowed:
            response.headers["Allow"] = ", ".join(allowed)
    return response


def _unexpected(exc: Exception) -> Response:
    from flask import current_app

    current_app.logger.exception("unhandled error", exc_info=exc)
    return error_body(50001, "Error in the backend datastore: internal error", 500)


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(RegistryError, _registry_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)
