"""Which permission a request needs, and whether a user has it: decided on the route, never on data.

The decision uses only the Flask endpoint, the method, the subject in the path and ``?permanent``, so a
refused caller learns nothing about subjects (a writer outside its prefixes gets the same 403 whether the
subject exists or not), and an unknown route needs ``read`` like any other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum


class Role(str, Enum):
    READ = "read"
    WRITE = "write"
    ADMIN = "admin"


class Need(str, Enum):
    """What a request needs: reading, writing one subject, or administering the registry."""

    READ = "read"
    WRITE = "write"
    ADMIN = "admin"


class Verdict(str, Enum):
    ALLOW = "allow"
    UNAUTHENTICATED = "unauthenticated"  # 401
    FORBIDDEN = "forbidden"  # 403


@dataclass(frozen=True)
class Principal:
    """An authenticated user as the permission check sees it."""

    name: str
    role: Role
    write_prefixes: tuple[str, ...] = ()

    def may_write(self, subject: str) -> bool:
        if self.role is Role.ADMIN:
            return True
        return self.role is Role.WRITE and any(subject.startswith(p) for p in self.write_prefixes)


@dataclass(frozen=True)
class Requirement:
    need: Need
    subject: str | None = None

    def describe(self) -> str:
        if self.need is Need.WRITE:
            return f"write to subject '{self.subject}'"
        return "administer the registry" if self.need is Need.ADMIN else "read"


# Endpoints that change one subject's versions; with ?permanent=true a delete is an admin's.
_SUBJECT_WRITES = {"subjects.register", "subjects.delete_subject", "subjects.delete_version"}
_PERMANENT_CAPABLE = {"subjects.delete_subject", "subjects.delete_version"}
# POSTs that only read: looking a schema up under a subject, and compatibility checks (the page's too).
_READING_POSTS = {"subjects.lookup", "compatibility.check_version", "compatibility.check_all", "ui.check"}
# Reads that only an admin may make: who the users are and what they may do.
_ADMIN_READS = {"users.list_all"}
# Paths that answer without credentials: load balancers and Prometheus scrape them, and `/` (an empty
# JSON object, as Confluent's) is what start-up scripts and proxies poll. None says anything about data.
PUBLIC_PATHS = frozenset({"/", "/health", "/metrics"})
METRICS_PATH = "/metrics"


def public_paths(metrics_public: bool) -> frozenset[str]:
    """The paths that never ask for credentials; ``/metrics`` among them unless the deployment says no
    (route names and counts only, but some operators keep even those behind a login)."""
    return PUBLIC_PATHS if metrics_public else PUBLIC_PATHS - {METRICS_PATH}


def requirement(
    method: str, endpoint: str | None, view_args: Mapping[str, object], query: Mapping[str, str]
) -> Requirement:
    """What the request needs. Anything not known to read or to write one subject needs admin."""
    method = method.upper()
    if endpoint in _ADMIN_READS:
        return Requirement(Need.ADMIN)
    if method in ("GET", "HEAD", "OPTIONS") or endpoint is None or endpoint in _READING_POSTS:
        return Requirement(Need.READ)
    if endpoint in _SUBJECT_WRITES:
        permanent = str(query.get("permanent", "")).lower() == "true"
        if permanent and endpoint in _PERMANENT_CAPABLE:
            return Requirement(Need.ADMIN)
        return Requirement(Need.WRITE, str(view_args.get("subject", "")))
    return Requirement(Need.ADMIN)


def decide(principal: Principal | None, needed: Requirement, anonymous_read: bool) -> Verdict:
    """Write is never anonymous; read is when the deployment allows it."""
    if principal is None:
        if needed.need is Need.READ and anonymous_read:
            return Verdict.ALLOW
        return Verdict.UNAUTHENTICATED
    if needed.need is Need.READ:
        return Verdict.ALLOW
    if needed.need is Need.WRITE:
        return Verdict.ALLOW if principal.may_write(needed.subject or "") else Verdict.FORBIDDEN
    return Verdict.ALLOW if principal.role is Role.ADMIN else Verdict.FORBIDDEN
