"""A Protobuf schema's table (`loader.reading.value_formats.protobuf_tables`): each row of the mapping
docs/loader.md documents, on schemas compiled by the registry's own parser (protoc)."""

from __future__ import annotations

import json

import pytest

from loader.reading.value_formats.lookup import PROTOBUF, Document, Version, table_of
from loader.reading.value_formats.protobuf_tables import (
    UnloadableProtobuf,
    former_names,
    message_paths,
    table_message,
    table_schema,
)
from loader.reading.value_formats.spark_types import spark_type
from registry.schema_types.base import Reference
from registry.schema_types.protobuf.parsing import parse_protobuf


def columns(body: str, imports: str = "") -> dict[str, str]:
    """The Spark type of each column of `message M { body }`."""
    parsed = parse_protobuf(f'syntax = "proto3";\npackage shop;\n{imports}\nmessage M {{\n{body}\n}}\n')
    record = table_schema(parsed.file, parsed.dependencies)
    return {field["name"]: spark_type(field["type"]) for field in record["fields"]}


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("double v = 1;", "DOUBLE"),
        ("float v = 1;", "FLOAT"),
        ("int64 v = 1;", "BIGINT"),
        ("sint64 v = 1;", "BIGINT"),
        ("sfixed64 v = 1;", "BIGINT"),
        ("uint64 v = 1;", "DECIMAL(20,0)"),
        ("fixed64 v = 1;", "DECIMAL(20,0)"),
        ("int32 v = 1;", "INT"),
        ("sint32 v = 1;", "INT"),
        ("uint32 v = 1;", "BIGINT"),
        ("fixed32 v = 1;", "BIGINT"),
        ("bool v = 1;", "BOOLEAN"),
        ("string v = 1;", "STRING"),
        ("bytes v = 1;", "BINARY"),
        ("optional int64 v = 1;", "BIGINT"),
        ("repeated string v = 1;", "ARRAY<STRING>"),
        ("map<int32, string> v = 1;", "MAP<STRING, STRING>"),
        ("enum E { A = 0; B = 1; }\nE v = 1;", "STRING"),
        ("message N { string a = 1; }\nN v = 1;", "STRUCT<`a`: STRING>"),
        ("message N { string a = 1; }\nrepeated N v = 1;", "ARRAY<STRUCT<`a`: STRING>>"),
        ("message N { string a = 1; }\nmap<string, N> v = 1;", "MAP<STRING, STRUCT<`a`: STRING>>"),
    ],
)
def test_each_protobuf_type_has_its_column(field: str, expected: str) -> None:
    assert columns(field)["v"] == expected


@pytest.mark.parametrize(
    ("name", "file", "expected"),
    [
        ("Timestamp", "timestamp", "TIMESTAMP"),
        ("Int64Value", "wrappers", "BIGINT"),
        ("UInt64Value", "wrappers", "DECIMAL(20,0)"),
        ("StringValue", "wrappers", "STRING"),
        ("BoolValue", "wrappers", "BOOLEAN"),
        ("BytesValue", "wrappers", "BINARY"),
        ("Duration", "duration", "STRING"),
        ("Struct", "struct", "STRING"),
        ("Value", "struct", "STRING"),
        ("Any", "any", "STRING"),
        ("Empty", "empty", "STRING"),
    ],
)
def test_the_well_known_types_are_values_or_json_text(name: str, file: str, expected: str) -> None:
    imports = f'import "google/protobuf/{file}.proto";'
    assert columns(f"google.protobuf.{name} v = 1;", imports)["v"] == expected


def test_a_oneofs_members_are_columns_of_their_own() -> None:
    assert columns("oneof pick { string a = 1; int64 b = 2; }") == {"a": "STRING", "b": "BIGINT"}


def test_a_message_that_contains_itself_is_json_text_where_it_recurs() -> None:
    found = columns("message Node { string name = 1; Node child = 2; }\nNode root = 1;")
    assert found == {"root": "STRUCT<`name`: STRING, `child`: STRING>"}


def test_the_table_is_the_first_messages_and_an_imported_message_is_a_struct() -> None:
    other = parse_protobuf('syntax = "proto3";\npackage common;\nmessage Money { int64 cents = 1; }\n')
    text = (
        'syntax = "proto3";\npackage shop;\nimport "common/money.proto";\n'
        "message Order { common.Money total = 1; }\nmessage Refund { string why = 1; }\n"
    )

    parsed = parse_protobuf(text, [Reference("common/money.proto", other)])
    assert table_message(parsed.file) == "shop.Order"
    record = table_schema(parsed.file, parsed.dependencies)
    assert (record["name"], spark_type(record)) == ("shop.Order", "STRUCT<`total`: STRUCT<`cents`: BIGINT>>")
    assert record["fields"][0]["default"] is None and record["fields"][0]["type"][0] == "null"


