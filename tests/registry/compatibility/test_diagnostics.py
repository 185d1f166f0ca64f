"""The exact text people read: kind, pointers, field path, message and hint of each problem."""

from __future__ import annotations

from typing import Any

import pytest

from registry.compatibility import Incompatibility, IncompatibilityKind, check_reader_writer
from tests.registry.compatibility.catalog import array, enum, field, fixed, map_of, parsed, record

K = IncompatibilityKind
LACKS_STRING = (
    '"PageView.x": the writer can write string, which no branch of the reader\'s union [null, int] reads'
)
MISSING_REFERRER = (
    'field "PageView.referrer" is in the reader but not in the writer, and has no default to fill it with'
)


def page_view(*fields: dict) -> dict[str, Any]:
    return record("PageView", list(fields), namespace="com.acme")


CASES: list[tuple[str, Any, Any, Incompatibility]] = [
    (
        "new-field-without-default",
        page_view(field("url", "string"), field("referrer", "string")),
        page_view(field("url", "string")),
        Incompatibility(
            K.READER_FIELD_MISSING_DEFAULT_VALUE,
            "/fields/1",
            "",
            "PageView.referrer",
            MISSING_REFERRER,
            'add "default": null and make the type ["null", "string"], or add a "default" of type string',
        ),
    ),
    (
        "new-nullable-field-without-default",
        page_view(field("referrer", ["null", "string"])),
        page_view(),
        Incompatibility(
            K.READER_FIELD_MISSING_DEFAULT_VALUE,
            "/fields/0",
            "",
            "PageView.referrer",
            MISSING_REFERRER,
            'add "default": null to the field "referrer"',
        ),
    ),
    (
        "new-union-field-null-last",
        page_view(field("referrer", ["string", "null"])),
        page_view(),
        Incompatibility(
            K.READER_FIELD_MISSING_DEFAULT_VALUE,
            "/fields/0",
            "",
            "PageView.referrer",
            MISSING_REFERRER,
            'add "default": null to the field "referrer"',  # Avro 1.12: any branch may hold the default
        ),
    ),
    (
        "new-union-field-without-null",
        page_view(field("n", ["string", "int"])),
        page_view(),
        Incompatibility(
            K.READER_FIELD_MISSING_DEFAULT_VALUE,
            "/fields/0",
            "",
            "PageView.n",
            'field "PageView.n" is in the reader but not in the writer, and has no default to fill it with',
            'add a "default" matching one of the union\'s branches (string, int)',
        ),
    ),
    (
        "new-map-field",
        page_view(field("tags", map_of("string"))),
        page_view(),
        Incompatibility(
            K.READER_FIELD_MISSING_DEFAULT_VALUE,
            "/fields/0",
            "",
            "PageView.tags",
            'field "PageView.tags" is in the reader but not in the writer, '
            "and has no default to fill it with",
            'add "default": null and make the type ["null", {"type": "map", "values": ...}], '
            'or add a "default" of type map',
        ),
    ),
    (
        "narrowed-type-in-array-of-records",
        page_view(field("items", array(record("Item", [field("price", "int")])))),
        page_view(field("items", array(record("Item", [field("price", "double")])))),
        Incompatibility(
            K.TYPE_MISMATCH,
            "/fields/0/type/items/fields/0/type",
            "/fields/0/type/items/fields/0/type",
            "PageView.items[].price",
            '"PageView.items[].price" is int in the reader but double in the writer, '
            "and double data cannot be read as int",
            "the reader must use double here (or a union that includes it)",
        ),
    ),
    (
        "int-written-read-as-string",
        page_view(field("count", "string")),
        page_view(field("count", "int")),
        Incompatibility(
            K.TYPE_MISMATCH,
            "/fields/0/type",
            "/fields/0/type",
            "PageView.count",
            '"PageView.count" is string in the reader but int in the writer, '
            "and int data cannot be read as string",
            "the reader must use int, long, float or double here (or a union with one of them)",
        ),
    ),
    (
        "enum-written-read-as-string",
        page_view(field("kind", "string")),
        page_view(field("kind", enum("Kind", ["A"]))),
        Incompatibility(
            K.TYPE_MISMATCH,
            "/fields/0/type",
            "/fields/0/type",
            "PageView.kind",
            '"PageView.kind" is string in the reader but enum "com.acme.Kind" in the writer, '
            "and enum data cannot be read as string",
            'the reader must use the writer\'s type (enum "com.acme.Kind") here, or a union that includes it',
        ),
    ),
    (
        "map-values",
        map_of("int"),
        map_of("string"),
        Incompatibility(
            K.TYPE_MISMATCH,
            "/values",
            "/values",
            "map{}",
            '"map{}" is int in the reader but string in the writer, and string data cannot be read as int',
            "the reader must use string or bytes here (or a union with one of them)",
        ),
    ),
    (
        "missing-enum-symbols",
        page_view(field("kind", enum("Kind", ["A", "B"]))),
        page_view(field("kind", enum("Kind", ["A", "B", "D", "C"]))),
        Incompatibility(
            K.MISSING_ENUM_SYMBOLS,
            "/fields/0/type/symbols",
            "/fields/0/type/symbols",
            "PageView.kind",
            '"PageView.kind" is enum "com.acme.Kind", which lacks the writer\'s symbols C, D',
            'add C, D to the reader enum\'s "symbols", or give the reader enum a "default" symbol',
        ),
    ),
    (
        "fixed-size",
        page_view(field("id", fixed("Id", 8))),
        page_view(field("id", fixed("Id", 16))),
        Incompatibility(
            K.FIXED_SIZE_MISMATCH,
            "/fields/0/type/size",
            "/fields/0/type/size",
            "PageView.id",
            '"PageView.id" is fixed "com.acme.Id" of size 8 in the reader but 16 in the writer',
            'keep "size": 16; the size of a fixed cannot change',
        ),
    ),
    (
        "renamed-record",
        record("New", []),
        record("Old", [], namespace="a"),
        Incompatibility(
            K.NAME_MISMATCH,
            "/name",
            "/name",
            "New",
            '"New" is record "New" in the reader but "a.Old" in the writer',
            'name it "Old" in the reader, or add "a.Old" to its "aliases"',
        ),
    ),
    (
        "writer-union-gained-a-branch",
        page_view(field("x", ["null", "int"])),
        page_view(field("x", ["null", "int", "string"])),
        Incompatibility(
            K.MISSING_UNION_BRANCH,
            "/fields/0/type",
            "/fields/0/type/2",
            "PageView.x",
            LACKS_STRING,
            "add string (or a type it can be read as) to the reader's union",
        ),
    ),
    (
        "reader-union-lacks-the-writer-type",
        page_view(field("x", ["null", "int"])),
        page_view(field("x", "string")),
        Incompatibility(
            K.MISSING_UNION_BRANCH,
            "/fields/0/type",
            "/fields/0/type",
            "PageView.x",
            LACKS_STRING,
            "add string (or a type it can be read as) to the reader's union",
        ),
    ),
    (
        "same-record-branch-changed",
        page_view(field("x", ["null", record("Point", [field("x", "int")])])),
        page_view(field("x", ["null", record("Point", [field("x", "string")])])),
        Incompatibility(
            K.MISSING_UNION_BRANCH,
            "/fields/0/type",
            "/fields/0/type/1",
            "PageView.x",
            '"PageView.x": the writer can write record "com.acme.Point", which no branch of the '
            "reader's union [null, record \"com.acme.Point\"] reads; the reader's record "
            '"com.acme.Point" branch differs from the writer\'s in a way it cannot read',
            "make the reader's record \"com.acme.Point\" able to read the writer's "
            "(compare the two on their own)",
        ),
    ),
    (
        "missing-field-whose-enum-has-a-default",
        page_view(field("kind", enum("Kind", ["A", "B"], default="A"))),
        page_view(),
        Incompatibility(
            K.TYPE_MISMATCH,
            "/fields/0/type",
            "",
            "PageView.kind",
            'field "PageView.kind" is in the reader but not in the writer and has no default; '
            'the default "A" of its enum "com.acme.Kind" replaces unknown symbols, not a missing field',
            'add "default": "A" to the field "kind"',
        ),
    ),
]


@pytest.mark.parametrize(("name", "reader", "writer", "expected"), CASES, ids=[c[0] for c in CASES])
def test_diagnostic_text(name: str, reader: Any, writer: Any, expected: Incompatibility) -> None:
    assert check_reader_writer(parsed(reader), parsed(writer)) == [expected]


def test_top_level_union_path_is_the_type() -> None:
    [problem] = check_reader_writer(parsed(["null", "int"]), parsed(["null", "string"]))
    assert (problem.path, problem.reader_pointer, problem.writer_pointer) == ("union", "", "/1")


def test_compatible_pair_has_no_diagnostics() -> None:
    assert (
        check_reader_writer(parsed(page_view(field("a", "long"))), parsed(page_view(field("a", "int")))) == []
    )
