"""The whole stack trace of what failed (Spark's and Py4J's included) goes to the `loader.trace` logger at
debug level; the run's own message says what failed in a line (`loader.outcome.message`). `loader run
--debug` prints the traces to stderr."""

from __future__ import annotations

import logging
import sys

TRACE_LOGGER = "loader.trace"
_trace = logging.getLogger(TRACE_LOGGER)


def log_trace(what: str, exc: BaseException) -> None:
    """`what` failed with `exc`: its stack trace, at debug level."""
    _trace.debug("%s", what, exc_info=exc)


def show_traces() -> None:
    """Prints the traces to stderr, apart from any other logging the process has."""
    if any(getattr(h, "name", None) == TRACE_LOGGER for h in _trace.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(TRACE_LOGGER)
    handler.setFormatter(logging.Formatter("%(asctime)s DEBUG %(message)s"))
    _trace.addHandler(handler)
    _trace.setLevel(logging.DEBUG)
    _trace.propagate = False
