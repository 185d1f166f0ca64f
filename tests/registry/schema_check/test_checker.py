"""The check of one file as a value: validation, policies, compatibility, positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from registry.compatibility import CompatibilityLevel
from registry.schema_check.checker import (
    INVALID_SCHEMA,
    Baseline,
    Policies,
    PreviousVersion,
    Status,
    check_file,
)
from registry.schema_check.layout import schema_file
from registry.schema_check.policies import ADDED_FIELD_DEFAULT, FIELD_DOC
from registry.schema_check.source_positions import Position
from tests.registry.schema_check import schemas

FILE = schema_file(Path("schemas/page_view.avsc"))


def baseline(*texts: str, level: str = "BACKWARD") -> Baseline:
    versions = tuple(PreviousVersion(n, text, f"version {n}") for n, text in enumerate(texts, start=1))
    return Baseline(CompatibilityLevel(level), versions, "test")


def test_a_new_subject_is_only_validated() -> None:
    result = check_file(FILE, schemas.ADDED_WITHOUT_DEFAULT, baseline())
    assert result.status is Status.PASSED
    assert result.findings == ()
    assert result.notes == (
        "new subject page_view-value: nothing to be compatible with (test); validated only",
    )
    assert check_file(FILE, schemas.PAGE_VIEW_V1, None).status is Status.PASSED


def test_compatible_edit_passes_and_says_what_it_was_compared_with() -> None:
    result = check_file(FILE, schemas.ADDED_WITH_DEFAULT, baseline(schemas.PAGE_VIEW_V1))
    assert result.status is Status.PASSED
    assert result.notes == ("compatible under BACKWARD with version 1 (test)",)


def test_field_added_without_default_is_incompatible_at_its_line() -> None:
    result = check_file(FILE, schemas.ADDED_WITHOUT_DEFAULT, baseline(schemas.PAGE_VIEW_V1))
    assert result.status is Status.INCOMPATIBLE
    (finding,) = result.findings
    assert finding.position == Position(schemas.ADDED_WITHOUT_DEFAULT_LINE, 5)
    assert finding.rule == "READER_FIELD_MISSING_DEFAULT_VALUE"
    assert "referrer" in finding.message
    assert "the new schema cannot read data written with version 1" in finding.message
    assert finding.hint


def test_type_change_points_at_the_type() -> None:
    result = check_file(FILE, schemas.URL_AS_INT, baseline(schemas.PAGE_VIEW_V1))
    assert result.status is Status.INCOMPATIBLE
    assert [(f.position, f.rule) for f in result.findings] == [
        (Position(schemas.URL_AS_INT_LINE, schemas.URL_AS_INT_COLUMN), "TYPE_MISMATCH")
    ]


def test_forward_level_blames_the_old_readers() -> None:
    removed_url = schemas.record("PageView", [{"name": "member_id", "type": "long"}])
    with_url = schemas.record(
        "PageView", [{"name": "member_id", "type": "long"}, {"name": "url", "type": "string"}]
    )
    result = check_file(FILE, removed_url, baseline(with_url, level="FORWARD"))
    assert result.status is Status.INCOMPATIBLE
    assert (
        "consumers still on version 1 cannot read data written with the new schema"
        in result.findings[0].message
    )
    assert check_file(FILE, removed_url, baseline(with_url, level="BACKWARD")).status is Status.PASSED


def test_invalid_default_is_invalid_at_the_default_whatever_the_history() -> None:
    for history in (baseline(), baseline(schemas.PAGE_VIEW_V1), None):
        result = check_file(FILE, schemas.INVALID_DEFAULT, history)
        assert result.status is Status.INVALID
        assert [f.rule for f in result.findings] == [INVALID_SCHEMA]
        assert result.findings[0].position.line == schemas.INVALID_DEFAULT_LINE
        assert "default" in result.findings[0].message


def test_a_union_default_of_a_later_branch_passes_as_avro_1_12_allows() -> None:
    added = schemas.ADDED_WITHOUT_DEFAULT.replace(
        '{"name": "referrer", "type": "string", "doc": "The page before."}',
        '{"name": "referrer", "type": ["null", "string"], "default": "direct", "doc": "The page before."}',
    )
    assert added != schemas.ADDED_WITHOUT_DEFAULT
    result = check_file(FILE, added, baseline(schemas.PAGE_VIEW_V1))
    assert (result.status, result.findings) == (Status.PASSED, ())


def test_json_syntax_errors_keep_the_parsers_line() -> None:
    result = check_file(FILE, schemas.SYNTAX_ERROR, baseline(schemas.PAGE_VIEW_V1))
    assert result.status is Status.INVALID
    (finding,) = result.findings
    assert finding.rule == INVALID_SCHEMA
    assert finding.position.line in (7, 8)


def test_transitive_levels_name_every_version_a_problem_breaks() -> None:
    v1 = schemas.record("PageView", [{"name": "a", "type": "int"}])
    v2 = schemas.record(
        "PageView", [{"name": "a", "type": "int"}, {"name": "b", "type": "string", "default": ""}]
    )
    v3 = schemas.record("PageView", [{"name": "a", "type": "int"}, {"name": "b", "type": "string"}])
    assert check_file(FILE, v3, baseline(v1, v2, level="BACKWARD")).status is Status.PASSED
    result = check_file(FILE, v3, baseline(v1, v2, level="BACKWARD_TRANSITIVE"))
    assert result.status is Status.INCOMPATIBLE
    (finding,) = result.findings
    assert "version 1" in finding.message and "version 2" not in finding.message
    removed = schemas.record("PageView", [{"name": "a", "type": "string"}])
    (both,) = check_file(FILE, removed, baseline(v1, v2, level="BACKWARD_TRANSITIVE")).findings
    assert "version 1, version 2" in both.message


def test_level_none_compares_nothing() -> None:
    result = check_file(FILE, schemas.URL_AS_INT, baseline(schemas.PAGE_VIEW_V1, level="NONE"))
    assert result.status is Status.PASSED
    assert result.notes == ("compatibility level NONE for page_view-value: not compared",)


def test_require_docs_reports_undocumented_fields() -> None:
    text = schemas.record(
        "PageView", [{"name": "a", "type": "int"}, {"name": "b", "type": "int", "doc": "B."}]
    )
    result = check_file(FILE, text, None, Policies(require_docs=True))
    assert result.status is Status.INVALID
    assert [(f.rule, f.position.line) for f in result.findings] == [(FIELD_DOC, 6)]
    assert check_file(FILE, text, None).status is Status.PASSED


def test_require_defaults_catches_what_forward_allows_and_is_not_repeated_under_backward() -> None:
    forward = baseline(schemas.PAGE_VIEW_V1, level="FORWARD")
    assert check_file(FILE, schemas.ADDED_WITHOUT_DEFAULT, forward).status is Status.PASSED
    result = check_file(FILE, schemas.ADDED_WITHOUT_DEFAULT, forward, Policies(require_defaults=True))
    assert result.status is Status.INVALID
    assert [(f.rule, f.position) for f in result.findings] == [
        (ADDED_FIELD_DEFAULT, Position(schemas.ADDED_WITHOUT_DEFAULT_LINE, 5))
    ]
    backward = check_file(
        FILE, schemas.ADDED_WITHOUT_DEFAULT, baseline(schemas.PAGE_VIEW_V1), Policies(require_defaults=True)
    )
    assert [f.rule for f in backward.findings] == ["READER_FIELD_MISSING_DEFAULT_VALUE"]


@pytest.mark.parametrize(
    ("previous", "note"),
    [
        (
            PreviousVersion(1, "{}", "version 1", schema_type="PROTOBUF"),
            "version 1 is a PROTOBUF schema; not compared",
        ),
        (
            PreviousVersion(
                1, '"string"', "version 1", unresolved="uses schema references this check cannot resolve"
            ),
            "version 1 uses schema references this check cannot resolve; not compared",
        ),
        (PreviousVersion(1, '{"type": "nope"}', "version 1"), "version 1 is not a valid schema"),
    ],
)
def test_previous_versions_that_cannot_be_compared_are_noted_not_fatal(
    previous: PreviousVersion, note: str
) -> None:
    result = check_file(
        FILE, schemas.PAGE_VIEW_V1, Baseline(CompatibilityLevel.BACKWARD, (previous,), "test")
    )
    assert result.status is Status.PASSED
    assert any(n.startswith(note) for n in result.notes)


def test_a_long_transitive_history_is_summarised_as_a_range() -> None:
    history = [schemas.record("PageView", [{"name": f"f{n}", "type": "int", "default": 0}]) for n in range(5)]
    result = check_file(FILE, history[-1], baseline(*history, level="BACKWARD_TRANSITIVE"))
    assert result.status is Status.PASSED
    assert result.notes == (
        "compatible under BACKWARD_TRANSITIVE with version 1 to version 5 (5 versions) (test)",
    )
