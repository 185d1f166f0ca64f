"""``/mode``: READWRITE, READONLY (writes answer 42205) and IMPORT (ids and versions given by the client)."""

from __future__ import annotations

from flask import Blueprint, Response

from registry.api.common import flag, json_body, registry, reply
from registry.service import bodies

bp = Blueprint("mode", __name__)


@bp.get("/mode")
def get_global() -> Response:
    return reply({"mode": registry().get_mode(None)})


@bp.put("/mode")
def put_global() -> Response:
    flag("force")  # accepted for client compatibility; switching modes never needs forcing here
    return reply({"mode": registry().set_mode(None, bodies.mode(json_body()))})


@bp.get("/mode/<subject>")
def get_subject(subject: str) -> Response:
    return reply({"mode": registry().get_mode(subject, default_to_global=flag("defaultToGlobal"))})


@bp.put("/mode/<subject>")
def put_subject(subject: str) -> Response:
    flag("force")
    return reply({"mode": registry().set_mode(subject, bodies.mode(json_body()))})


@bp.delete("/mode/<subject>")
def delete_subject(subject: str) -> Response:
    return reply({"mode": registry().delete_mode(subject)})
