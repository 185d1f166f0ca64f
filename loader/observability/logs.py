"""The loader's log lines: text for people, or one JSON object per line and event for machines
(`--log-format json`), each with the run's id; with JSON, the driver JVM's own lines too (Spark's log4j,
the JVM's warnings), each as one object (`JvmLines`, `jvm_lines_as_json`).

Whatever the format, a failed topic is one line holding its whole reason: control characters (a newline
in a Java message) are escaped, never wrapped into a table cell. `run_events` decides what a run says
(pure, from its report); `log_run` says it through the `loader.run` logger.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TextIO

from rich.console import Console

from loader.outcome.report import RunReport

LOGGER = "loader.run"
_HANDLER_NAME = "loader-json-lines"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def one_line(text: str) -> str:
    """`a\\nb` stays on one line as `a\\\\nb`: a reason never spreads over several log lines."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


@dataclass(frozen=True)
class Event:
    level: int
    message: str
    fields: dict[str, Any] = field(default_factory=dict)


def run_events(report: RunReport) -> list[Event]:
    """A line per topic that was not quiet (failed ones at ERROR, with the whole reason), then the run's
    line (its exit status, and what stopped it)."""
    events = []
    for topic in report.topics:
        if topic.status == "up to date" and not topic.notes:
            continue
        level = logging.ERROR if topic.status == "failed" else logging.INFO
        said = f"topic {topic.topic} {topic.status}"
        if topic.reason:
            said += f": {topic.reason}"
        if topic.notes:
            said += " (" + "; ".join(topic.notes) + ")"
        fields: dict[str, Any] = {
            "event": "topic",
            "run_id": report.run_id,
            "topic": topic.topic,
            "table": topic.table,
            "status": topic.status,
            "records": topic.records,
            "quarantined": topic.quarantined,
            "lost": topic.lost,
            "tombstones": topic.tombstones,
            "remaining": topic.remaining,
            "seconds": topic.seconds,
        }
        if topic.reason:
            fields["reason"] = one_line(topic.reason)
        if topic.notes:
            fields["notes"] = [one_line(n) for n in topic.notes]
        if topic.valid_through:
            fields["valid_through"] = topic.valid_through
        events.append(Event(level, one_line(said), fields))
    failed = sum(1 for t in report.topics if t.status == "failed")
    said = f"run {report.run_id} ended with status {report.exit_code} after {report.seconds:.1f} s"
    said += f": {len(report.topics)} topic(s), {failed} failed"
    if report.error:
        said += f"; {report.error}"
    run_fields: dict[str, Any] = {
        "event": "run",
        "run_id": report.run_id,
        "database": report.database,
        "exit_code": report.exit_code,
        "seconds": report.seconds,
        "topics": len(report.topics),
        "failed_topics": failed,
        "phases": report.phases,
    }
    if report.error:
        run_fields["error"] = one_line(report.error)
    level = logging.INFO if report.exit_code == 0 else logging.ERROR
    events.append(Event(level, one_line(said), run_fields))
    return events


def log_run(report: RunReport, log_format: str, logger: logging.Logger | None = None) -> None:
    """JSON: every event of the run. Text: a line per failed topic (the report's table says the rest)."""
    said = logger or logging.getLogger(LOGGER)
    for event in run_events(report):
        if log_format == "json" or (event.fields["event"] == "topic" and event.level >= logging.ERROR):
            said.log(event.level, event.message, extra={"loader_fields": event.fields})


class JsonLines(logging.Formatter):
    """One JSON object per record: time, level, logger, message and the event's fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": one_line(record.getMessage()),
        }
        out.update(getattr(record, "loader_fields", {}))
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def use_json_lines(stream: TextIO | None = None) -> None:
    """Every `loader` logger's records as JSON lines on stderr (or `stream`), at INFO and above."""
    logger = logging.getLogger("loader")
    for handler in list(logger.handlers):
        if handler.get_name() == _HANDLER_NAME:
            logger.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(JsonLines())
    logger.addHandler(handler)
    logger.propagate = False
    if logger.level == logging.NOTSET or logger.level > logging.INFO:
        logger.setLevel(logging.INFO)


