"""Subject names in the page's URLs: any printable text, ``/`` included, as one path segment.

Werkzeug's default converter leaves ``/`` unescaped when it builds a URL, which would split subject
``team/orders`` into two segments; this one escapes everything, and the app's raw-path handling (see
``registry.api``) keeps ``%2F`` inside the segment on the way back in.
"""

from __future__ import annotations

from urllib.parse import quote

from werkzeug.routing import BaseConverter


class SubjectConverter(BaseConverter):
    """One path segment holding a subject name; the app's URL preprocessor validates and decodes it."""

    def to_url(self, value: str) -> str:
        return quote(value, safe="")
