"""`loader run --debug`: the whole stack trace of what failed is printed on stderr; without it, nothing."""

from __future__ import annotations

import logging

import pytest

from loader.outcome.trace import TRACE_LOGGER, log_trace, show_traces


def failed() -> BaseException:
    try:
        try:
            raise ConnectionRefusedError(111, "Connection refused")
        except OSError as exc:
            raise RuntimeError("could not read the topic") from exc
    except RuntimeError as exc:
        return exc


def test_traces_are_printed_only_when_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    trace = logging.getLogger(TRACE_LOGGER)
    before = (list(trace.handlers), trace.level, trace.propagate)
    try:
        log_trace("topic t failed", failed())
        assert capsys.readouterr().err == ""

        show_traces()
        show_traces()  # once is enough: no second handler
        log_trace("topic t failed", failed())
        err = capsys.readouterr().err
        assert "DEBUG topic t failed" in err
        assert "ConnectionRefusedError: [Errno 111] Connection refused" in err
        assert "RuntimeError: could not read the topic" in err
        assert err.count("DEBUG topic t failed") == 1
    finally:
        trace.handlers[:], trace.level, trace.propagate = before
