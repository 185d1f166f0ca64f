"""How results read on a terminal and in CI logs."""

from __future__ import annotations

from pathlib import Path

from registry.schema_check.checker import FileResult, Finding, Status
from registry.schema_check.layout import schema_file
from registry.schema_check.push import Outcome, PushResult, format_push
from registry.schema_check.report import format_result, format_summary
from registry.schema_check.source_positions import Position

FILE = schema_file(Path("schemas/page_view.avsc"))
MISSING = Finding(
    Position(14, 5), "READER_FIELD_MISSING_DEFAULT_VALUE", "field 'referrer' has no default", "add one"
)


def test_a_failure_reads_like_a_compiler_error_then_the_fix() -> None:
    result = FileResult(FILE, Status.INCOMPATIBLE, (MISSING, Finding(Position(20, 1), "field-doc", "no doc")))
    assert format_result(result) == [
        "schemas/page_view.avsc:14:5: field 'referrer' has no default [READER_FIELD_MISSING_DEFAULT_VALUE]",
        "    fix: add one",
        "schemas/page_view.avsc:20:1: no doc [field-doc]",
        "schemas/page_view.avsc: incompatible (page_view-value)",
    ]


def test_a_pass_is_one_line_with_its_notes() -> None:
    result = FileResult(FILE, Status.PASSED, notes=("compatible under BACKWARD with version 1 (git HEAD)",))
    assert format_result(result) == [
        "schemas/page_view.avsc: ok (page_view-value; compatible under BACKWARD with version 1 (git HEAD))"
    ]


def test_summary_counts_failures() -> None:
    passed, failed = FileResult(FILE, Status.PASSED), FileResult(FILE, Status.INVALID)
    assert format_summary([passed]) == "1 schema file checked: all passed"
    assert format_summary([passed, failed, failed]) == "3 schema files checked: 2 failed"


def test_push_outcomes() -> None:
    assert format_push(PushResult(FILE, Outcome.UNCHANGED, 3, 12)) == [
        "schemas/page_view.avsc: page_view-value unchanged (version 3, id 12)"
    ]
    assert format_push(PushResult(FILE, Outcome.REGISTERED, 4, 13)) == [
        "schemas/page_view.avsc: page_view-value registered version 4 (id 13)"
    ]
    refused = PushResult(FILE, Outcome.REFUSED, reason="incompatible", findings=(MISSING,))
    assert refused.failed
    assert format_push(refused) == [
        "schemas/page_view.avsc: page_view-value refused: incompatible",
        "schemas/page_view.avsc:14:5: field 'referrer' has no default [READER_FIELD_MISSING_DEFAULT_VALUE]",
        "    fix: add one",
    ]
