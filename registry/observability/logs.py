"""Log records as JSON lines or text, and request ids: pure helpers, no Flask.

JSON lines let a log shipper index fields (request id, status, duration) without parsing prose; the
request id ties a client's report to the server's lines, so one sent in ``X-Request-ID`` is kept when it
is short and printable (anything else could forge log lines) and a fresh one is made otherwise.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import uuid
from datetime import UTC, datetime
from typing import TextIO

LOG_FORMATS = ("text", "json")
REQUEST_ID_HEADER = "X-Request-ID"
_VALID_REQUEST_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")
#: Attributes a request adds to its log records (``extra=``), copied into the JSON object when present.
REQUEST_FIELDS = ("request_id", "method", "path", "status", "duration_ms", "subject", "reason", "client")
_HANDLER_NAME = "registry-observability"


def request_id(incoming: str | None) -> str:
    """The client's id when it is safe to log, else a new random one."""
    if incoming and _VALID_REQUEST_ID.fullmatch(incoming):
        return incoming
    return uuid.uuid4().hex


class JsonFormatter(logging.Formatter):
    """One JSON object per line: timestamp, level, logger, message and the request fields present."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "pid": record.process,
            "message": record.getMessage(),
        }
        for name in REQUEST_FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                out[name] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """Human-readable lines with the request id appended when there is one."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        rid = getattr(record, "request_id", None)
        return f"{line} [request_id={rid}]" if rid else line


def configure(log_format: str, level: int = logging.INFO, stream: TextIO | None = None) -> None:
    """Sends the ``registry`` loggers to ``stream`` (stderr) in ``log_format``; a second call replaces it."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"log format must be one of {', '.join(LOG_FORMATS)}, not {log_format!r}")
    logger = logging.getLogger("registry")
    for handler in [h for h in logger.handlers if h.get_name() == _HANDLER_NAME]:
        logger.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    logger.addHandler(handler)
    logger.setLevel(level)
