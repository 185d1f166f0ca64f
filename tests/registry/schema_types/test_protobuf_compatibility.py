"""Confluent's Protobuf compatibility rules, case by case, both ways round, and the levels over versions.

Each case names where Confluent documents it: a test of ``protobuf-provider``'s
``src/test/resources/diff-schema-examples.json`` (by its "description"), or the list of compatible
changes in ``diff/SchemaDiff.java`` (``COMPATIBLE_CHANGES``). ``differences(old, new)`` is what Confluent's
``SchemaDiff.compare(old, new)`` finds; BACKWARD refuses the new version when a difference from the old
to the new is incompatible, FORWARD when one from the new to the old is.
"""

from __future__ import annotations

import pytest

from registry.compatibility import CompatibilityLevel
from registry.schema_types.base import Reference
from registry.schema_types.protobuf import Protobuf, ProtobufKind
from registry.schema_types.protobuf.parsed import ParsedProtobuf
from registry.schema_types.protobuf.parsing import parse_protobuf
from registry.schema_types.protobuf.rules import differences
from registry.schema_types.protobuf.wording import _WORDING

P3 = 'syntax = "proto3";\n'
P2 = 'syntax = "proto2";\n'
EXAMPLES = "diff-schema-examples.json"

# (where Confluent documents it, old, new, the kinds of the differences from old to new)
CASES: list[tuple[str, str, str, list[str]]] = [
    (
        f"{EXAMPLES}: Detect package change",
        P3 + "package foo;\nmessage M { string s = 1; }",
        P3 + "package bar;\nmessage M { string s = 1; }",
        ["PACKAGE_CHANGED"],
    ),
    (
        f"{EXAMPLES}: Detect change to name qualification with package",
        P3 + "package foo;\nmessage M { N n = 1; message N { string s = 1; } }",
        P3 + "package foo;\nmessage M { .foo.M.N n = 1; message N { string s = 1; } }",
        [],
    ),
    (
        f"{EXAMPLES}: Detect added field",
        P3 + "message M { string a = 1; }",
        P3 + "message M { string a = 1; string b = 2; }",
        ["FIELD_ADDED"],
    ),
    (
        f"{EXAMPLES}: Detect removed field",
        P3 + "message M { string a = 1; string b = 2; }",
        P3 + "message M { string a = 1; }",
        ["FIELD_REMOVED"],
    ),
    (
        f"{EXAMPLES}: Detect added required field",
        P2 + "message M { optional string a = 1; }",
        P2 + "message M { optional string a = 1; required string b = 2; }",
        ["REQUIRED_FIELD_ADDED"],
    ),
    (
        f"{EXAMPLES}: Detect removed required field",
        P2 + "message M { optional string a = 1; required string b = 2; }",
        P2 + "message M { optional string a = 1; }",
        ["REQUIRED_FIELD_REMOVED"],
    ),
    (
        f"{EXAMPLES}: Detect changed field number",
        P3 + "message M { string a = 1; }",
        P3 + "message M { string a = 2; }",
        ["FIELD_ADDED", "FIELD_REMOVED"],
    ),
    (
        "SchemaDiff.java COMPATIBLE_CHANGES: FIELD_NAME_CHANGED (a field's number is its identity)",
        P3 + "message M { string a = 1; }",
        P3 + "message M { string renamed = 1; }",
        ["FIELD_NAME_CHANGED"],
    ),
    (
        f"{EXAMPLES}: Detect compatible field number type change (int32, int64, uint32, uint64, bool)",
        P3 + "message M { int32 a = 1; uint64 b = 2; }",
        P3 + "message M { int64 a = 1; bool b = 2; }",
        [],
    ),
    (
        "FieldSchemaDiff.java scalarKind: sint32/sint64, fixed32/sfixed32, fixed64/sfixed64 are groups",
        P3 + "message M { sint32 a = 1; fixed32 b = 2; fixed64 c = 3; }",
        P3 + "message M { sint64 a = 1; sfixed32 b = 2; sfixed64 c = 3; }",
        [],
    ),
    (
        f"{EXAMPLES}: Detect compatible field string type change",
        P3 + "message M { string a = 1; }",
        P3 + "message M { bytes a = 1; }",
        [],
    ),
    (
        f"{EXAMPLES}: Detect incompatible field type change (scalar kind)",
        P3 + "message M { string a = 1; }",
        P3 + "message M { int32 a = 1; }",
        ["FIELD_SCALAR_KIND_CHANGED"],
    ),
    (
        "FieldSchemaDiff.java scalarKind: zigzag (sint32) and plain varints (int32) are not one group",
        P3 + "message M { int32 a = 1; }",
        P3 + "message M { sint32 a = 1; }",
        ["FIELD_SCALAR_KIND_CHANGED"],
    ),
    (
        f"{EXAMPLES}: Detect field number type to enum change",
        P3 + "message M { int32 a = 1; }",
        P3 + "message M { Status a = 1; }\nenum Status { S0 = 0; }",
        ["ENUM_ADDED"],
    ),
    (
        f"{EXAMPLES}: Detect incompatible field type change (kind)",
        P3 + "message M { string a = 1; }",
        P3 + "message M { N a = 1; }\nmessage N { string s = 1; }",
        ["FIELD_KIND_CHANGED", "MESSAGE_ADDED"],
    ),
    (
        f"{EXAMPLES}: Detect incompatible field type change (named type)",
        P3 + "message M { N a = 1; }\nmessage N { string s = 1; }",
        P3 + "message M { O a = 1; }\nmessage O { string s = 1; }",
        ["FIELD_NAMED_TYPE_CHANGED", "MESSAGE_ADDED", "MESSAGE_REMOVED"],
    ),
    (
        f"{EXAMPLES}: Detect compatible field label change for message",
        P2 + "message M { optional N a = 1; }\nmessage N { optional string s = 1; }",
        P2 + "message M { repeated N a = 1; }\nmessage N { optional string s = 1; }",
        [],
    ),
    (
        f"{EXAMPLES}: Detect compatible field label change for string",
        P2 + "message M { optional string a = 1; }",
        P2 + "message M { repeated string a = 1; }",
        ["FIELD_STRING_OR_BYTES_LABEL_CHANGED"],
    ),
    (
        f"{EXAMPLES}: Detect incompatible field label change for number",
        P2 + "message M { optional int32 a = 1; }",
        P2 + "message M { repeated int32 a = 1; }",
        ["FIELD_NUMERIC_LABEL_CHANGED"],
    ),
    (
        "FieldSchemaDiff.java compareScalarTypes: proto3 `optional` is a label, an implicit field has none",
        P3 + "message M { optional int32 a = 1; int32 b = 2; }",
        P3 + "message M { repeated int32 a = 1; optional int32 b = 2; }",
        ["FIELD_NUMERIC_LABEL_CHANGED"],
    ),
    (
        f"{EXAMPLES}: Detect compatible message addition",
        P3 + "message M { string a = 1; }",
        P3 + "message M { string a = 1; }\nmessage N { string a = 1; }",
        ["MESSAGE_ADDED"],
    ),
    (
        "SchemaDiff.java compareTypeElements: a message removed (not in COMPATIBLE_CHANGES)",
        P3 + "message M { string a = 1; }\nmessage N { string a = 1; }",
        P3 + "message M { string a = 1; }",
        ["MESSAGE_REMOVED"],
    ),
    (
        f"{EXAMPLES}: Detect compatible message index change",
        P3 + "message M { string a = 1; }\nmessage N { string a = 1; }",
        P3 + "message N { string a = 1; }\nmessage M { string a = 1; }",
        ["MESSAGE_MOVED", "MESSAGE_MOVED"],
    ),
    (
        f"{EXAMPLES}: Detect added field to nested type",
        P3 + "message W { message M { string a = 1; } }",
        P3 + "message W { message M { string a = 1; string b = 2; } }",
        ["FIELD_ADDED"],
    ),
    (
        f"{EXAMPLES}: Detect enum const change",
        P3 + "enum Status { S0 = 0; S1 = 1; }",
        P3 + "enum Status { S0 = 0; RENAMED = 1; }",
        ["ENUM_CONST_CHANGED"],
    ),
    (
        "SchemaDiff.java COMPATIBLE_CHANGES: ENUM_CONST_ADDED and ENUM_CONST_REMOVED",
        P3 + "enum Status { S0 = 0; S1 = 1; }",
        P3 + "enum Status { S0 = 0; S2 = 2; }",
        ["ENUM_CONST_ADDED", "ENUM_CONST_REMOVED"],
    ),
    (
        f"{EXAMPLES}: Detect enum type to field number change",
        P3 + "message M { Status a = 1; }\nenum Status { S0 = 0; }",
        P3 + "message M { int32 a = 1; }",
        ["ENUM_REMOVED"],
    ),
    (
        f"{EXAMPLES}: Detect compatible field to oneof change",
        P3 + "message M { string a = 1; }",
        P3 + "message M { oneof o { string a = 1; string b = 3; } }",
        ["ONEOF_ADDED", "ONEOF_FIELD_ADDED"],
    ),
    (
        f"{EXAMPLES}: Detect incompatible field to oneof change",
        P3 + "message M { string a = 1; string b = 2; }",
        P3 + "message M { oneof o { string a = 1; string b = 2; string c = 3; } }",
        ["MULTIPLE_FIELDS_MOVED_TO_ONEOF", "ONEOF_ADDED", "ONEOF_FIELD_ADDED"],
    ),
    (
        f"{EXAMPLES}: Detect incompatible move field to oneof",
        P3 + "message M { string a = 1; oneof o { string b = 2; } }",
        P3 + "message M { oneof o { string a = 1; string b = 2; } }",
        ["FIELD_MOVED_TO_EXISTING_ONEOF"],
    ),
    (
        f"{EXAMPLES}: Detect incompatible remove field from oneof",
        P3 + "message M { oneof o { string a = 1; string b = 2; } }",
        P3 + "message M { oneof o { string a = 1; } }",
        ["ONEOF_FIELD_REMOVED"],
    ),
    (
        f"{EXAMPLES}: Detect compatible move field out of a oneof to top level",
        P3 + "message M { oneof o { string a = 1; string b = 2; } }",
        P3 + "message M { string b = 2; oneof o { string a = 1; } }",
        ["ONEOF_FIELD_MOVED_TO_TOP_LEVEL"],
    ),
    (
        f"{EXAMPLES}: Detect compatible oneof rename with identical fields",
        P3 + "message M { oneof old_name { string a = 1; string b = 2; } }",
        P3 + "message M { oneof new_name { string a = 1; string b = 2; } }",
        ["ONEOF_ADDED", "ONEOF_REMOVED"],
    ),
    (
        "MessageSchemaDiff.java: a oneof deleted with all its members is a compatible deletion",
        P3 + "message M { string a = 1; oneof o { string b = 2; string c = 3; } }",
        P3 + "message M { string a = 1; }",
        ["ONEOF_REMOVED"],
    ),
    (
        "proto3 to proto2: Confluent finds no difference (SYNTAX_VERSION_CHANGED is ours, compatible)",
        P3 + "message M { string a = 1; }",
        P2 + "message M { optional string a = 1; }",
        ["SYNTAX_VERSION_CHANGED"],
    ),
]


