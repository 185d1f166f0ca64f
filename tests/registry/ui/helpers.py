"""Schemas and small helpers shared by the page's tests (in-process and in the browser)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote

from flask.testing import FlaskClient

CT = {"Content-Type": "application/vnd.schemaregistry.v1+json"}
SUBJECT = "page-views-value"
HOSTILE_SUBJECT = "team/<script>window.pwned=1</script>-value"
HOSTILE_DOC = '<img src=x onerror="window.pwned=2"> & "quoted" </td></tr><script>window.pwned=3</script>'


def page_view(version: int) -> dict[str, Any]:
    """Three versions of one subject, each BACKWARD compatible with the one before."""
    fields: list[dict[str, Any]] = [
        {"name": "id", "type": "long", "doc": "Unique id of the view."},
        {"name": "url", "type": "string", "doc": "The page's address." if version < 2 else "The full URL."},
        {"name": "viewed_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {
            "name": "user",
            "type": {
                "type": "record",
                "name": "User",
                "fields": [
                    {"name": "name", "type": "string"},
                    {"name": "age", "type": "int" if version < 2 else "long", "default": 0},
                ],
            },
        },
    ]
    if version >= 2:
        fields.append({"name": "referrer", "type": ["null", "string"], "default": None, "doc": "Came from."})
    if version >= 3:
        fields.append({"name": "country", "type": "string", "default": "unknown"})
    return {"type": "record", "name": "PageView", "namespace": "com.example", "fields": fields}


def incompatible_with_latest() -> dict[str, Any]:
    """Version 3 with ``user.age`` narrowed back to int and a field without default: two BACKWARD breaks."""
    schema = page_view(3)
    schema["fields"][3]["type"]["fields"][1] = {"name": "age", "type": "int", "default": 0}
    schema["fields"].append({"name": "session", "type": "string"})
    return schema


def text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2)


class Markup(HTMLParser):
    """What a page holds that matters for safety: scripts, forms, inline styles and event handlers."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.script_bodies: list[str] = []
        self.forms: list[dict[str, str | None]] = []
        self.inline: list[str] = []
        self._in_script = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script":
            self.scripts.append(values)
            self._in_script = True
        if tag == "form":
            self.forms.append(values)
        self.inline += [f"{tag} {name}" for name, _ in attrs if name == "style" or name.startswith("on")]

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.script_bodies.append(data)


def api_path(subject: str) -> str:
    return quote(subject, safe="")


def register(client: FlaskClient, subject: str, schema: dict[str, Any] | str, **extra: Any) -> int:
    """Registers through the JSON API; returns the schema id."""
    body = {"schema": schema if isinstance(schema, str) else json.dumps(schema), **extra}
    answer = client.post(f"/subjects/{api_path(subject)}/versions", data=json.dumps(body), headers=CT)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return int(answer.get_json()["id"])


def api(client: FlaskClient, method: str, path: str, body: Any = None) -> Any:
    answer = client.open(path, method=method, data=None if body is None else json.dumps(body), headers=CT)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return answer.get_json()
