"""``/users``: what ``registry users`` does, over HTTP for admins (only when authentication is on).

The admin role covers users, so an administrator does not need database access to let a team in or to
cut a leaked token off. Passwords and tokens travel only in requests and the one answer that issues a
token; like the CLI, only their argon2 hashes are stored. Invalid requests answer 400 with the reason.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response, g

from registry.api.common import json_body, registry, reply
from registry.auth.credentials import token_text
from registry.auth.permissions import Role
from registry.auth.users import UserError, add_user, list_users, remove_user
from registry.service import errors

bp = Blueprint("users", __name__)
log = logging.getLogger("registry.users")


def _admin() -> str:
    principal = g.get("principal")
    return principal.name if principal is not None else "-"


def _role(raw: Any) -> Role:
    try:
        return Role(raw)
    except ValueError:
        raise errors.BadRequest(f"'role' must be one of {', '.join(r.value for r in Role)}.") from None


def _prefixes(raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        raise errors.BadRequest("'prefixes' must be a list of strings.")
    return tuple(raw)


@bp.get("/users")
def list_all() -> Response:
    """Names, roles, write prefixes and which credentials each user has (never a hash)."""
    found = list_users(registry().db)
    return reply(
        [
            {
                "name": u.principal.name,
                "role": u.principal.role.value,
                "prefixes": list(u.principal.write_prefixes),
                "password": u.password_hash is not None,
                "token": u.has_token,
            }
            for u in found
        ]
    )


@bp.post("/users")
def add() -> Response:
    """``{"name", "role", "prefixes"?, "password"?, "token"?: true}``; a token is in this answer only."""
    body = json_body()
    name, password, with_token = body.get("name"), body.get("password"), body.get("token", False)
    if not isinstance(name, str):
        raise errors.BadRequest("'name' must be a string.")
    if password is not None and not isinstance(password, str):
        raise errors.BadRequest("'password' must be a string.")
    if not isinstance(with_token, bool):
        raise errors.BadRequest("'token' must be true or false.")
    role = _role(body.get("role"))
    try:
        token = add_user(registry().db, name, role, _prefixes(body.get("prefixes")), password, with_token)
    except UserError as exc:
        raise errors.BadRequest(str(exc)) from None
    log.warning("user added: user=%s role=%s by=%s", name, role.value, _admin())
    answer: dict[str, Any] = {"name": name, "role": role.value}
    if token is not None:
        answer["token"] = token_text(token)
    return reply(answer)


@bp.delete("/users/<name>")
def remove(name: str) -> Response:
    """Removes a user; running servers stop accepting it within a few seconds (their look-up memory)."""
    try:
        remove_user(registry().db, name)
    except UserError as exc:
        raise errors.BadRequest(str(exc)) from None
    log.warning("user removed: user=%s by=%s", name, _admin())
    return reply({"name": name})
