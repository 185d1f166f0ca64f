"""Schema texts for the tests, laid out as people write them so that line numbers mean something."""

from __future__ import annotations

import json
from typing import Any

PAGE_VIEW_V1 = """{
  "type": "record",
  "name": "PageView",
  "namespace": "com.example.tracking",
  "doc": "A page was shown to a member.",
  "fields": [
    {"name": "member_id", "type": "long", "doc": "Who saw the page."},
    {"name": "url", "type": "string", "doc": "The page's URL."},
    {
      "name": "time",
      "type": {"type": "long", "logicalType": "timestamp-millis"},
      "doc": "When the page was shown (UTC)."
    }
  ]
}
"""

# Line 14, column 5: where the added field's object starts.
ADDED_WITHOUT_DEFAULT = PAGE_VIEW_V1.replace(
    """      "doc": "When the page was shown (UTC)."
    }
""",
    """      "doc": "When the page was shown (UTC)."
    },
    {"name": "referrer", "type": "string", "doc": "The page before."}
""",
)
ADDED_WITHOUT_DEFAULT_LINE = 14

ADDED_WITH_DEFAULT = ADDED_WITHOUT_DEFAULT.replace(
    '{"name": "referrer", "type": "string", "doc": "The page before."}',
    '{"name": "referrer", "type": ["null", "string"], "default": null, "doc": "The page before."}',
)

# The default "none" is not a long: invalid whatever the history. Line 7, column 54 is where it starts.
INVALID_DEFAULT = PAGE_VIEW_V1.replace(
    '{"name": "member_id", "type": "long", "doc": "Who saw the page."}',
    '{"name": "member_id", "type": "long", "default": "none", "doc": "Who saw the page."}',
)
INVALID_DEFAULT_LINE = 7

# url changed from string to int: a type change no reader can resolve. Line 8, column 29.
URL_AS_INT = PAGE_VIEW_V1.replace('{"name": "url", "type": "string"', '{"name": "url", "type": "int"')
URL_AS_INT_LINE, URL_AS_INT_COLUMN = 8, 29

SYNTAX_ERROR = PAGE_VIEW_V1.replace('"doc": "Who saw the page."}', '"doc": "Who saw the page."')


def record(name: str, fields: list[dict[str, Any]]) -> str:
    """A compact record schema, for tests where positions do not matter."""
    return json.dumps(
        {"type": "record", "name": name, "namespace": "com.example", "fields": fields}, indent=2
    )