def kinds(old: ParsedProtobuf, new: ParsedProtobuf) -> list[str]:
    return sorted(found.kind.value for found in differences(old, new))


@pytest.mark.parametrize(("where", "old", "new", "expected"), CASES, ids=[case[0] for case in CASES])
def test_the_differences_and_verdicts_are_confluents(
    where: str, old: str, new: str, expected: list[str]
) -> None:
    before, after = parse_protobuf(old), parse_protobuf(new)
    assert kinds(before, after) == sorted(expected), where
    compatible = all(ProtobufKind(kind).compatible for kind in expected)
    protobuf = Protobuf()
    # BACKWARD: the new schema reads the old data, which is Confluent's diff from old to new
    assert protobuf.reads(after, before) is compatible
    backward = protobuf.conflicts(after, [(1, before)], CompatibilityLevel.BACKWARD)
    assert sorted(c.incompatibility.kind.value for c in backward) == sorted(
        kind for kind in expected if not ProtobufKind(kind).compatible
    )
    # FORWARD is the same question the other way round
    forward = protobuf.conflicts(after, [(1, before)], CompatibilityLevel.FORWARD)
    assert {c.direction for c in forward} <= {"old_reads_new"}
    assert (not forward) is protobuf.reads(before, after)


def test_a_type_from_a_reference_is_compared_by_local_name_and_contents() -> None:
    """diff-schema-examples.json: Detect import change with different remote package name, and
    Detect incompatible import change."""
    home = 'syntax = "proto3";\npackage {package};\nmessage Home {{ {type} id = 1; }}\n'
    user = 'syntax = "proto3";\nimport "{path}";\nmessage User {{ .{package}.Home home = 1; }}\n'

    def version(path: str, package: str, id_type: str) -> ParsedProtobuf:
        dependency = parse_protobuf(home.format(package=package, type=id_type))
        return parse_protobuf(user.format(path=path, package=package), [Reference(path, dependency)])

    original = version("home.proto", "domain", "int32")
    assert kinds(original, version("home2.proto", "domain2", "int32")) == []
    changed = differences(original, version("home2.proto", "domain", "string"))
    assert sorted((f.kind.value, f.path) for f in changed) == [
        ("FIELD_NAMED_TYPE_CHANGED", "User.home (field 1)"),
        ("FIELD_SCALAR_KIND_CHANGED", "Home.id (field 1)"),
    ]
    in_dependency = next(f for f in changed if f.kind is ProtobufKind.FIELD_SCALAR_KIND_CHANGED)
    assert in_dependency.original_pointer == "home.proto:/message_type/0/field/0"
    assert in_dependency.update_pointer == "home2.proto:/message_type/0/field/0"


