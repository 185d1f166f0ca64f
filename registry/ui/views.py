"""The page's routes: each picks its arguments from the request, asks the service code, renders a template.

Every route here answers GET, except the candidate check, which also takes a POST because a schema file
is uploaded; it only reads (the permission check counts it among the reading POSTs). The admin's POSTs are
in ``admin``. Errors become HTML pages with the registry's own message, and every response carries the
security headers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from flask import Blueprint, Response, current_app, g, render_template, request
from werkzeug.exceptions import HTTPException, NotFound

from registry.auth.permissions import Role
from registry.compatibility import CompatibilityLevel
from registry.config import RegistryConfig
from registry.schema_types import DEFAULT_SCHEMA_TYPE, SCHEMA_TYPE_NAMES, all_types
from registry.service import errors
from registry.service import requests as parse
from registry.service.bodies import MODES
from registry.service.requests import LATEST
from registry.storage.repository import Registry
from registry.ui import assets, browsing, candidate, csrf

bp = Blueprint(
    "ui",
    __name__,
    url_prefix="/ui",
    template_folder="templates",
    static_folder="static",
    static_url_path="/static",
)

#: No inline script or style, nothing from elsewhere, no framing; the page's own files only.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
#: Deepest tree row indented further; deeper rows keep this indentation (the CSS has classes up to it).
MAX_INDENT = 12
#: Empty reference rows the check form offers beside the filled ones (no script needed to add one).
BLANK_REFERENCE_ROWS = 2


def _registry() -> Registry:
    return current_app.extensions["registry"]


def _settings() -> RegistryConfig:
    return current_app.extensions["registry_config"]


@bp.after_request
def security_headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Frame-Options"] = "DENY"
    return response


@bp.app_template_filter("when")
def format_time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


@bp.app_template_filter("indent_class")
def indent_class(depth: int) -> str:
    return f"depth-{min(depth, MAX_INDENT)}"


@bp.after_request
def page_cookies(response: Response) -> Response:
    return assets.cache_headers(csrf.set_cookies(response))


def may_administer() -> bool:
    """Admins with ``--auth``; everyone without it (the API lets anyone change anything then)."""
    if not _settings().auth_enabled:
        return True
    principal = getattr(g, "principal", None)
    return principal is not None and principal.role is Role.ADMIN


# The settings form's choice of no level (or mode) of the subject's own: the global one applies.
GLOBAL_CHOICE = "GLOBAL"


@bp.context_processor
def page_context() -> dict[str, object]:
    principal = getattr(g, "principal", None)
    notice = csrf.take_notice() if request.method == "GET" else None
    kind, _, text = (notice or "").partition("|")
    return {
        "signed_in_as": principal.name if principal is not None else None,
        "can_admin": may_administer(),
        "csrf_token": csrf.token,
        "notice": (kind, text) if text else None,
        "levels": [level.value for level in CompatibilityLevel],
        "modes": MODES,
        "global_choice": GLOBAL_CHOICE,
        "sorts": browsing.SORTS,
        "schema_types": SCHEMA_TYPE_NAMES,
        "schema_suffixes": ",".join(kind.file_suffix for kind in all_types()),
        "static_url": assets.static_url,
    }


@bp.errorhandler(errors.RegistryError)
def registry_error(exc: errors.RegistryError) -> tuple[str, int]:
    return render_template("ui/error.html", status=exc.http_status, message=exc.message), exc.http_status


@bp.errorhandler(HTTPException)
def http_error(exc: HTTPException) -> tuple[str, int]:
    status = exc.code or 500
    message = exc.description if status != 404 else "There is no page here."
    if status == 413:
        message = f"The request is larger than the registry accepts ({_settings().max_body_bytes} bytes)."
    return render_template("ui/error.html", status=status, message=message), status


@dataclass(frozen=True)
class CheckForm:
    """The check form as shown: the subject, the schema text, its type and the reference rows (blank ones
    added)."""

    subject: str
    schema: str
    references: tuple[candidate.ReferenceRow, ...] = ()
    schema_type: str = DEFAULT_SCHEMA_TYPE

    @property
    def rows(self) -> tuple[candidate.ReferenceRow, ...]:
        filled = tuple(row for row in self.references if not row.blank)
        return filled + (candidate.ReferenceRow(),) * BLANK_REFERENCE_ROWS

    @property
    def shown(self) -> str:
        """The schema text as the page shows it (`text_digest`): a file uploaded over it, unchanged, is
        the candidate, not a paste beside it."""
        return text_digest(self.schema)


def text_digest(text: str) -> str:
    """A digest of a textarea's text as a browser sends it back (its line ends made CRLF, the line end
    after the tag dropped): the same text, the same digest."""
    return hashlib.sha256(text.replace("\r\n", "\n").strip().encode()).hexdigest()


def numbered_lines(text: str, marked: set[int]) -> tuple[tuple[int, str, bool], ...]:
    """The schema's lines with their numbers, those holding a finding marked (the findings' line:column)."""
    return tuple((number, line, number in marked) for number, line in enumerate(text.splitlines(), 1))


def _positive(name: str, default: int) -> int:
    value = parse.parse_int(request.args.get(name), default, name)
    if value < 1:
        raise errors.BadRequest(f"{name} must be 1 or more.")
    return value


def _choice(name: str, allowed: Sequence[str]) -> str:
    """A query value that must be one of ``allowed`` (or absent: ``""``)."""
    value = request.args.get(name, "").strip()
    if value and value not in allowed:
        raise errors.BadRequest(f"{name} must be one of {', '.join(allowed)}.")
    return value


def _version_arg(name: str) -> int | None:
    """A version in the query (a number, ``latest`` or ``-1``), or None when the query has none."""
    raw = request.args.get(name, "").strip()
    return parse.parse_version(raw) if raw else None


@bp.get("/")
def subjects() -> str:
    query = browsing.SubjectQuery(
        text=request.args.get("q", "").strip(),
        prefix_only=request.args.get("match") == "prefix",
        include_deleted=request.args.get("deleted") == "on",
        page=_positive("page", 1),
        level=_choice("level", [level.value for level in CompatibilityLevel]),
        mode=_choice("mode", MODES),
        sort=_choice("sort", browsing.SORTS) or "name",
    )
    registry = _registry()
    defaults = GlobalSettings(registry.get_config(None)["compatibilityLevel"], registry.get_mode(None))
    return render_template("ui/subjects.html", page=browsing.subject_list(registry, query), defaults=defaults)


@dataclass(frozen=True)
class GlobalSettings:
    """The registry's global compatibility level and mode: what a subject without its own has."""

    compatibility: str
    mode: str


