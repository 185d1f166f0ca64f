"""Reference cases beyond single pairs: many problems at once, shared and recursive types, aliases."""

from __future__ import annotations

from typing import Any

from registry.compatibility import IncompatibilityKind, check_reader_writer
from tests.registry.compatibility.catalog import (
    ENUM1_AB,
    ENUM2_AB,
    array,
    enum,
    field,
    fixed,
    map_of,
    parsed,
    record,
)
from tests.registry.compatibility.oracle import oracle_kinds

K = IncompatibilityKind


def found(reader: Any, writer: Any) -> list[tuple[IncompatibilityKind, str, str]]:
    result = check_reader_writer(parsed(reader), parsed(writer))
    return [(i.kind, i.reader_pointer, i.writer_pointer) for i in result]


def _multiple_reader_and_writer() -> tuple[dict, dict]:
    """Avro Java's "multiple incompatibilities" case: one record, a problem of every kind."""
    reader = record(
        "base",
        [
            field("check_enum_symbols_field", enum("check_enum_symbols_type", ["A", "C"])),
            field("check_enum_name_field", enum("check_enum_name_type", ["A", "B", "C", "D"])),
            field("type_mismatch_field", "string"),
            field(
                "sub_record",
                record(
                    "sub_record_type",
                    [
                        field("identical_1_field", "long", 42),
                        field("extra_no_default_field", "long"),
                        field("fixed_length_mismatch_field", fixed("fixed_length_mismatch_type", 4)),
                        field("union_missing_branches_field", ["boolean"]),
                        field("reader_union_does_not_support_type_field", ["boolean"]),
                        field(
                            "record_fqn_mismatch_field",
                            record(
                                "recordA",
                                [
                                    field("A_field_0", "boolean", True),
                                    field("array_type_mismatch_field", array("string")),
                                ],
                                namespace="not_nsA",
                            ),
                        ),
                    ],
                ),
            ),
        ],
    )
    writer = record(
        "base",
        [
            field("check_enum_symbols_field", enum("check_enum_symbols_type", ["A", "B", "C", "D"])),
            field("check_enum_name_field", enum("check_enum_name_type_ERR", ["A", "B", "C", "D"])),
            field("type_mismatch_field", "long"),
            field(
                "sub_record",
                record(
                    "sub_record_type",
                    [
                        field("identical_1_field", "long", 42),
                        field("fixed_length_mismatch_field", fixed("fixed_length_mismatch_type", 8)),
                        field("union_missing_branches_field", ["boolean", "double", "string"]),
                        field("reader_union_does_not_support_type_field", "long"),
                        field(
                            "record_fqn_mismatch_field",
                            record(
                                "recordA",
                                [
                                    field("A_field_0", "boolean", True),
                                    field("array_type_mismatch_field", array("boolean")),
                                ],
                                namespace="nsA",
                            ),
                        ),
                    ],
                ),
            ),
        ],
    )
    return reader, writer


def test_multiple_incompatibilities_are_all_reported_in_order() -> None:
    reader, writer = _multiple_reader_and_writer()
    sub_r, sub_w = "/fields/3/type/fields", "/fields/3/type/fields"
    # Java's older test also expected a NAME_MISMATCH for not_nsA.recordA vs nsA.recordA; Java now
    # compares unqualified names (and so does the Python package), so the namespace alone is no mismatch.
    assert found(reader, writer) == [
        (K.MISSING_ENUM_SYMBOLS, "/fields/0/type/symbols", "/fields/0/type/symbols"),
        (K.NAME_MISMATCH, "/fields/1/type/name", "/fields/1/type/name"),
        (K.TYPE_MISMATCH, "/fields/2/type", "/fields/2/type"),
        (K.READER_FIELD_MISSING_DEFAULT_VALUE, f"{sub_r}/1", "/fields/3/type"),
        (K.FIXED_SIZE_MISMATCH, f"{sub_r}/2/type/size", f"{sub_w}/1/type/size"),
        (K.MISSING_UNION_BRANCH, f"{sub_r}/3/type", f"{sub_w}/2/type/1"),
        (K.MISSING_UNION_BRANCH, f"{sub_r}/3/type", f"{sub_w}/2/type/2"),
        (K.MISSING_UNION_BRANCH, f"{sub_r}/4/type", f"{sub_w}/3/type"),
        (K.TYPE_MISMATCH, f"{sub_r}/5/type/fields/1/type/items", f"{sub_w}/4/type/fields/1/type/items"),
    ]
    assert oracle_kinds(reader, writer) == {
        K.MISSING_ENUM_SYMBOLS,
        K.NAME_MISMATCH,
        K.TYPE_MISMATCH,
        K.READER_FIELD_MISSING_DEFAULT_VALUE,
        K.FIXED_SIZE_MISMATCH,
        K.MISSING_UNION_BRANCH,
    }


def test_problem_in_a_shared_named_type_is_reported_at_every_use() -> None:
    point_r = record("Point", [field("x", "int")])
    point_w = record("Point", [field("x", "long")])
    reader = record("Line", [field("start", point_r), field("end", "Point")])
    writer = record("Line", [field("start", point_w), field("end", "Point")])
    assert found(reader, writer) == [
        (K.TYPE_MISMATCH, "/fields/0/type/fields/0/type", "/fields/0/type/fields/0/type"),
        (K.TYPE_MISMATCH, "/fields/1/type/fields/0/type", "/fields/1/type/fields/0/type"),
    ]


def test_name_problem_of_a_referenced_type_points_at_the_reference() -> None:
    reader = record("R", [field("a", ENUM1_AB), field("b", "Enum1")])
    writer = record("R", [field("a", ENUM2_AB), field("b", "Enum2")])
    assert found(reader, writer) == [
        (K.NAME_MISMATCH, "/fields/0/type/name", "/fields/0/type/name"),
        (K.NAME_MISMATCH, "/fields/1/type", "/fields/1/type"),
    ]


def test_mutually_recursive_records_terminate() -> None:
    reader = record(
        "A", [field("b", ["null", record("B", [field("a", ["null", "A"], None), field("n", "long")])], None)]
    )
    writer = record(
        "A", [field("b", ["null", record("B", [field("a", ["null", "A"], None), field("n", "int")])], None)]
    )
    assert found(reader, writer) == []
    # As in Java, a writer union branch the reader union cannot read is reported as a missing branch.
    assert found(writer, reader) == [(K.MISSING_UNION_BRANCH, "/fields/0/type", "/fields/0/type/1")]


def test_direct_field_name_wins_over_an_alias() -> None:
    # Java throws when a reader field matches one writer field by name and another by alias; we take the name.
    reader = record("R", [field("a", "long", aliases=["b"])])
    writer = record("R", [field("a", "int"), field("b", "string")])
    assert found(reader, writer) == []


def test_map_values_and_arrays_nest() -> None:
    reader = map_of(array(record("R", [field("x", "int")])))
    writer = map_of(array(record("R", [field("x", "string")])))
    result = check_reader_writer(parsed(reader), parsed(writer))
    assert [(i.kind, i.reader_pointer, i.path) for i in result] == [
        (K.TYPE_MISMATCH, "/values/items/fields/0/type", "map{}[].x")
    ]