def run_console(log_format: str) -> Console:
    """The console a run prints its progress and notes on: stderr, or JSON lines of `loader.run`."""
    if log_format != "json":
        return Console(stderr=True, soft_wrap=True)  # messages name paths: never cut them
    use_json_lines()
    return Console(file=LoggedLines(), soft_wrap=True, width=100_000, color_system=None)  # type: ignore[arg-type]


class LoggedLines:
    """A file for a rich Console whose every line becomes an INFO record of `loader.run` (so that what a
    run prints on its way, its notes, comes out as JSON lines too)."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self._logger = logger or logging.getLogger(LOGGER)
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            if line.strip():
                self._logger.info(line.strip(), extra={"loader_fields": {"event": "note"}})
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


# A line of log4j's console layout as Spark's default profile writes it (`yy/MM/dd HH:mm:ss LEVEL logger:
# message`), and a line the JVM itself writes (`WARNING: Using incubator modules: ...`).
_LOG4J_LINE = re.compile(
    r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d (?P<level>TRACE|DEBUG|INFO|WARN|ERROR|FATAL) (?P<logger>[^\s:]+): ?"
    r"(?P<message>.*)$"
)
_JVM_LINE = re.compile(r"^(?P<level>WARNING|ERROR|INFO): (?P<message>.*)$")
# A stack trace's line: a frame, a cause, an exception's own line.
_TRACE_LINE = re.compile(
    r"^(\s|Caused by: |Suppressed: |\.\.\. \d+ more|[\w$.]+(Exception|Error|Throwable)(: |$))"
)
JVM_LOGGER = "jvm"


class JvmLines:
    """The driver JVM's stderr, line by line, as JSON lines: a log4j line with its level and logger, a
    line of the JVM's own (`WARNING: ...`) with its level, a stack trace's line with the level and
    logger of the line it belongs to, any other line (Spark's `Setting default log level ...`) at INFO
    from the logger `jvm`. A line that is a JSON object already (the loader's own, written while the
    JVM started) stays as it is."""

    def __init__(self) -> None:
        self._level, self._logger = "INFO", JVM_LOGGER

    def record(self, line: str, at: datetime) -> str:
        line = line.rstrip("\r\n")
        if line.startswith("{"):
            try:
                if isinstance(json.loads(line), dict):
                    return line
            except ValueError:
                pass
        message = line
        if found := _LOG4J_LINE.match(line):
            self._level, self._logger, message = found["level"], found["logger"], found["message"]
        elif found := _JVM_LINE.match(line):
            level = "WARN" if found["level"] == "WARNING" else found["level"]
            self._level, self._logger, message = level, JVM_LOGGER, found["message"]
        elif not _TRACE_LINE.match(line):
            self._level, self._logger = "INFO", JVM_LOGGER
        out = {
            "timestamp": at.isoformat(timespec="milliseconds"),
            "level": self._level,
            "logger": self._logger,
            "message": one_line(message),
            "event": "jvm",
        }
        return json.dumps(out, ensure_ascii=False)


@contextmanager
def jvm_lines_as_json(enabled: bool) -> Iterator[None]:
    """With `enabled`, a process started in the block (the driver JVM) writes its stderr into a pipe that
    a thread of this one reads, writing each line on this process's stderr as a JSON object (`JvmLines`);
    the block's own writes to stderr pass through it too. This process's stderr is its own again after
    the block; the thread goes on until the JVM or this process ends."""
    if not enabled:
        yield
        return
    read_end, write_end = os.pipe()
    out = os.fdopen(os.dup(sys.stderr.fileno()), "w", encoding="utf-8", errors="replace")
    relay = threading.Thread(target=_relay, args=(read_end, out), name="jvm-lines", daemon=True)
    relay.start()
    # At this process's exit, a moment for the lines still in the pipe: the JVM ends only after this
    # process (when its end of the JVM's input closes), so its end of the pipe cannot be waited for.
    atexit.register(relay.join, 0.25)
    saved = os.dup(2)
    sys.stderr.flush()
    os.dup2(write_end, 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(write_end)  # the JVM holds the pipe's only writing end now: its end is the relay's


def _relay(read_end: int, out: TextIO) -> None:
    lines = JvmLines()
    with os.fdopen(read_end, encoding="utf-8", errors="replace") as pipe:
        for line in pipe:
            if line.strip():
                out.write(lines.record(line, datetime.now(UTC)) + "\n")
                out.flush()
