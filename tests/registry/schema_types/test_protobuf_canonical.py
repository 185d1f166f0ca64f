"""The canonical and normalized texts of Protobuf schemas: what they ignore, what they keep."""

from __future__ import annotations

from registry.schema_types.protobuf import Protobuf
from registry.schema_types.protobuf.parsing import parse_protobuf

WRITTEN = """syntax = "proto3";
package shop;
import "confluent/meta.proto";
option java_package = "com.shop";
option java_multiple_files = true;

// An order.
message Order {
  int64 id = 1 [deprecated = true, (confluent.field_meta) = { doc: "key" }];
  Item first = 2;
  oneof payment { string card = 4; string iban = 3; }
  message Item { double price = 1; }
}
"""

REWRITTEN = """syntax="proto3";package shop ;
/* the same, laid out and commented otherwise, options in another order, names qualified */
import "confluent/meta.proto";
option java_multiple_files = true;
option java_package = "com.shop";
message Order
{
  int64 id = 1 [(confluent.field_meta).doc = "key", deprecated = true];   // trailing comment
  .shop.Order.Item first = 2;
  oneof payment {
    string card = 4;
    string iban = 3;
  }
  message Item { double price = 1; }
}
"""


def test_layout_comments_option_order_and_qualification_do_not_change_the_canonical_form() -> None:
    written, rewritten = parse_protobuf(WRITTEN), parse_protobuf(REWRITTEN)
    assert written.text != rewritten.text
    assert written.canonical == rewritten.canonical
    assert written.fingerprint == rewritten.fingerprint
    assert written.identity == rewritten.identity


def test_a_changed_field_number_changes_the_canonical_form() -> None:
    renumbered = parse_protobuf(WRITTEN.replace("Item first = 2;", "Item first = 5;"))
    assert renumbered.fingerprint != parse_protobuf(WRITTEN).fingerprint


def test_the_canonical_form_keeps_declaration_order_and_reads_back_as_itself() -> None:
    parsed = parse_protobuf(WRITTEN)
    assert parsed.canonical == (
        'syntax = "proto3";\n'
        "package shop;\n"
        "\n"
        'import "confluent/meta.proto";\n'
        "\n"
        'option java_package = "com.shop";\n'
        "option java_multiple_files = true;\n"
        "\n"
        "message Order {\n"
        '  int64 id = 1 [deprecated = true, (confluent.field_meta) = { doc: "key" }];\n'
        "  .shop.Order.Item first = 2;\n"
        "  oneof payment {\n"
        "    string card = 4;\n"
        "    string iban = 3;\n"
        "  }\n"
        "  message Item {\n"
        "    double price = 1;\n"
        "  }\n"
        "}\n"
    )
    assert parse_protobuf(parsed.canonical).canonical == parsed.canonical
    assert Protobuf().readable(parsed) == parsed.canonical


def test_declaration_order_is_part_of_the_schema_but_not_of_the_normalized_form() -> None:
    swapped = WRITTEN.replace("  int64 id = 1", "  Item first = 2;\n  int64 id = 1").replace(
        "  Item first = 2;\n  oneof", "  oneof"
    )
    original, reordered = parse_protobuf(WRITTEN), parse_protobuf(swapped)
    assert original.fingerprint != reordered.fingerprint
    assert original.normalized == reordered.normalized


def test_the_normalized_form_sorts_as_confluent_normalizes() -> None:
    parsed = parse_protobuf(
        'syntax = "proto2";\nimport "google/protobuf/timestamp.proto";\nimport "confluent/meta.proto";\n'
        "message A {\n  oneof o { int32 z = 9; int32 y = 8; }\n  optional int32 b = 2;\n"
        "  optional int32 a = 1;\n  reserved 7, 4 to 5;\n}\n"
        "enum E { option allow_alias = true; E_B = 1; E_A = 0; E_C = 1; }\n"
    )
    assert parsed.normalized == (
        'import "confluent/meta.proto";\n'
        'import "google/protobuf/timestamp.proto";\n'
        "\n"
        "message A {\n"
        "  optional int32 a = 1;\n"
        "  optional int32 b = 2;\n"
        "  oneof o {\n"
        "    int32 y = 8;\n"
        "    int32 z = 9;\n"
        "  }\n"
        "  reserved 4 to 5;\n"
        "  reserved 7;\n"
        "}\n"
        "\n"
        "enum E {\n"
        "  option allow_alias = true;\n"
        "  E_A = 0;\n"
        "  E_B = 1;\n"
        "  E_C = 1;\n"
        "}\n"
    )
    assert parse_protobuf(parsed.normalized).normalized == parsed.normalized


def test_json_names_defaults_and_proto3_optional_are_kept() -> None:
    parsed = parse_protobuf(
        'syntax = "proto3";\nmessage A {\n  optional int32 order_id = 1;\n'
        '  string name = 2 [json_name = "fullName"];\n  string plain_name = 3;\n}\n'
    )
    assert "optional int32 order_id = 1;" in parsed.canonical
    assert 'string name = 2 [json_name = "fullName"];' in parsed.canonical
    assert "string plain_name = 3;" in parsed.canonical  # protoc's own JSON name is not written out
