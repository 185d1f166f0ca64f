"""An exception's chain as plain data: each exception's class name and message, outermost first.

Python's own causes and contexts are followed, and for an error in Spark's JVM (py4j's `Py4JJavaError`, or
PySpark's `CapturedException` made from one) the Java throwable's causes too (`getCause()`). A Spark job
that failed in a task carries the task's error only as text (`Job aborted due to stage failure: ... Lost
task ...: java.io.IOException: No space left on device`, and its `Caused by:` lines): the exceptions
named there are links too, each with its own message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from py4j.protocol import Py4JError, Py4JJavaError

MAX_LINKS = 40
# A Java exception named in a message: `java.io.IOException: No space left on device`, the task's error
# in a Spark job's message and every `Caused by:` line of the stack trace it carries.
_NAMED = re.compile(r"((?:[a-z_][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Failure|Fault))(?::[ \t]*([^\n]*))?")


@dataclass(frozen=True)
class Link:
    """One exception of a chain: its class (a Python name, or a Java class's full name), its message,
    and the file it names, when it says which (`OSError.filename`, a loader error's `path`)."""

    kind: str
    message: str
    path: str | None = None


def exception_chain(exc: BaseException) -> list[Link]:
    """Every exception of `exc`'s chain, outermost first, without repeats."""
    links: list[Link] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(links) < MAX_LINKS:
        seen.add(id(current))
        links.append(_python_link(current))
        throwable = _java_throwable(current)
        if throwable is not None:
            links.extend(_java_links(throwable))
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return links[:MAX_LINKS]


def named_in(text: str) -> list[Link]:
    """The Java exceptions a message names (a task's error, `Caused by:` lines), in order; stack frames
    (`at x.y.Z.method(...)`) are not exceptions and are left out."""
    links = []
    for line in text.splitlines():
        if line.lstrip().startswith("at "):
            continue
        for kind, message in _NAMED.findall(line):
            links.append(Link(kind, message.strip()))
    return links


def _python_link(exc: BaseException) -> Link:
    if isinstance(exc, Py4JJavaError):
        kind = "py4j.protocol.Py4JJavaError"
        message = str(exc.errmsg if hasattr(exc, "errmsg") else "").strip()
    else:
        kind = f"{type(exc).__module__}.{type(exc).__qualname__}".removeprefix("builtins.")
        message = _python_message(exc)
    path = getattr(exc, "path", None) or getattr(exc, "filename", None)
    return Link(kind, message, str(path) if path else None)


def _python_message(exc: BaseException) -> str:
    throwable = _java_throwable(exc)
    if throwable is not None:  # PySpark's exceptions add the whole JVM stack trace to their text
        return getattr(exc, "_desc", "") or ""
    return str(exc)


def _java_throwable(exc: BaseException) -> Any:
    if isinstance(exc, Py4JJavaError):
        return exc.java_exception
    return getattr(exc, "_origin", None)  # PySpark's CapturedException


def _java_links(throwable: Any) -> list[Link]:
    links: list[Link] = []
    try:
        while throwable is not None and len(links) < MAX_LINKS:
            message = str(throwable.getMessage() or "")
            links.append(Link(str(throwable.getClass().getName()), message))
            links.extend(named_in(message))
            cause = throwable.getCause()
            throwable = None if cause is None or cause.equals(throwable) else cause
    except Py4JError:  # the JVM is gone (a run stopped by a signal): what was read so far
        pass
    return _unique(links)


def _unique(links: list[Link]) -> list[Link]:
    seen: set[tuple[str, str]] = set()
    kept = []
    for link in links:
        if (link.kind, link.message) not in seen:
            seen.add((link.kind, link.message))
            kept.append(link)
    return kept
