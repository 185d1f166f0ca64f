"""The page's static files under URLs that name their content (``ui.css?v=<hash>``), cached for a year.

A file's URL changes whenever the file does (the hash of its bytes, read once per process), so browsers
may keep it without asking again; a URL without the current hash (an old page, a hand-typed address)
is answered too, but must be revalidated.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from flask import Response, request, url_for

STATIC_DIR = Path(__file__).resolve().parent / "static"
ONE_YEAR = 365 * 24 * 3600


@cache
def fingerprint(filename: str) -> str:
    """The first 12 hex digits of the file's SHA-256 ("" for a file that is not there)."""
    path = STATIC_DIR / filename
    if not path.is_file():
        return ""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def static_url(filename: str) -> str:
    return url_for("ui.static", filename=filename, v=fingerprint(filename) or None)


def cache_headers(response: Response) -> Response:
    """For the current hash: cacheable for a year and immutable; otherwise revalidated each time."""
    if request.endpoint != "ui.static" or response.status_code != 200:
        return response
    filename = (request.view_args or {}).get("filename", "")
    if request.args.get("v") and request.args.get("v") == fingerprint(str(filename)):
        response.cache_control.no_cache = None
        response.cache_control.max_age = ONE_YEAR
        response.cache_control.immutable = True
    return response