def test_a_conflict_is_located_worded_and_directed() -> None:
    old = parse_protobuf(
        P3 + "package shop;\nmessage Order {\n  int64 id = 1;\n  message Item { double price = 3; }\n}"
    )
    new = parse_protobuf(
        P3 + "package shop;\nmessage Order {\n  int64 id = 1;\n  message Item { string price = 3; }\n}"
    )
    [conflict] = Protobuf().conflicts(new, [(4, old)], "BACKWARD")
    incompatibility = conflict.incompatibility
    assert (conflict.version, conflict.direction) == (4, "new_reads_old")
    assert incompatibility.kind is ProtobufKind.FIELD_SCALAR_KIND_CHANGED
    assert incompatibility.path == "Order.Item.price (field 3)"
    assert (
        incompatibility.reader_pointer
        == incompatibility.writer_pointer
        == "/message_type/0/nested_type/0/field/0"
    )
    assert incompatibility.message == (
        '"Order.Item.price (field 3)" is string in the reader but double in the writer, '
        "whose wire encodings differ"
    )
    assert incompatibility.hint == "the reader must keep double"
    assert "FIELD_SCALAR_KIND_CHANGED" in conflict.describe()


def test_every_incompatible_kind_is_worded() -> None:
    assert set(_WORDING) == {kind for kind in ProtobufKind if not kind.compatible}


