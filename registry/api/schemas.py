"""``/schemas``: schemas by global id (the deserializer's hot path) or GUID, and the supported types."""

from __future__ import annotations

from flask import Blueprint, Response, request

from registry.api.common import CONTENT_TYPE, flag, in_format, paginate, registry, reply
from registry.schema_types import SCHEMA_TYPE_NAMES
from registry.service import requests as parse

bp = Blueprint("schemas", __name__)


@bp.get("/schemas")
def list_schemas() -> Response:
    views = registry().list_schemas(
        request.args.get("subjectPrefix", ""),
        include_deleted=flag("deleted"),
        latest_only=flag("latestOnly", False, "latest_only"),
    )
    return reply(paginate([view.body() for view in views]))


@bp.get("/schemas/types")
def schema_types() -> Response:
    return reply(list(SCHEMA_TYPE_NAMES))


@bp.get("/schemas/ids/<schema_id>")
def get_schema(schema_id: int) -> Response:
    return reply(in_format(registry().get_schema(schema_id)).body())


@bp.get("/schemas/ids/<schema_id>/schema")
def get_schema_text(schema_id: int) -> Response:
    return Response(in_format(registry().get_schema(schema_id)).schema, mimetype=CONTENT_TYPE)


@bp.get("/schemas/guids/<guid>")
def get_schema_by_guid(guid: str) -> Response:
    return reply(in_format(registry().schema_by_guid(parse.parse_guid(guid))).body())


@bp.get("/schemas/guids/<guid>/ids")
def get_ids_by_guid(guid: str) -> Response:
    """The ids of a GUID per context: here one id, in the default context."""
    found = registry().schema_by_guid(parse.parse_guid(guid))
    return reply([{"context": parse.DEFAULT_CONTEXT, "id": found.id}])


def _usages(schema_id: int) -> list[tuple[str, int]]:
    only = request.args.get("subject")
    pairs = registry().schema_usages(schema_id, include_deleted=flag("deleted"))
    return [(s, v) for s, v in pairs if only is None or s == only]


@bp.get("/schemas/ids/<schema_id>/subjects")
def get_schema_subjects(schema_id: int) -> Response:
    subjects = sorted({s for s, _ in _usages(schema_id)})
    return reply(paginate(subjects))


@bp.get("/schemas/ids/<schema_id>/versions")
def get_schema_versions(schema_id: int) -> Response:
    return reply(paginate([{"subject": s, "version": v} for s, v in _usages(schema_id)]))
