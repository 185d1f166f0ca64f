"""Authentication's pure parts: what each request needs, who has it, the throttle, the header."""

from __future__ import annotations

import base64

import pytest

from registry.auth.credentials import (
    BasicCredentials,
    BearerToken,
    MalformedCredentials,
    Verifier,
    hash_secret,
    parse_authorization,
)
from registry.auth.permissions import (
    Need,
    Principal,
    Requirement,
    Role,
    Verdict,
    decide,
    public_paths,
    requirement,
)
from registry.auth.throttle import FailureThrottle

READER = Principal("r", Role.READ)
WRITER = Principal("w", Role.WRITE, ("team-a.",))
ADMIN = Principal("a", Role.ADMIN)


@pytest.mark.parametrize(
    ("method", "endpoint", "query", "expected"),
    [
        ("GET", "subjects.list_subjects", {}, Requirement(Need.READ)),
        ("POST", "subjects.lookup", {}, Requirement(Need.READ)),
        ("POST", "compatibility.check_version", {}, Requirement(Need.READ)),
        ("GET", "ui.subject", {}, Requirement(Need.READ)),
        ("POST", "ui.check", {}, Requirement(Need.READ)),  # the page's check registers nothing
        ("POST", "ui.subject", {}, Requirement(Need.ADMIN)),  # a POST the page does not take
        ("POST", "subjects.register", {}, Requirement(Need.WRITE, "team-a.x")),
        ("DELETE", "subjects.delete_subject", {}, Requirement(Need.WRITE, "team-a.x")),
        ("DELETE", "subjects.delete_version", {"permanent": "true"}, Requirement(Need.ADMIN)),
        ("DELETE", "subjects.delete_subject", {"permanent": "TRUE"}, Requirement(Need.ADMIN)),
        ("PUT", "config.put_subject", {}, Requirement(Need.ADMIN)),
        ("PUT", "mode.put_global", {}, Requirement(Need.ADMIN)),
        ("POST", "something.new", {}, Requirement(Need.ADMIN)),  # unknown writes default to admin
        ("GET", "users.list_all", {}, Requirement(Need.ADMIN)),  # a read, but of who may do what
        ("POST", "users.add", {}, Requirement(Need.ADMIN)),
        ("DELETE", "users.remove", {}, Requirement(Need.ADMIN)),
        ("POST", None, {}, Requirement(Need.READ)),  # no such route: 404 for whoever may read
    ],
)
def test_requirement_of_each_kind_of_request(
    method: str, endpoint: str | None, query: dict[str, str], expected: Requirement
) -> None:
    assert requirement(method, endpoint, {"subject": "team-a.x"}, query) == expected


@pytest.mark.parametrize(
    ("principal", "needed", "anonymous_read", "verdict"),
    [
        (None, Requirement(Need.READ), False, Verdict.UNAUTHENTICATED),
        (None, Requirement(Need.READ), True, Verdict.ALLOW),
        (None, Requirement(Need.WRITE, "team-a.x"), True, Verdict.UNAUTHENTICATED),  # never anonymous
        (None, Requirement(Need.ADMIN), True, Verdict.UNAUTHENTICATED),
        (READER, Requirement(Need.READ), False, Verdict.ALLOW),
        (READER, Requirement(Need.WRITE, "team-a.x"), False, Verdict.FORBIDDEN),
        (WRITER, Requirement(Need.READ), False, Verdict.ALLOW),
        (WRITER, Requirement(Need.WRITE, "team-a.x"), False, Verdict.ALLOW),
        (WRITER, Requirement(Need.WRITE, "team-b.x"), False, Verdict.FORBIDDEN),
        (WRITER, Requirement(Need.WRITE, "team-a"), False, Verdict.FORBIDDEN),  # prefix, not substring
        (WRITER, Requirement(Need.ADMIN), False, Verdict.FORBIDDEN),
        (ADMIN, Requirement(Need.WRITE, "anything"), False, Verdict.ALLOW),
        (ADMIN, Requirement(Need.ADMIN), False, Verdict.ALLOW),
    ],
)
def test_decide(
    principal: Principal | None, needed: Requirement, anonymous_read: bool, verdict: Verdict
) -> None:
    assert decide(principal, needed, anonymous_read) is verdict


def test_throttle_blocks_after_the_limit_until_the_window_passes() -> None:
    now = [1000.0]
    throttle = FailureThrottle(max_failures=3, window_s=60, clock=lambda: now[0])
    for expected in (1, 2):
        assert throttle.failed("u|ip") == expected
        assert throttle.retry_after("u|ip") == 0
    throttle.failed("u|ip")
    assert throttle.retry_after("u|ip") == 60
    assert throttle.retry_after("other|ip") == 0  # per user name and address
    now[0] += 59.5
    assert throttle.retry_after("u|ip") == 1
    now[0] += 1
    assert throttle.retry_after("u|ip") == 0


def test_success_forgets_earlier_failures() -> None:
    throttle = FailureThrottle(max_failures=2, window_s=60)
    throttle.failed("k")
    throttle.succeeded("k")
    assert throttle.failed("k") == 1


def test_a_flood_of_made_up_names_cannot_lift_a_lock_out() -> None:
    now = [0.0]
    throttle = FailureThrottle(max_failures=3, window_s=60, clock=lambda: now[0], max_keys=50)
    for _ in range(3):
        throttle.failed("alice|203.0.113.7")
    now[0] += 1
    for n in range(200):  # each a new key: memory stays bounded
        throttle.failed(f"made-up-{n}|203.0.113.7")
        assert len(throttle) <= 51
    assert throttle.retry_after("alice|203.0.113.7") == 59


def test_parse_basic_and_bearer() -> None:
    basic = "Basic " + base64.b64encode(b"alice:p:ss").decode()
    assert parse_authorization(basic) == BasicCredentials("alice", "p:ss")
    assert parse_authorization("Bearer abc.def") == BearerToken("abc", "def")
    assert parse_authorization(None) is None
    assert parse_authorization("  ") is None


@pytest.mark.parametrize(
    "header", ["Basic !!!", "Basic " + base64.b64encode(b"nocolon").decode(), "Bearer nodot", "Digest x"]
)
def test_malformed_headers_are_refused_with_a_reason(header: str) -> None:
    with pytest.raises(MalformedCredentials):
        parse_authorization(header)


def test_verifier_checks_argon2_hashes_and_remembers_only_successes() -> None:
    stored = hash_secret("correct horse")
    assert stored.startswith("$argon2") and "correct horse" not in stored
    verifier = Verifier()
    assert verifier.verify(stored, "wrong") is False
    assert verifier.verify(stored, "correct horse") is True
    assert verifier.verify(stored, "correct horse") is True  # from memory
    assert verifier.verify(stored, "wrong") is False  # a success does not open the door to others
    assert verifier.verify(hash_secret("other"), "correct horse") is False  # a new hash is checked anew
    assert verifier.verify(None, "anything") is False


@pytest.mark.parametrize(("metrics_public", "expected"), [(True, True), (False, False)])
def test_metrics_are_public_unless_the_deployment_says_otherwise(
    metrics_public: bool, expected: bool
) -> None:
    paths = public_paths(metrics_public)
    assert ("/metrics" in paths) is expected
    assert {"/", "/health"} <= paths
