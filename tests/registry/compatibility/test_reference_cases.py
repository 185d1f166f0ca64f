"""Avro Java's SchemaCompatibility test matrix, ported by category as data tables.

Each incompatible case lists every expected problem as (kind, reader pointer, writer pointer). Java keeps
one location that mixes both schemas (e.g. "/fields/1/type/1" where "1" is the writer's union branch);
we give a pointer into each schema instead. Each verdict is also checked against the Apache ``avro``
package, except for the cases in ``ORACLE_DEVIATIONS`` where that package differs from Java.
"""

from __future__ import annotations

from typing import Any

import pytest

from registry.compatibility import IncompatibilityKind, check_reader_writer
from tests.registry.compatibility.catalog import (
    A_DINT_B_DINT_RECORD1,
    A_DINT_B_ENUM1_RECORD1,
    A_DINT_B_ENUM2_RECORD1,
    A_DINT_B_FIXED4_RECORD1,
    A_DINT_B_FIXED8_RECORD1,
    A_DINT_B_INT_STRING_UNION_RECORD1,
    A_DINT_B_INT_UNION_RECORD1,
    A_DINT_RECORD1,
    A_INT_B_DINT_RECORD1,
    A_INT_B_INT_RECORD1,
    A_INT_RECORD1,
    A_LONG_RECORD1,
    BYTES_UNION,
    DOUBLE_UNION,
    EMPTY_RECORD1,
    EMPTY_RECORD2,
    EMPTY_UNION,
    ENUM1_AB,
    ENUM1_ABC,
    ENUM1_BC,
    ENUM2_AB,
    ENUM_AB_DEFAULT_A,
    ENUM_AB_DEFAULT_A_RECORD,
    ENUM_AB_FIELD_DEFAULT_A_ENUM_DEFAULT_B_RECORD,
    ENUM_ABC_DEFAULT_A,
    ENUM_ABC_DEFAULT_A_RECORD,
    ENUM_ABC_FIELD_DEFAULT_B_ENUM_DEFAULT_A_RECORD,
    FIXED_4,
    FIXED_8,
    FLOAT_UNION,
    INT_ARRAY,
    INT_FLOAT_UNION,
    INT_LIST,
    INT_LONG_FLOAT_DOUBLE_UNION,
    INT_LONG_UNION,
    INT_MAP,
    INT_STRING_UNION,
    INT_UNION,
    LONG_ARRAY,
    LONG_LIST,
    LONG_MAP,
    LONG_UNION,
    NS_RECORD1,
    NS_RECORD2,
    NULLABLE_INT_LIST,
    NULLABLE_LONG_LIST,
    NULLABLE_STRING_LIST,
    STRING_ARRAY,
    STRING_INT_UNION,
    STRING_UNION,
    field,
    fixed,
    parsed,
    record,
)
from tests.registry.compatibility.oracle import oracle_kinds

K = IncompatibilityKind

#: where the Apache ``avro`` package disagrees with Avro Java (we follow Java), and why
ORACLE_DEVIATIONS = {
    "alias-unqualified-in-namespace": (
        "the Python package compares a reader alias as written; Java qualifies it with the reader's "
        "namespace first, so alias 'Old' of 'x.New' means 'x.Old'"
    ),
}


def found(reader: Any, writer: Any) -> list[tuple[IncompatibilityKind, str, str]]:
    result = check_reader_writer(parsed(reader), parsed(writer))
    return [(i.kind, i.reader_pointer, i.writer_pointer) for i in result]


