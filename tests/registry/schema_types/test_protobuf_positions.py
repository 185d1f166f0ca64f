"""Where a Protobuf schema's declarations are in its text (protoc's source info), by the pointers its
conflicts carry; the registry keeps no source info in the descriptor it stores and serves."""

from __future__ import annotations

import base64

from google.protobuf.descriptor_pb2 import FileDescriptorProto

from registry.schema_types import schema_type

PROTO = """syntax = "proto3";
package shop;

enum State {
  NEW = 0;
  PAID = 1;
}

message Order {
  message Line {
    string sku = 1;
  }
  repeated Line lines = 1;
  oneof amount {
      int64 cents = 2;
  }
  State state = 3;
}
"""


def test_each_declaration_is_found_where_it_starts() -> None:
    protobuf = schema_type("PROTOBUF")
    positions = protobuf.positions(protobuf.parse(PROTO))
    assert positions["/enum_type/0"] == (4, 1)
    assert positions["/enum_type/0/value/1"] == (6, 3)
    assert positions["/message_type/0"] == (9, 1)
    assert positions["/message_type/0/nested_type/0/field/0"] == (11, 5)
    assert positions["/message_type/0/field/0"] == (13, 3)
    assert positions["/message_type/0/oneof_decl/0"] == (14, 3)
    assert positions["/message_type/0/field/1"] == (15, 7)  # a oneof's member, as indented
    assert positions["/message_type/0/field/2"] == (17, 3)


def test_the_stored_descriptor_holds_no_source_info_and_a_descriptor_sent_has_no_positions() -> None:
    protobuf = schema_type("PROTOBUF")
    parsed = protobuf.parse(PROTO)
    serialized = protobuf.formatted(parsed, "serialized")
    assert serialized is not None
    file = FileDescriptorProto.FromString(base64.b64decode(serialized))
    assert not file.HasField("source_code_info")
    again = protobuf.parse(serialized)
    assert again.identity == parsed.identity  # the same schema, text or descriptor
    assert protobuf.positions(again) == {}
