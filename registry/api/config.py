"""``/config``: global and per-subject compatibility levels and data-contract settings."""

from __future__ import annotations

from flask import Blueprint, Response

from registry.api.common import flag, json_body, registry, reply
from registry.service.bodies import config_update

bp = Blueprint("config", __name__)


@bp.get("/config")
def get_global() -> Response:
    return reply(registry().get_config(None))


@bp.put("/config")
def put_global() -> Response:
    return reply(registry().update_config(None, config_update(json_body())))


@bp.delete("/config")
def delete_global() -> Response:
    return reply(registry().delete_config(None))


@bp.get("/config/<subject>")
def get_subject(subject: str) -> Response:
    return reply(registry().get_config(subject, default_to_global=flag("defaultToGlobal")))


@bp.put("/config/<subject>")
def put_subject(subject: str) -> Response:
    return reply(registry().update_config(subject, config_update(json_body())))


@bp.delete("/config/<subject>")
def delete_subject(subject: str) -> Response:
    return reply(registry().delete_config(subject))