COMPATIBLE: list[tuple[str, Any, Any]] = [
    ("boolean", "boolean", "boolean"),
    ("int", "int", "int"),
    ("long<-int", "long", "int"),
    ("long", "long", "long"),
    ("float<-int", "float", "int"),
    ("float<-long", "float", "long"),
    ("double<-long", "double", "long"),
    ("double<-int", "double", "int"),
    ("double<-float", "double", "float"),
    ("string", "string", "string"),
    ("bytes", "bytes", "bytes"),
    ("null", "null", "null"),
    ("int-array", INT_ARRAY, INT_ARRAY),
    ("long-array<-int-array", LONG_ARRAY, INT_ARRAY),
    ("int-map", INT_MAP, INT_MAP),
    ("long-map<-int-map", LONG_MAP, INT_MAP),
    ("enum", ENUM1_AB, ENUM1_AB),
    ("enum-more-symbols", ENUM1_ABC, ENUM1_AB),
    ("string<-bytes", "string", "bytes"),
    ("bytes<-string", "bytes", "string"),
    ("empty-union", EMPTY_UNION, EMPTY_UNION),
    ("float-union<-empty-union", FLOAT_UNION, EMPTY_UNION),
    ("float-union<-int-union", FLOAT_UNION, INT_UNION),
    ("float-union<-long-union", FLOAT_UNION, LONG_UNION),
    ("float-union<-int-long-union", FLOAT_UNION, INT_LONG_UNION),
    ("int-union", INT_UNION, INT_UNION),
    ("int-string<-string-int", INT_STRING_UNION, STRING_INT_UNION),
    ("int-union<-empty-union", INT_UNION, EMPTY_UNION),
    ("long-union<-empty-union", LONG_UNION, EMPTY_UNION),
    ("long-union<-int-union", LONG_UNION, INT_UNION),
    ("double-union<-int-union", DOUBLE_UNION, INT_UNION),
    ("double-union<-long-union", DOUBLE_UNION, LONG_UNION),
    ("double-union<-float-union", DOUBLE_UNION, FLOAT_UNION),
    ("string-union<-empty-union", STRING_UNION, EMPTY_UNION),
    ("string-union<-bytes-union", STRING_UNION, BYTES_UNION),
    ("bytes-union<-empty-union", BYTES_UNION, EMPTY_UNION),
    ("bytes-union<-string-union", BYTES_UNION, STRING_UNION),
    ("double-union<-int-float-union", DOUBLE_UNION, INT_FLOAT_UNION),
    ("float<-int-float-union", "float", INT_FLOAT_UNION),
    ("long<-int-long-union", "long", INT_LONG_UNION),
    ("double<-int-float-union", "double", INT_FLOAT_UNION),
    ("double<-int-long-float-double-union", "double", INT_LONG_FLOAT_DOUBLE_UNION),
    ("float<-singleton-union", "float", FLOAT_UNION),
    ("singleton-union<-int", INT_UNION, "int"),
    ("int<-singleton-union", "int", INT_UNION),
    ("nullable<-non-null", ["null", "string"], "string"),
    ("fixed", FIXED_4, FIXED_4),
    ("empty-record", EMPTY_RECORD1, EMPTY_RECORD1),
    ("empty-record<-a-int", EMPTY_RECORD1, A_INT_RECORD1),
    ("a-int", A_INT_RECORD1, A_INT_RECORD1),
    ("a-dint<-a-int", A_DINT_RECORD1, A_INT_RECORD1),
    ("a-dint", A_DINT_RECORD1, A_DINT_RECORD1),
    ("a-int<-a-dint", A_INT_RECORD1, A_DINT_RECORD1),
    ("a-long<-a-int", A_LONG_RECORD1, A_INT_RECORD1),
    ("a-int<-a-int-b-int", A_INT_RECORD1, A_INT_B_INT_RECORD1),
    ("a-dint<-a-int-b-int", A_DINT_RECORD1, A_INT_B_INT_RECORD1),
    ("a-int-b-dint<-a-int", A_INT_B_DINT_RECORD1, A_INT_RECORD1),
    ("a-dint-b-dint<-empty", A_DINT_B_DINT_RECORD1, EMPTY_RECORD1),
    ("a-dint-b-dint<-a-int", A_DINT_B_DINT_RECORD1, A_INT_RECORD1),
    ("a-int-b-int<-a-dint-b-dint", A_INT_B_INT_RECORD1, A_DINT_B_DINT_RECORD1),
    ("recursive-int-list", INT_LIST, INT_LIST),
    ("recursive-long-list", LONG_LIST, LONG_LIST),
    ("recursive-long<-int-list", LONG_LIST, INT_LIST),
    ("recursive-nullable-long<-int-list", NULLABLE_LONG_LIST, NULLABLE_INT_LIST),
    ("enum-default-accepts-unknown-symbols", ENUM_AB_DEFAULT_A_RECORD, ENUM_ABC_DEFAULT_A_RECORD),
    (
        "enum-default-and-field-default",
        ENUM_AB_FIELD_DEFAULT_A_ENUM_DEFAULT_B_RECORD,
        ENUM_ABC_FIELD_DEFAULT_B_ENUM_DEFAULT_A_RECORD,
    ),
    ("top-level-enum-default", ENUM_AB_DEFAULT_A, ENUM_ABC_DEFAULT_A),
    ("inner-records-in-different-namespaces", NS_RECORD1, NS_RECORD2),
    ("record-renamed-with-alias", record("Renamed", [field("a", "int")], aliases=["Record1"]), A_INT_RECORD1),
    (
        "record-alias-full-name",
        record("New", [field("a", "int")], namespace="x", aliases=["y.Old"]),
        record("Old", [field("a", "int")], namespace="y"),
    ),
    (
        "alias-unqualified-in-namespace",
        record("New", [field("a", "int")], namespace="x", aliases=["Old"]),
        record("Old", [field("a", "int")], namespace="x"),
    ),
    ("field-renamed-with-alias", record("Record1", [field("b", "int", aliases=["a"])]), A_INT_RECORD1),
    ("enum-renamed-with-alias", {**ENUM2_AB, "aliases": ["Enum1"]}, ENUM1_AB),
    ("fixed-renamed-with-alias", fixed("Other", 4, aliases=["Fixed"]), FIXED_4),
    ("namespace-alone-does-not-matter", fixed("Fixed", 4, namespace="a"), fixed("Fixed", 4, namespace="b")),
    ("date<-int", {"type": "int", "logicalType": "date"}, "int"),
    ("int<-date", "int", {"type": "int", "logicalType": "date"}),
    (
        "decimal-parameters-ignored",
        {"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 2},
        {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 0},
    ),
    (
        "timestamp-units-ignored",
        {"type": "long", "logicalType": "timestamp-millis"},
        {"type": "long", "logicalType": "timestamp-micros"},
    ),
    ("string-array-in-union", ["null", STRING_ARRAY], STRING_ARRAY),
]


@pytest.mark.parametrize(("name", "reader", "writer"), COMPATIBLE, ids=[c[0] for c in COMPATIBLE])
def test_compatible_pairs(name: str, reader: Any, writer: Any) -> None:
    assert found(reader, writer) == []
    expected_by_oracle = name not in ORACLE_DEVIATIONS
    assert (oracle_kinds(reader, writer) is None) is expected_by_oracle


R1_INT = record("Record1", [field("field1", "int")])
R2_INT = record("Record2", [field("field1", "int")])

INCOMPATIBLE: list[tuple[str, Any, Any, list[tuple[IncompatibilityKind, str, str]]]] = [
    # TYPE_MISMATCH
    ("null<-int", "null", "int", [(K.TYPE_MISMATCH, "", "")]),
    ("null<-long", "null", "long", [(K.TYPE_MISMATCH, "", "")]),
    ("boolean<-int", "boolean", "int", [(K.TYPE_MISMATCH, "", "")]),
    ("int<-null", "int", "null", [(K.TYPE_MISMATCH, "", "")]),
    ("int<-boolean", "int", "boolean", [(K.TYPE_MISMATCH, "", "")]),
    ("int<-long", "int", "long", [(K.TYPE_MISMATCH, "", "")]),
    ("int<-float", "int", "float", [(K.TYPE_MISMATCH, "", "")]),
    ("int<-double", "int", "double", [(K.TYPE_MISMATCH, "", "")]),
    ("long<-float", "long", "float", [(K.TYPE_MISMATCH, "", "")]),
    ("long<-double", "long", "double", [(K.TYPE_MISMATCH, "", "")]),
    ("float<-double", "float", "double", [(K.TYPE_MISMATCH, "", "")]),
    ("double<-string", "double", "string", [(K.TYPE_MISMATCH, "", "")]),
    ("fixed<-string", FIXED_4, "string", [(K.TYPE_MISMATCH, "", "")]),
    ("string<-boolean", "string", "boolean", [(K.TYPE_MISMATCH, "", "")]),
    ("string<-int", "string", "int", [(K.TYPE_MISMATCH, "", "")]),
    ("bytes<-null", "bytes", "null", [(K.TYPE_MISMATCH, "", "")]),
    ("bytes<-int", "bytes", "int", [(K.TYPE_MISMATCH, "", "")]),
    ("record<-int", A_INT_RECORD1, "int", [(K.TYPE_MISMATCH, "", "")]),
    ("int-array<-long-array", INT_ARRAY, LONG_ARRAY, [(K.TYPE_MISMATCH, "/items", "/items")]),
    ("map<-array", INT_MAP, INT_ARRAY, [(K.TYPE_MISMATCH, "", "")]),
    ("array<-map", INT_ARRAY, INT_MAP, [(K.TYPE_MISMATCH, "", "")]),
    ("int-map<-long-map", INT_MAP, LONG_MAP, [(K.TYPE_MISMATCH, "/values", "/values")]),
    ("int<-enum", "int", ENUM2_AB, [(K.TYPE_MISMATCH, "", "")]),
    ("enum<-int", ENUM2_AB, "int", [(K.TYPE_MISMATCH, "", "")]),
    ("float<-number-union", "float", INT_LONG_FLOAT_DOUBLE_UNION, [(K.TYPE_MISMATCH, "", "/3")]),
    ("long<-int-float-union", "long", INT_FLOAT_UNION, [(K.TYPE_MISMATCH, "", "/1")]),
    ("int<-int-float-union", "int", INT_FLOAT_UNION, [(K.TYPE_MISMATCH, "", "/1")]),
    (
        "recursive-int<-long-list",
        INT_LIST,
        LONG_LIST,
        [(K.TYPE_MISMATCH, "/fields/0/type", "/fields/0/type")],
    ),
    (
        "recursive-nullable-string<-int-list",
        NULLABLE_STRING_LIST,
        NULLABLE_INT_LIST,
        [(K.TYPE_MISMATCH, "/fields/0/type", "/fields/0/type")],
    ),
    (
        "missing-field-with-enum-default-only",
        record("Record1", [field("field1", ENUM_AB_DEFAULT_A)]),
        record("Record1", [field("field2", ENUM2_AB)]),
        [(K.TYPE_MISMATCH, "/fields/0/type", "")],
    ),
    # NAME_MISMATCH
    ("enum-name", ENUM1_AB, ENUM2_AB, [(K.NAME_MISMATCH, "/name", "/name")]),
    ("record-name", EMPTY_RECORD2, EMPTY_RECORD1, [(K.NAME_MISMATCH, "/name", "/name")]),
    ("fixed-name", FIXED_4, fixed("AnotherName", 4), [(K.NAME_MISMATCH, "/name", "/name")]),
    (
        "nested-enum-name",
        A_DINT_B_ENUM1_RECORD1,
        A_DINT_B_ENUM2_RECORD1,
        [(K.NAME_MISMATCH, "/fields/1/type/name", "/fields/1/type/name")],
    ),
    (
        "alias-is-not-symmetric",
        A_INT_RECORD1,
        record("Renamed", [field("a", "int")], aliases=["Record1"]),
        [(K.NAME_MISMATCH, "/name", "/name")],
    ),
    # FIXED_SIZE_MISMATCH
    ("fixed-4<-8", FIXED_4, FIXED_8, [(K.FIXED_SIZE_MISMATCH, "/size", "/size")]),
    ("fixed-8<-4", FIXED_8, FIXED_4, [(K.FIXED_SIZE_MISMATCH, "/size", "/size")]),
    (
        "nested-fixed-8<-4",
        A_DINT_B_FIXED8_RECORD1,
        A_DINT_B_FIXED4_RECORD1,
        [(K.FIXED_SIZE_MISMATCH, "/fields/1/type/size", "/fields/1/type/size")],
    ),
    (
        "nested-fixed-4<-8",
        A_DINT_B_FIXED4_RECORD1,
        A_DINT_B_FIXED8_RECORD1,
        [(K.FIXED_SIZE_MISMATCH, "/fields/1/type/size", "/fields/1/type/size")],
    ),
    # MISSING_ENUM_SYMBOLS
    ("enum-ab<-abc", ENUM1_AB, ENUM1_ABC, [(K.MISSING_ENUM_SYMBOLS, "/symbols", "/symbols")]),
    ("enum-bc<-abc", ENUM1_BC, ENUM1_ABC, [(K.MISSING_ENUM_SYMBOLS, "/symbols", "/symbols")]),
    (
        "nested-enum-ab<-abc",
        record("Record1", [field("field1", ENUM1_AB)]),
        record("Record1", [field("field1", ENUM1_ABC)]),
        [(K.MISSING_ENUM_SYMBOLS, "/fields/0/type/symbols", "/fields/0/type/symbols")],
    ),
    (
        "field-default-does-not-cover-unknown-symbols",
        record("Record1", [field("field1", ENUM1_AB, "A")]),
        record("Record1", [field("field1", ENUM1_ABC)]),
        [(K.MISSING_ENUM_SYMBOLS, "/fields/0/type/symbols", "/fields/0/type/symbols")],
    ),
    # READER_FIELD_MISSING_DEFAULT_VALUE
    ("a-int<-empty", A_INT_RECORD1, EMPTY_RECORD1, [(K.READER_FIELD_MISSING_DEFAULT_VALUE, "/fields/0", "")]),
    (
        "a-int-b-dint<-empty",
        A_INT_B_DINT_RECORD1,
        EMPTY_RECORD1,
        [(K.READER_FIELD_MISSING_DEFAULT_VALUE, "/fields/0", "")],
    ),
    (
        "alias-matches-no-writer-field",
        record("Record1", [field("b", "int", aliases=["c"])]),
        A_INT_RECORD1,
        [(K.READER_FIELD_MISSING_DEFAULT_VALUE, "/fields/0", "")],
    ),
    # MISSING_UNION_BRANCH
    ("int-union<-int-string", INT_UNION, INT_STRING_UNION, [(K.MISSING_UNION_BRANCH, "", "/1")]),
    ("string-union<-int-string", STRING_UNION, INT_STRING_UNION, [(K.MISSING_UNION_BRANCH, "", "/0")]),
    ("int-union<-int-record1", INT_UNION, ["int", R1_INT], [(K.MISSING_UNION_BRANCH, "", "/1")]),
    ("int-union<-int-record2", INT_UNION, ["int", R2_INT], [(K.MISSING_UNION_BRANCH, "", "/1")]),
    ("record1-union<-record2-union", ["int", R1_INT], ["int", R2_INT], [(K.MISSING_UNION_BRANCH, "", "/1")]),
    ("int-union<-int-enum", INT_UNION, ["int", ENUM1_AB], [(K.MISSING_UNION_BRANCH, "", "/1")]),
    ("int-union<-int-fixed", INT_UNION, ["int", FIXED_4], [(K.MISSING_UNION_BRANCH, "", "/1")]),
    ("int-union<-int-boolean", INT_UNION, ["int", "boolean"], [(K.MISSING_UNION_BRANCH, "", "/1")]),
    ("int-union<-long-union", INT_UNION, LONG_UNION, [(K.MISSING_UNION_BRANCH, "", "/0")]),
    ("int-union<-float-union", INT_UNION, FLOAT_UNION, [(K.MISSING_UNION_BRANCH, "", "/0")]),
    ("int-union<-double-union", INT_UNION, DOUBLE_UNION, [(K.MISSING_UNION_BRANCH, "", "/0")]),
    ("int-union<-bytes-union", INT_UNION, BYTES_UNION, [(K.MISSING_UNION_BRANCH, "", "/0")]),
    ("int-union<-int-array", INT_UNION, ["int", INT_ARRAY], [(K.MISSING_UNION_BRANCH, "", "/1")]),
    ("int-union<-int-map", INT_UNION, ["int", INT_MAP], [(K.MISSING_UNION_BRANCH, "", "/1")]),
    ("int-union<-int-null", INT_UNION, ["int", "null"], [(K.MISSING_UNION_BRANCH, "", "/1")]),
    (
        "int-union<-number-union",
        INT_UNION,
        INT_LONG_FLOAT_DOUBLE_UNION,
        [
            (K.MISSING_UNION_BRANCH, "", "/1"),
            (K.MISSING_UNION_BRANCH, "", "/2"),
            (K.MISSING_UNION_BRANCH, "", "/3"),
        ],
    ),
    (
        "nested-union-lacks-string",
        A_DINT_B_INT_UNION_RECORD1,
        A_DINT_B_INT_STRING_UNION_RECORD1,
        [(K.MISSING_UNION_BRANCH, "/fields/1/type", "/fields/1/type/1")],
    ),
    ("nullable-union<-int", ["null", "string"], "int", [(K.MISSING_UNION_BRANCH, "", "")]),
    (
        "union-field<-map",
        record("R", [field("f", ["null", "int"])]),
        record("R", [field("f", INT_MAP)]),
        [(K.MISSING_UNION_BRANCH, "/fields/0/type", "/fields/0/type")],
    ),
]


@pytest.mark.parametrize(
    ("name", "reader", "writer", "expected"), INCOMPATIBLE, ids=[c[0] for c in INCOMPATIBLE]
)
def test_incompatible_pairs(name: str, reader: Any, writer: Any, expected: list) -> None:
    assert found(reader, writer) == expected
    assert oracle_kinds(reader, writer) == {kind for kind, _, _ in expected}
