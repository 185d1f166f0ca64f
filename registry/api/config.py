"""``/config``: global and per-subject compatibility levels."""

from __future__ import annotations

from flask import Blueprint, Response

from registry.api.common import flag, json_body, registry, reply
from registry.service.requests import parse_compatibility

bp = Blueprint("config", __name__)


def _level_from_body() -> str:
    body = json_body()
    return parse_compatibility(body.get("compatibility", body.get("compatibilityLevel")))


@bp.get("/config")
def get_global() -> Response:
    return reply({"compatibilityLevel": registry().get_compatibility(None)})


@bp.put("/config")
def put_global() -> Response:
    return reply({"compatibility": registry().set_compatibility(None, _level_from_body())})


@bp.delete("/config")
def delete_global() -> Response:
    return reply({"compatibilityLevel": registry().delete_compatibility(None)})


@bp.get("/config/<subject>")
def get_subject(subject: str) -> Response:
    level = registry().get_compatibility(subject, default_to_global=flag("defaultToGlobal"))
    return reply({"compatibilityLevel": level})


@bp.put("/config/<subject>")
def put_subject(subject: str) -> Response:
    return reply({"compatibility": registry().set_compatibility(subject, _level_from_body())})


@bp.delete("/config/<subject>")
def delete_subject(subject: str) -> Response:
    return reply({"compatibilityLevel": registry().delete_compatibility(subject)})
