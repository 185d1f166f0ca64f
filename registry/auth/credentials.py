"""Credentials: what the Authorization header says, argon2 hashing, and verification that stays fast.

argon2 is slow on purpose (tens of milliseconds), which a registry answering every serializer's start-up
cannot pay per request. A successful verification is remembered in-process, keyed by a SHA-256 of the
stored hash and the presented secret: the same credentials then cost one dictionary lookup, while a wrong
or changed secret (or a new hash after a password change) still goes through argon2.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()
TOKEN_ID_BYTES = 9  # 12 characters of URL-safe base64
TOKEN_SECRET_BYTES = 32


@dataclass(frozen=True)
class BasicCredentials:
    user: str
    password: str


@dataclass(frozen=True)
class BearerToken:
    token_id: str
    secret: str


class MalformedCredentials(ValueError):
    """An Authorization header that is neither valid Basic nor a bearer token of ours."""


def parse_authorization(header: str | None) -> BasicCredentials | BearerToken | None:
    """None when the request carries no credentials at all."""
    if not header or not header.strip():
        return None
    scheme, _, value = header.strip().partition(" ")
    value = value.strip()
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(value, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise MalformedCredentials("Basic credentials are not base64 of UTF-8 'user:password'") from exc
        user, colon, password = decoded.partition(":")
        if not colon or not user:
            raise MalformedCredentials("Basic credentials must be 'user:password'")
        return BasicCredentials(user, password)
    if scheme.lower() == "bearer":
        token_id, dot, secret = value.partition(".")
        if not dot or not token_id or not secret:
            raise MalformedCredentials("a bearer token is '<id>.<secret>', as `registry users add` prints it")
        return BearerToken(token_id, secret)
    raise MalformedCredentials(f"unsupported authorization scheme {scheme!r}: use Basic or Bearer")


def hash_secret(secret: str) -> str:
    return _hasher.hash(secret)


def new_token() -> BearerToken:
    return BearerToken(secrets.token_urlsafe(TOKEN_ID_BYTES), secrets.token_urlsafe(TOKEN_SECRET_BYTES))


def token_text(token: BearerToken) -> str:
    return f"{token.token_id}.{token.secret}"


class Verifier:
    """argon2 verification with an in-process memory of what verified (see the module docstring)."""

    def __init__(self, remembered: int = 4096) -> None:
        self._remembered: OrderedDict[bytes, None] = OrderedDict()
        self._limit = remembered
        self._lock = threading.Lock()

    def verify(self, stored_hash: str | None, secret: str) -> bool:
        if not stored_hash:
            return self.verify_unknown_user(secret)
        key = hashlib.sha256(stored_hash.encode() + b"\0" + secret.encode()).digest()
        with self._lock:
            if key in self._remembered:
                self._remembered.move_to_end(key)
                return True
        try:
            ok = _hasher.verify(stored_hash, secret)
        except (VerificationError, InvalidHashError):
            return False
        if ok:
            with self._lock:
                self._remembered[key] = None
                if len(self._remembered) > self._limit:
                    self._remembered.popitem(last=False)
        return ok

    def verify_unknown_user(self, secret: str) -> bool:
        """Spends the time a real verification would, so response times do not tell which users exist."""
        with contextlib.suppress(VerificationError, InvalidHashError):
            _hasher.verify(_DUMMY_HASH, secret + "\0")
        return False


_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))