def test_a_file_without_a_message_has_no_table() -> None:
    parsed = parse_protobuf('syntax = "proto3";\npackage shop;\nenum Kind { A = 0; }\n')
    with pytest.raises(UnloadableProtobuf, match="the schema declares no message"):
        table_schema(parsed.file, parsed.dependencies)


def test_each_message_is_found_by_its_message_indexes_map_entries_counted_but_no_record() -> None:
    parsed = parse_protobuf(
        'syntax = "proto3";\npackage shop;\n'
        "message Order {\n  map<string, string> tags = 1;\n  message Line { string sku = 1; }\n"
        "  Line line = 2;\n}\nmessage Refund { string why = 1; }\n"
    )
    # Order's nested types are its map entry (`TagsEntry`, index 0) and Line (index 1), as Confluent counts
    assert message_paths(parsed.file) == {"0": "shop.Order", "0.1": "shop.Order.Line", "1": "shop.Refund"}
    refund = table_schema(parsed.file, parsed.dependencies, "shop.Refund")
    assert (refund["name"], spark_type(refund)) == ("shop.Refund", "STRUCT<`why`: STRING>")
    with pytest.raises(UnloadableProtobuf, match=r"no message shop\.Gone"):
        table_schema(parsed.file, parsed.dependencies, "shop.Gone")


def test_a_field_renamed_under_its_number_carries_its_former_names_as_aliases() -> None:
    def version(first: str, nested: str, extra: str = "") -> list:
        parsed = parse_protobuf(
            f'syntax = "proto3";\npackage shop;\nmessage M {{\n  string {first} = 1;\n'
            f"  message Line {{ string {nested} = 1; }}\n  Line line = 2;\n{extra}}}\n"
        )
        return [*parsed.dependencies, parsed.file]

    first, second = version("note", "sku"), version("remark", "sku", "  string note = 3;\n")
    latest = version("comment", "code", "  string note = 3;\n")
    former = former_names(latest, [first, second])
    # `note` is number 1's former name, and number 3's name now: the alias names a column the schema keeps,
    # which no table format takes for a rename (`loader.schema.alias_renames`)
    assert former == {"shop.M": {"comment": ("note", "remark")}, "shop.M.Line": {"code": ("sku",)}}
    record = table_schema(latest[-1], latest[:-1], former=former)
    assert record["fields"][0] == {
        "name": "comment",
        "type": ["null", "string"],
        "default": None,
        "aliases": ["note", "remark"],
    }
    line = record["fields"][1]["type"][1]
    assert line["fields"][0]["aliases"] == ["sku"] and "aliases" not in record["fields"][2]


def test_a_subjects_versions_say_where_each_writer_has_each_message_and_its_former_names() -> None:
    """`lookup.table_of` over a subject's versions: a message moved in a later version is found where
    each writer had it; a version that no longer compiles is read as the latest is."""
    v1 = (
        'syntax = "proto3";\npackage shop;\nmessage Order { int64 id = 1; }\n'
        "message Refund { string note = 1; }\n"
    )
    v2 = (
        'syntax = "proto3";\npackage shop;\nmessage Order { int64 id = 1; }\n'
        "message Audit { string who = 1; }\nmessage Refund { string why = 1; }\n"
    )
    broken = Version(
        3, Document('syntax = "proto3";\nimport "gone.proto";\nmessage Order { int64 id = 1; }\n')
    )
    table = table_of(PROTOBUF, Version(2, Document(v2)), [Version(1, Document(v1)), broken])
    assert table.messages == {
        "shop.Order": {"0": (1, 2, 3)},
        "shop.Audit": {"1": (2, 3)},
        "shop.Refund": {"1": (1,), "2": (2, 3)},
    }
    refund = json.loads(table.message_tables["shop.Refund"])
    assert refund["fields"] == [
        {"name": "why", "type": ["null", "string"], "default": None, "aliases": ["note"]}
    ]
    assert (
        json.loads(table.schema)["name"]
        == "shop.Order"
        == json.loads(table.message_tables["shop.Order"])["name"]
    )