V1 = P3 + "message M { string a = 1; }"
V2 = P3 + "message M { string a = 1; int32 b = 2; }"  # adds b
V3 = P3 + "message M { string a = 1; string b = 2; }"  # b becomes a string: incompatible with V2 only


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (CompatibilityLevel.NONE, []),
        (CompatibilityLevel.BACKWARD, [(2, "new_reads_old")]),
        (CompatibilityLevel.FORWARD, [(2, "old_reads_new")]),
        (CompatibilityLevel.FULL, [(2, "new_reads_old"), (2, "old_reads_new")]),
        (CompatibilityLevel.BACKWARD_TRANSITIVE, [(2, "new_reads_old")]),
        (CompatibilityLevel.FULL_TRANSITIVE, [(2, "new_reads_old"), (2, "old_reads_new")]),
    ],
)
def test_levels_compare_with_the_latest_or_every_version(
    level: CompatibilityLevel, expected: list[tuple[int, str]]
) -> None:
    versions = [(1, parse_protobuf(V1)), (2, parse_protobuf(V2))]
    found = Protobuf().conflicts(parse_protobuf(V3), versions, level)
    assert [(c.version, c.direction) for c in found] == expected


def test_a_transitive_level_finds_what_the_latest_version_hides() -> None:
    """Removing a field and adding it back with another type passes against the latest version only."""
    v1 = parse_protobuf(P3 + "message M { string a = 1; int32 b = 2; }")
    v2 = parse_protobuf(P3 + "message M { string a = 1; }")
    v3 = parse_protobuf(P3 + "message M { string a = 1; string b = 2; }")
    protobuf = Protobuf()
    assert protobuf.conflicts(v3, [(1, v1), (2, v2)], "BACKWARD") == []
    found = protobuf.conflicts(v3, [(1, v1), (2, v2)], "BACKWARD_TRANSITIVE")
    assert [(c.version, c.incompatibility.kind.value) for c in found] == [(1, "FIELD_SCALAR_KIND_CHANGED")]


def test_recursive_messages_compare_and_end() -> None:
    old = parse_protobuf(P3 + "message A { B b = 1; int32 x = 2; }\nmessage B { A a = 1; }")
    new = parse_protobuf(P3 + "message A { B b = 1; string x = 2; }\nmessage B { A a = 1; }")
    found = {(f.kind.value, f.path) for f in differences(old, new)}
    assert ("FIELD_SCALAR_KIND_CHANGED", "A.x (field 2)") in found
    assert ("FIELD_NAMED_TYPE_CHANGED", "B.a (field 1)") in found  # B holds an A, which changed
    assert Protobuf().reads(old, old)
