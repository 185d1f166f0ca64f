"""``/subjects``: list subjects, register, look up, read and delete versions; ``/contexts``."""

from __future__ import annotations

from flask import Blueprint, Response, request

from registry.api.common import (
    CONTENT_TYPE,
    flag,
    paginate,
    registry,
    reply,
    schema_body,
    version_in_format,
)
from registry.service import requests as parse

bp = Blueprint("subjects", __name__)


@bp.get("/subjects")
def list_subjects() -> Response:
    names = registry().list_subjects(
        request.args.get("subjectPrefix", ""),
        include_deleted=flag("deleted"),
        deleted_only=flag("deletedOnly", False, "deleted_only"),
    )
    return reply(paginate(names))


@bp.post("/subjects/<subject>/versions")
def register(subject: str) -> Response:
    """Registers a schema; an already registered one answers with its existing id (idempotent)."""
    done = registry().register(subject, schema_body(), normalize=flag("normalize"))
    return reply(done.body())


@bp.post("/subjects/<subject>")
def lookup(subject: str) -> Response:
    """Is this schema registered under the subject? Answers with its version and id."""
    view = registry().lookup(
        subject, schema_body(), include_deleted=flag("deleted"), normalize=flag("normalize")
    )
    return reply(version_in_format(view).body())


@bp.delete("/subjects/<subject>")
def delete_subject(subject: str) -> Response:
    return reply(registry().delete_subject(subject, permanent=flag("permanent")))


@bp.get("/subjects/<subject>/versions")
def list_versions(subject: str) -> Response:
    versions = registry().list_versions(
        subject, include_deleted=flag("deleted"), deleted_only=flag("deletedOnly", False, "deleted_only")
    )
    return reply(paginate(versions))


@bp.get("/subjects/<subject>/versions/<version>")
def get_version(subject: str, version: int) -> Response:
    view = registry().get_version(subject, version, include_deleted=flag("deleted"))
    return reply(version_in_format(view).body())


@bp.get("/subjects/<subject>/versions/<version>/schema")
def get_version_schema(subject: str, version: int) -> Response:
    """The schema text alone, exactly as registered (or in the ``format`` asked for)."""
    view = registry().get_version(subject, version, include_deleted=flag("deleted"))
    return Response(version_in_format(view).schema.schema, mimetype=CONTENT_TYPE)


@bp.get("/subjects/<subject>/versions/<version>/referencedby")
def referenced_by(subject: str, version: int) -> Response:
    return reply(paginate(registry().referenced_by(subject, version)))


@bp.get("/subjects/<subject>/metadata")
def latest_with_metadata(subject: str) -> Response:
    """The newest version whose metadata properties include every ``key``/``value`` pair given."""
    wanted = parse.metadata_query(request.args.getlist("key"), request.args.getlist("value"))
    view = registry().latest_with_metadata(subject, wanted, include_deleted=flag("deleted"))
    return reply(version_in_format(view).body())


@bp.get("/contexts")
def contexts() -> Response:
    """Only the default context exists here (subjects qualified with another one are refused)."""
    return reply(paginate([parse.DEFAULT_CONTEXT]))


@bp.delete("/subjects/<subject>/versions/<version>")
def delete_version(subject: str, version: int) -> Response:
    return reply(registry().delete_version(subject, version, permanent=flag("permanent")))
