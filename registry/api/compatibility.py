"""``/compatibility``: would this schema be accepted? With ``verbose=true``, why not."""

from __future__ import annotations

from flask import Blueprint, Response

from registry.api.common import flag, registry, reply, schema_body
from registry.service import schemas as schema_logic

bp = Blueprint("compatibility", __name__)


def _answer(subject: str, version: int | None) -> Response:
    verbose = flag("verbose")
    _level, conflicts = registry().check(subject, schema_body(), version, normalize=flag("normalize"))
    body: dict[str, object] = {"is_compatible": not conflicts}
    if verbose:
        body["messages"] = schema_logic.describe(conflicts)
    return reply(body)


@bp.post("/compatibility/subjects/<subject>/versions/<version>")
def check_version(subject: str, version: int) -> Response:
    """Checks against one version (``latest`` included) under the subject's level."""
    return _answer(subject, version)


@bp.post("/compatibility/subjects/<subject>/versions")
def check_all(subject: str) -> Response:
    """Checks against the versions the subject's level covers (all of them for transitive levels)."""
    return _answer(subject, None)