@bp.get("/subjects/<subject:subject>")
def subject(subject: str) -> str:
    page = browsing.subject_page(_registry(), subject, _version_arg("version") or LATEST)
    return render_template("ui/subject.html", page=page)


@bp.get("/subjects/<subject:subject>/versions/<int:number>/schema<suffix>")
def download(subject: str, number: int, suffix: str) -> Response:
    """A version's schema as a file to save (``<subject>-v<n>.avsc``; ``.proto``, ``.json`` by its type),
    at a URL ending in its type's suffix (another suffix is no page)."""
    found = browsing.schema_download(_registry(), subject, number)
    if not found.name.endswith(suffix) or not suffix.startswith("."):
        raise NotFound()
    answer = Response(found.text, mimetype=found.media_type)
    answer.headers["Content-Disposition"] = f'attachment; filename="{found.name}"'
    return answer


@bp.get("/subjects/<subject:subject>/diff")
def diff(subject: str) -> tuple[str, int]:
    """Two versions compared; a version that cannot be compared shows the choice again with the reason."""
    try:
        found = browsing.version_diff(
            _registry(), subject, _version_arg("old"), _version_arg("new") or LATEST
        )
    except errors.VersionNotFound as exc:
        history = _registry().subject_history(subject)
        return render_template("ui/diff.html", diff=None, history=history, error=exc.message), 404
    return render_template("ui/diff.html", diff=found, history=found.history, error=None), 200


@bp.route("/check", methods=["GET", "POST"])
def check() -> tuple[str, int]:
    """The candidate check: the form (GET, prefilled with the subject's latest version), or the verdict
    under it (POST). Never registers anything."""
    if request.method == "GET":
        subject_name = request.args.get("subject", "").strip()
        start = browsing.check_prefill(_registry(), subject_name, _settings().max_subject_length)
        form = CheckForm(subject_name, start.text, start.rows, start.schema_type)
        return render_template("ui/check.html", form=form, outcome=None, error=None), 200
    rows = tuple(
        candidate.ReferenceRow(name, ref_subject, version)
        for name, ref_subject, version in zip(
            request.form.getlist("ref_name"),
            request.form.getlist("ref_subject"),
            request.form.getlist("ref_version"),
            strict=False,
        )
    )
    upload = request.files.get("schema_file")
    upload_name = upload.filename if upload is not None and upload.filename else None
    pasted = request.form.get("schema", "")
    if upload_name is not None and request.form.get("shown") == text_digest(pasted):
        pasted = ""  # the text the page was shown with (the latest version, the last check's), left as it was
    chosen = request.form.get("schema_type", DEFAULT_SCHEMA_TYPE)
    form = CheckForm(request.form.get("subject", ""), pasted, rows, chosen)
    cfg = _settings()
    limits = candidate.Limits(cfg.max_subject_length, cfg.max_schema_chars, cfg.max_json_depth)
    try:
        wanted = candidate.read_candidate(
            form.subject,
            form.schema,
            upload_name,
            upload.read() if upload_name is not None else None,
            limits,
            rows,
            chosen,
        )
    except candidate.CandidateError as exc:
        return render_template("ui/check.html", form=form, outcome=None, error=str(exc)), 422
    outcome = candidate.check_candidate(_registry(), wanted, request.host_url.rstrip("/"))
    # An upload is shown in the form, so the next try can start from it; the type is the one checked.
    form = CheckForm(
        form.subject, wanted.text if upload_name is not None else form.schema, rows, wanted.schema_type
    )
    listing = numbered_lines(wanted.text, {f.position.line for f in outcome.result.findings})
    return render_template("ui/check.html", form=form, outcome=outcome, listing=listing, error=None), 200


@bp.get("/schemas/<schema_id>")
def schema(schema_id: int) -> str:
    return render_template("ui/schema.html", page=browsing.schema_page(_registry(), schema_id))


@bp.route("/<path:rest>")
def not_found(rest: str) -> str:
    """Any other path under the page answers with the page's own 404, not the API's JSON one."""
    raise NotFound()
