"""Cross-site request forgery protection and one-shot notices for the page's admin forms, without a
server-side secret (any number of gunicorn workers and registry processes share nothing but the database).

A random token lives in an HttpOnly, SameSite=Strict cookie scoped to ``/ui``; every admin form carries it
in a hidden field, and a POST is refused unless the two match (another site can make a browser send the
cookie, never read it to copy it into the form) and, when the browser sends an ``Origin``, that origin is
the page's own. After an action, the notice shown on the next page travels the same way: a cookie the
next page reads and clears.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import quote, unquote, urlsplit

from flask import Request, Response, g, request

COOKIE = "registry_csrf"
FIELD = "csrf_token"
NOTICE_COOKIE = "registry_notice"
COOKIE_PATH = "/ui"
MAX_NOTICE_CHARS = 600


def new_token() -> str:
    return secrets.token_urlsafe(32)


def tokens_match(cookie: str | None, sent: str | None) -> bool:
    """Both present, equal, of a token's length; compared in constant time."""
    if not cookie or not sent or len(cookie) < 32:
        return False
    return hmac.compare_digest(cookie.encode(), sent.encode())


def same_origin(origin: str | None, host_url: str) -> bool:
    """No ``Origin`` (older browsers, same-origin GET-turned-POST) passes; one of another site does not."""
    if not origin:
        return True
    sent, own = urlsplit(origin), urlsplit(host_url)
    return (sent.scheme, sent.netloc) == (own.scheme, own.netloc)


def token() -> str:
    """This request's token: the browser's cookie, or a new one the response will set."""
    found = getattr(g, "csrf_token", None)
    if found is None:
        found = request.cookies.get(COOKIE) or ""
        if len(found) < 32:
            found = new_token()
            g.csrf_new = True
        g.csrf_token = found
    return found


def valid_post(req: Request) -> bool:
    return tokens_match(req.cookies.get(COOKIE), req.form.get(FIELD)) and same_origin(
        req.headers.get("Origin"), req.host_url
    )


def set_cookies(response: Response) -> Response:
    """Sets a newly made token, and the notice for the next page (or clears the one just shown)."""
    secure = request.is_secure
    if getattr(g, "csrf_new", False):
        response.set_cookie(COOKIE, g.csrf_token, path=COOKIE_PATH, httponly=True, samesite="Strict",
                            secure=secure)  # fmt: skip
    notice = getattr(g, "notice_next", None)
    if notice is not None:
        response.set_cookie(NOTICE_COOKIE, quote(notice[:MAX_NOTICE_CHARS]), path=COOKIE_PATH,
                            httponly=True, samesite="Strict", secure=secure)  # fmt: skip
    elif getattr(g, "notice_shown", False):
        response.delete_cookie(NOTICE_COOKIE, path=COOKIE_PATH, httponly=True, samesite="Strict",
                               secure=secure)  # fmt: skip
    return response


def notice_for_next_page(message: str) -> None:
    g.notice_next = message


def take_notice() -> str | None:
    """The notice an action left for this page (shown once)."""
    raw = request.cookies.get(NOTICE_COOKIE)
    if not raw:
        return None
    g.notice_shown = True
    return unquote(raw)[:MAX_NOTICE_CHARS]
