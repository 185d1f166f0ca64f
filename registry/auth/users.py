"""The users table: adding, removing and listing users, and finding the one a request names.

Look-ups are remembered for a few seconds per process, so an authenticated request costs no database
round trip; a removed user or a changed role therefore takes effect within ``LOOKUP_TTL_S``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from registry.auth.credentials import BearerToken, hash_secret, new_token
from registry.auth.permissions import Principal, Role
from registry.service.errors import StoreError
from registry.storage.db import Database
from registry.storage.models import User

LOOKUP_TTL_S = 5.0
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,127}")


class UserError(ValueError):
    """A user that cannot be added or removed as asked; the message says why."""


@dataclass(frozen=True)
class StoredUser:
    principal: Principal
    password_hash: str | None
    token_hash: str | None
    has_token: bool


def _stored(row: User) -> StoredUser:
    principal = Principal(row.name, Role(row.role), tuple(json.loads(row.write_prefixes or "[]")))
    return StoredUser(principal, row.password_hash, row.token_hash, row.token_id is not None)


def add_user(
    database: Database,
    name: str,
    role: Role,
    write_prefixes: tuple[str, ...] = (),
    password: str | None = None,
    with_token: bool = False,
) -> BearerToken | None:
    """Adds a user; returns the new bearer token (shown once, only its hash is kept) when asked for."""
    if not _NAME.fullmatch(name):
        raise UserError(f"user name {name!r}: letters, digits and . _ @ - only, at most 128 characters")
    if role is Role.WRITE and not write_prefixes:
        raise UserError('a write user needs at least one --prefix ("" for every subject)')
    if role is not Role.WRITE and write_prefixes:
        raise UserError("--prefix is for write users (admins write everywhere, readers nowhere)")
    if password is None and not with_token:
        raise UserError("a user needs a password, a token, or both")
    if password is not None and len(password) < 8:
        raise UserError("a password needs at least 8 characters")
    token = new_token() if with_token else None
    row = User(
        name=name,
        role=role.value,
        write_prefixes=json.dumps(list(write_prefixes)),
        password_hash=hash_secret(password) if password is not None else None,
        token_id=token.token_id if token else None,
        token_hash=hash_secret(token.secret) if token else None,
    )
    try:
        with database.write() as session:
            session.add(row)
    except IntegrityError as exc:
        raise UserError(f"user {name!r} exists already; remove it first") from exc
    return token


def remove_user(database: Database, name: str) -> None:
    with database.write() as session:
        removed = session.execute(delete(User).where(User.name == name)).rowcount
    if not removed:
        raise UserError(f"no user {name!r}")


def list_users(database: Database) -> list[StoredUser]:
    with database.read() as session:
        return [_stored(row) for row in session.scalars(select(User).order_by(User.name))]


class UserDirectory:
    """Finds users for requests, through a short-lived per-process memory (see the module docstring)."""

    def __init__(self, database: Database, ttl_s: float = LOOKUP_TTL_S) -> None:
        self.database = database
        self.ttl_s = ttl_s
        self._seen: dict[tuple[str, str], tuple[float, StoredUser | None]] = {}
        self._lock = threading.Lock()

    def by_name(self, name: str) -> StoredUser | None:
        return self._find(("name", name))

    def by_token_id(self, token_id: str) -> StoredUser | None:
        return self._find(("token", token_id))

    def _find(self, key: tuple[str, str]) -> StoredUser | None:
        now = time.monotonic()
        with self._lock:
            seen = self._seen.get(key)
            if seen and now - seen[0] < self.ttl_s:
                return seen[1]
        column = User.name if key[0] == "name" else User.token_id
        try:
            with self.database.read() as session:
                row = session.scalars(select(User).where(column == key[1])).first()
                found = _stored(row) if row else None
        except SQLAlchemyError as exc:  # the database is away: 50001, like every other request now
            raise StoreError(f"Error in the backend datastore: {exc}") from exc
        with self._lock:
            if len(self._seen) > 10_000:
                self._seen.clear()
            self._seen[key] = (now, found)
        return found
