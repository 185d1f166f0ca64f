"""What went wrong in Spark's JVM, in one line an operator can act on."""

from __future__ import annotations

from py4j.protocol import Py4JJavaError


def first_line(exc: Exception, limit: int) -> str:
    """The first line of what went wrong; for an error in Spark's JVM, of its innermost cause (a
    malformed or missing file names itself there, while the outer error says only which call failed)."""
    text = str(exc)
    if isinstance(exc, Py4JJavaError):
        cause = exc.java_exception
        while cause is not None:
            text = str(cause.getMessage() or text)
            cause = cause.getCause()
    return (text.splitlines() or [""])[0][:limit]
