"""Compatibility levels: which versions take part, in which direction, in which order."""

from __future__ import annotations

import pytest

from registry.compatibility import (
    CompatibilityLevel,
    Conflict,
    IncompatibilityKind,
    check_compatibility,
    check_reader_writer,
)
from tests.registry.compatibility.catalog import field, parsed, record

K = IncompatibilityKind

V1 = parsed(record("User", [field("id", "int")]))
V2 = parsed(record("User", [field("id", "int"), field("email", "string", "")]))
V3 = parsed(record("User", [field("id", "long"), field("email", "string", "")]))


def summary(conflicts: list[Conflict]) -> list[tuple[int, str, IncompatibilityKind, str]]:
    return [(c.version, c.direction, c.incompatibility.kind, c.new_pointer) for c in conflicts]


HISTORY = [(1, V1), (2, V2), (3, V3)]
# The new schema narrows "id" back to int and adds "age" without a default. As a reader (BACKWARD) it
# cannot read v3's long ids, and no old version gives it an "age". As a writer (FORWARD) it is fine:
# every old version reads int ids (v3 as long), ignores "age", and has a default for "email".
NEW = parsed(record("User", [field("id", "int"), field("age", "int")]))


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        ("NONE", []),
        (
            "BACKWARD",
            [
                (3, "new_reads_old", K.TYPE_MISMATCH, "/fields/0/type"),
                (3, "new_reads_old", K.READER_FIELD_MISSING_DEFAULT_VALUE, "/fields/1"),
            ],
        ),
        (
            "BACKWARD_TRANSITIVE",
            [
                (3, "new_reads_old", K.TYPE_MISMATCH, "/fields/0/type"),
                (3, "new_reads_old", K.READER_FIELD_MISSING_DEFAULT_VALUE, "/fields/1"),
                (2, "new_reads_old", K.READER_FIELD_MISSING_DEFAULT_VALUE, "/fields/1"),
                (1, "new_reads_old", K.READER_FIELD_MISSING_DEFAULT_VALUE, "/fields/1"),
            ],
        ),
        ("FORWARD", []),
        ("FORWARD_TRANSITIVE", []),
        (
            "FULL",
            [
                (3, "new_reads_old", K.TYPE_MISMATCH, "/fields/0/type"),
                (3, "new_reads_old", K.READER_FIELD_MISSING_DEFAULT_VALUE, "/fields/1"),
            ],
        ),
    ],
)
def test_levels_choose_versions_and_directions(level: str, expected: list) -> None:
    assert summary(check_compatibility(NEW, HISTORY, level)) == expected


def test_forward_reports_the_old_reader_and_points_into_the_new_schema() -> None:
    new = parsed(record("User", [field("id", "long"), field("email", "string", "")]))
    [conflict] = check_compatibility(new, [(1, V1), (2, V2)], CompatibilityLevel.FORWARD)
    assert (conflict.version, conflict.direction) == (2, "old_reads_new")
    assert conflict.incompatibility.reader_pointer == "/fields/0/type"
    assert conflict.new_pointer == conflict.incompatibility.writer_pointer == "/fields/0/type"


def test_forward_new_pointer_is_the_writer_side() -> None:
    old = parsed(record("User", [field("id", "int"), field("name", "string")]))
    new = parsed(record("User", [field("id", "int")]))
    [conflict] = check_compatibility(new, [(7, old)], "FORWARD")
    assert conflict.incompatibility.kind is K.READER_FIELD_MISSING_DEFAULT_VALUE
    assert (conflict.incompatibility.reader_pointer, conflict.incompatibility.writer_pointer) == (
        "/fields/1",
        "",
    )
    assert conflict.new_pointer == ""


def test_full_transitive_checks_every_version_newest_first_in_both_directions() -> None:
    a = parsed(record("R", [field("x", "int")]))
    b = parsed(record("R", [field("x", "int"), field("y", "string", "")]))
    new = parsed(record("R", [field("x", "string")]))
    found = summary(check_compatibility(new, [(1, a), (2, b)], "FULL_TRANSITIVE"))
    assert found == [
        (2, "new_reads_old", K.TYPE_MISMATCH, "/fields/0/type"),
        (2, "old_reads_new", K.TYPE_MISMATCH, "/fields/0/type"),
        (1, "new_reads_old", K.TYPE_MISMATCH, "/fields/0/type"),
        (1, "old_reads_new", K.TYPE_MISMATCH, "/fields/0/type"),
    ]
    assert summary(check_compatibility(new, [(1, a), (2, b)], "FULL")) == found[:2]


def test_non_transitive_levels_use_the_last_given_version_only() -> None:
    broken = parsed(record("R", [field("x", "string")]))
    fine = parsed(record("R", [field("x", "int")]))
    new = parsed(record("R", [field("x", "long")]))
    assert check_compatibility(new, [(1, broken), (2, fine)], "BACKWARD") == []
    assert [c.version for c in check_compatibility(new, [(1, broken), (2, fine)], "BACKWARD_TRANSITIVE")] == [
        1
    ]


def test_empty_history_and_none_level_have_no_conflicts() -> None:
    incompatible = parsed("string")
    assert check_compatibility(incompatible, [], "FULL_TRANSITIVE") == []
    assert check_compatibility(incompatible, [(1, V1)], CompatibilityLevel.NONE) == []
    assert check_compatibility(incompatible, [(1, V1)], "FULL") != []


def test_level_strings_are_case_insensitive_and_unknown_ones_are_refused() -> None:
    assert check_compatibility(NEW, HISTORY, "backward") == check_compatibility(NEW, HISTORY, "BACKWARD")
    with pytest.raises(
        ValueError, match="unknown compatibility level 'SIDEWAYS'; valid levels: NONE, BACKWARD"
    ):
        check_compatibility(NEW, HISTORY, "SIDEWAYS")


def test_levels_are_strings() -> None:
    assert CompatibilityLevel("FULL_TRANSITIVE") == "FULL_TRANSITIVE"
    assert str(CompatibilityLevel.BACKWARD) == "BACKWARD"
    assert [level.value for level in CompatibilityLevel] == [
        "NONE",
        "BACKWARD",
        "BACKWARD_TRANSITIVE",
        "FORWARD",
        "FORWARD_TRANSITIVE",
        "FULL",
        "FULL_TRANSITIVE",
    ]
    assert IncompatibilityKind.TYPE_MISMATCH == "TYPE_MISMATCH"


def test_describe_is_one_line_with_version_direction_fix_and_pointer() -> None:
    old = parsed(record("PageView", [field("url", "string")]))
    new = parsed(record("PageView", [field("url", "string"), field("referrer", "string")]))
    [conflict] = check_compatibility(new, [(4, old)], "BACKWARD")
    assert conflict.describe() == (
        "version 4, new_reads_old (the new schema cannot read data written with version 4): "
        'READER_FIELD_MISSING_DEFAULT_VALUE: field "PageView.referrer" is in the reader but not in the '
        'writer, and has no default to fill it with; fix: add "default": null and make the type '
        '["null", "string"], or add a "default" of type string (new schema at /fields/1)'
    )
    [forward] = check_compatibility(old, [(5, new)], "FORWARD")
    assert forward.describe().startswith(
        "version 5, old_reads_new (version 5 cannot read data written with the new schema): "
    )
    assert forward.describe().endswith("(new schema at /)")
    assert "\n" not in forward.describe()


def test_conflicts_carry_the_same_incompatibilities_as_the_pairwise_check() -> None:
    conflicts = check_compatibility(NEW, HISTORY, "BACKWARD")
    assert [c.incompatibility for c in conflicts] == check_reader_writer(NEW, V3)
