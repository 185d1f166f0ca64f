"""A Protobuf schema's field tree and the diff people read between two versions."""

from __future__ import annotations

from registry.compatibility import Change, ChangeKind
from registry.schema_types.base import FieldRow
from registry.schema_types.protobuf import Protobuf
from registry.schema_types.protobuf.parsing import parse_protobuf

ORDER = """syntax = "proto3";
package shop;
import "confluent/meta.proto";
import "google/protobuf/timestamp.proto";

message Order {
  int64 id = 1;
  string email = 2 [(confluent.field_meta) = { tags: ["PII", "CONTACT"] }];
  repeated Item items = 3;
  map<string, Item> by_sku = 4;
  oneof payment {
    string card = 5;
    string iban = 6;
  }
  Status status = 7;
  Order parent = 8;
  google.protobuf.Timestamp at = 9 [deprecated = true];
  message Item { double price = 1; }
  enum Status { NEW = 0; PAID = 1; }
}

message Refund { Order order = 1; }
"""


def test_the_field_tree_shows_messages_fields_oneofs_maps_and_expands_each_message_once() -> None:
    tree = Protobuf().field_tree(parse_protobuf(ORDER))
    assert tree.namespace == "shop"
    assert [(r.depth, r.path, r.type, r.is_field) for r in tree.rows] == [
        (0, "Order", "message", False),
        (1, "Order.id", "int64", True),
        (1, "Order.email", "string", True),
        (1, "Order.items", "repeated Order.Item", True),
        (2, "Order.items[].price", "double", True),
        (1, "Order.by_sku", "map<string, Order.Item>", True),
        (1, "Order.payment", "oneof payment", False),
        (2, "Order.card", "string", True),
        (2, "Order.iban", "string", True),
        (1, "Order.status", "Order.Status", True),
        (1, "Order.parent", "Order", True),
        (1, "Order.at", "google.protobuf.Timestamp", True),
        (2, "Order.at.seconds", "int64", True),
        (2, "Order.at.nanos", "int32", True),
        (0, "Refund", "message", False),
        (1, "Refund.order", "Order", True),
    ]
    rows = {row.path: row for row in tree.rows}
    assert rows["Order.email"] == FieldRow(
        1,
        "email",
        "Order.email",
        "string",
        detail='field 2; (confluent.field_meta) = { tags: "PII" tags: "CONTACT" }',
        tags=("CONTACT", "PII"),
    )
    assert rows["Order.by_sku"].detail == "field 4; fields: see Order.items[]"
    assert rows["Order.status"].detail == "field 7; values: NEW = 0, PAID = 1"
    assert rows["Order.parent"].detail == "field 8; fields: see Order"  # recursive: not expanded again
    assert rows["Order.at"].detail == "field 9; deprecated = true"
    assert rows["Refund.order"].detail == "field 1; fields: see Order"


def test_proto2_rows_carry_labels_and_defaults() -> None:
    tree = Protobuf().field_tree(
        parse_protobuf(
            'syntax = "proto2";\nmessage A { required int32 a = 1 [default = 7]; optional string b = 2; }'
        )
    )
    assert [(r.path, r.type, r.default) for r in tree.rows[1:]] == [
        ("A.a", "required int32", "7"),
        ("A.b", "optional string", None),
    ]
    assert tree.namespace is None


def test_the_diff_names_added_removed_renamed_and_retyped_fields_and_changed_values() -> None:
    old = parse_protobuf(ORDER)
    new = parse_protobuf(
        ORDER.replace("int64 id = 1;", "int32 id = 1;")
        .replace("string email = 2", "string mail = 2")
        .replace("  Order parent = 8;\n", "")
        .replace("PAID = 1;", "PAID = 1; SHIPPED = 2;")
        .replace("message Refund { Order order = 1; }", "message Refund { Order order = 1; string why = 2; }")
        .replace("    string iban = 6;\n  }", "  }\n  string iban = 6;")
    )
    assert Protobuf().diff(old, new) == [
        Change(ChangeKind.TYPE_CHANGED, "Order.id (field 1)", "int64", "int32"),
        Change(ChangeKind.FIELD_RENAMED, "Order.mail (field 2)", "email", "mail"),
        Change(ChangeKind.TYPE_CHANGED, "Order.iban (field 6)", "string (oneof payment)", "string"),
        Change(ChangeKind.FIELD_REMOVED, "Order.parent (field 8)", "Order", None),
        Change(ChangeKind.FIELD_ADDED, "Refund.why (field 2)", None, "string"),
        Change(ChangeKind.SYMBOLS_CHANGED, "Order.Status", None, "SHIPPED = 2 added"),
    ]


def test_the_diff_reports_messages_and_enums_added_or_removed() -> None:
    old = parse_protobuf('syntax = "proto3";\nmessage A { int32 x = 1; }\nenum E { E0 = 0; }')
    new = parse_protobuf('syntax = "proto3";\nmessage B { int32 x = 1; }\nenum E { E0 = 0; }')
    assert Protobuf().diff(old, new) == [
        Change(ChangeKind.FIELD_ADDED, "B", None, "message"),
        Change(ChangeKind.FIELD_REMOVED, "A", "message", None),
    ]
    assert Protobuf().diff(old, old) == []
