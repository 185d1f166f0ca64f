"""Log records as JSON lines or text, and request ids: pure helpers, no Flask.

JSON lines let a log shipper index fields (request id, status, duration) without parsing prose; the
request id ties a client's report to the server's lines, so one sent in ``X-Request-ID`` is kept when it
is short and printable (anything else could forge log lines) and a fresh one is made otherwise.

The id of the request being handled is also kept in a context variable, so that every line logged while
it runs (an authentication failure, an unexpected error) carries it, not only the lines that pass it in
``extra``. Text lines escape control characters: a subject name is client input, and a newline in it
must not start a forged line of its own.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import uuid
from contextvars import ContextVar, Token
from datetime import UTC, datetime
from typing import TextIO

LOG_FORMATS = ("text", "json")
REQUEST_ID_HEADER = "X-Request-ID"
_VALID_REQUEST_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")
#: Attributes a request adds to its log records (``extra=``), copied into the JSON object when present.
REQUEST_FIELDS = ("request_id", "method", "path", "status", "duration_ms", "subject", "reason", "client")
_HANDLER_NAME = "registry-observability"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_current_request_id: ContextVar[str | None] = ContextVar("registry_request_id", default=None)


def request_id(incoming: str | None) -> str:
    """The client's id when it is safe to log, else a new random one."""
    if incoming and _VALID_REQUEST_ID.fullmatch(incoming):
        return incoming
    return uuid.uuid4().hex


def bind_request_id(rid: str) -> Token[str | None]:
    """Makes ``rid`` the id of lines logged from here on in this thread (undo with :func:`unbind`)."""
    return _current_request_id.set(rid)


def unbind(token: Token[str | None]) -> None:
    _current_request_id.reset(token)


def _request_id_of(record: logging.LogRecord) -> str | None:
    return getattr(record, "request_id", None) or _current_request_id.get()


def escape_controls(text: str) -> str:
    """``a\nb`` -> ``a\\nb``: one record stays one line, whatever a client put in a name."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


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
        rid = _request_id_of(record)
        if rid is not None:
            out["request_id"] = rid
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """Human-readable lines with the request id appended when there is one."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = escape_controls(record.message)  # the traceback, added after this, keeps its lines
        line = super().formatMessage(record)
        rid = _request_id_of(record)
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
