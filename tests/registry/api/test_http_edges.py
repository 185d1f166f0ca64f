"""Edge cases that only a real HTTP server shows: raw paths (encoded slashes), real limits, real errors."""

from __future__ import annotations

import http.client
import uuid
from urllib.parse import quote, urlsplit

import pytest
import requests

from tests.registry.api.helpers import CT, body, record

pytestmark = pytest.mark.integration


def raw_request(base: str, method: str, path: str, payload: bytes = b"") -> tuple[int, str, bytes]:
    """Sends the path byte for byte (requests would normalize it)."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.putrequest(method, path, skip_accept_encoding=True)
    conn.putheader("Content-Type", CT)
    conn.putheader("Content-Length", str(len(payload)))
    conn.endheaders(payload)
    resp = conn.getresponse()
    out = (resp.status, resp.getheader("Content-Type") or "", resp.read())
    conn.close()
    return out


def test_encoded_slashes_dots_and_colons_in_subjects(registry_url: str) -> None:
    subject = f"team/{uuid.uuid4().hex[:6]}:events.v1-value"
    encoded = quote(subject, safe="")
    resp = requests.post(
        f"{registry_url}/subjects/{encoded}/versions", json=body(record(id="long")), timeout=10
    )
    assert resp.status_code == 200, resp.text
    assert (
        requests.get(f"{registry_url}/subjects/{encoded}/versions/latest", timeout=10).json()["subject"]
        == subject
    )
    assert subject in requests.get(f"{registry_url}/subjects", timeout=10).json()


@pytest.mark.parametrize(
    ("method", "path", "payload", "status", "code"),
    [
        ("GET", "/nowhere", b"", 404, 404),
        ("PATCH", "/subjects", b"", 405, 405),
        ("POST", "/subjects/x/versions", b"\xff\xfe{", 400, 400),
        ("POST", "/subjects/x/versions", b"[" * 5000, 400, 400),
        ("POST", "/subjects/x%00y/versions", b"{}", 422, 42208),
        ("GET", "/schemas/ids/-7", b"", 404, 40403),
        ("GET", "/schemas/ids/99999999999999999999", b"", 404, 40403),
        ("GET", "/subjects/x/versions/99999999999", b"", 422, 42202),
    ],
)
def test_hostile_requests_get_json_errors(
    registry_url: str, method: str, path: str, payload: bytes, status: int, code: int
) -> None:
    got_status, content_type, raw = raw_request(registry_url, method, path, payload)
    assert (got_status, content_type) == (status, CT), raw[:300]
    assert requests.models.complexjson.loads(raw)["error_code"] == code


def test_body_over_the_default_limit_is_413(registry_url: str) -> None:
    resp = requests.post(
        f"{registry_url}/subjects/big/versions", data=b"x" * (3 * 1024 * 1024), headers={"Content-Type": CT}
    )
    assert resp.status_code == 413 and resp.json()["error_code"] == 413
