"""Protobuf schemas parsed: .proto text and base64 descriptors, imports, refusals with positions, limits,
and the compiler worker that survives being killed."""

from __future__ import annotations

import base64
import os
import signal

import pytest
from google.protobuf.descriptor_pb2 import FileDescriptorProto

from registry.compatibility import InvalidSchemaError
from registry.schema_types.base import Reference
from registry.schema_types.protobuf import ParsedProtobuf, Protobuf
from registry.schema_types.protobuf.compiler import Compiler, shared_compiler
from registry.schema_types.protobuf.parsing import MAX_MESSAGE_NESTING, MAX_SCHEMA_BYTES, parse_protobuf

ORDER = """syntax = "proto3";
package shop;

message Order {
  int64 id = 1;
  repeated string tags = 2;
  map<string, Item> items = 3;
  message Item { double price = 1; }
}
"""


def problems(text: str, references: tuple[Reference, ...] = ()) -> list[tuple[int | None, int | None, str]]:
    with pytest.raises(InvalidSchemaError) as caught:
        parse_protobuf(text, references)
    return [(p.line, p.column, p.message) for p in caught.value.problems]


def test_a_proto3_schema_parses_into_its_compiled_file() -> None:
    parsed = Protobuf().parse(ORDER)
    assert isinstance(parsed, ParsedProtobuf)
    assert parsed.schema_type == "PROTOBUF" and parsed.text == ORDER
    assert parsed.package == "shop" and parsed.syntax == "proto3"
    assert [m.name for m in parsed.file.message_type] == ["Order"]
    assert "map<string, .shop.Order.Item> items = 3;" in parsed.canonical
    assert len(parsed.fingerprint) == 64 and parsed.identity == parsed.canonical


def test_a_proto2_schema_keeps_labels_defaults_and_groups() -> None:
    parsed = parse_protobuf(
        'syntax = "proto2";\nmessage A {\n  required int32 a = 1 [default = 5];\n'
        '  optional string s = 2 [default = "x"];\n  optional group G = 3 { optional int32 z = 1; }\n}\n'
    )
    assert parsed.syntax == "proto2"
    assert "required int32 a = 1 [default = 5];" in parsed.canonical
    assert 'optional string s = 2 [default = "x"];' in parsed.canonical
    assert "optional group G = 3 {" in parsed.canonical


def test_the_base64_descriptor_form_is_the_same_schema_as_the_text() -> None:
    text = parse_protobuf(ORDER)
    given = FileDescriptorProto()
    given.CopyFrom(text.file)
    given.name = "shop/order.proto"  # as a client's generated code names it
    encoded = base64.b64encode(given.SerializeToString()).decode("ascii")
    descriptor = parse_protobuf(encoded)
    assert descriptor.canonical == text.canonical and descriptor.fingerprint == text.fingerprint
    assert descriptor.serialized() == text.serialized()  # both are the file "default", as Confluent's
    wrapped = "\n".join(encoded[i : i + 60] for i in range(0, len(encoded), 60))
    assert parse_protobuf(wrapped).canonical == text.canonical


def test_well_known_and_confluent_files_resolve_without_references() -> None:
    parsed = parse_protobuf(
        'syntax = "proto3";\nimport "google/protobuf/timestamp.proto";\nimport "confluent/meta.proto";\n'
        'import "confluent/type/decimal.proto";\nmessage Paid {\n  google.protobuf.Timestamp at = 1;\n'
        '  confluent.type.Decimal amount = 2 [(confluent.field_meta) = { tags: ["PII"] }];\n}\n'
    )
    assert {d.name for d in parsed.dependencies} >= {
        "google/protobuf/timestamp.proto",
        "confluent/meta.proto",
        "confluent/type/decimal.proto",
    }
    assert '(confluent.field_meta) = { tags: "PII" }' in parsed.canonical


def test_an_import_resolves_to_the_reference_of_that_name_and_its_own_imports() -> None:
    money = parse_protobuf('syntax = "proto3";\npackage dep;\nmessage Money { int64 units = 1; }\n')
    price = parse_protobuf(
        'syntax = "proto3";\npackage dep;\nimport "dep/money.proto";\nmessage Price { Money amount = 1; }\n',
        [Reference("dep/money.proto", money)],
    )
    order = parse_protobuf(
        'syntax = "proto3";\nimport "dep/price.proto";\nmessage Order { dep.Price price = 1; }\n',
        [Reference("dep/price.proto", price)],
    )
    assert [d.name for d in order.dependencies] == ["dep/money.proto", "dep/price.proto"]
    assert ".dep.Price price = 1;" in order.canonical
    # the referenced schema's own file is unchanged: it is still "default" to itself
    assert price.file.name == "default"


def test_a_missing_import_is_refused_by_name() -> None:
    [(line, column, message)] = problems('syntax = "proto3";\nimport "shop/money.proto";\nmessage A {}\n')
    assert (line, column) == (2, 1)
    assert 'import "shop/money.proto" is not found' in message
    assert 'name a reference "shop/money.proto"' in message


def test_a_syntax_error_carries_line_and_column() -> None:
    found = problems('syntax = "proto3";\nmessage A {\n  int32 a = 1\n  strin b = 2;\n}\n')
    assert found[0] == (4, 3, 'Expected ";".')


def test_every_problem_protoc_finds_is_reported() -> None:
    found = problems('syntax = "proto3";\nmessage A {\n  Missing a = 1;\n  int32 b = 1;\n}\n')
    assert [(line, column) for line, column, _ in found] == [(3, 3), (4, 13)]
    assert '"Missing" is not defined.' in found[0][2]


def test_recursive_messages_are_valid() -> None:
    parsed = parse_protobuf('syntax = "proto3";\nmessage Node { Node next = 1; repeated Node kids = 2; }')
    assert ".Node next = 1;" in parsed.canonical


def test_the_limits_refuse_large_deep_and_undecodable_texts() -> None:
    assert "at most" in problems("//" + "x" * MAX_SCHEMA_BYTES)[0][2]
    deep = MAX_MESSAGE_NESTING + 1
    nested = 'syntax = "proto3";\n' + "".join(f"message M{i} {{ " for i in range(deep)) + "}" * deep
    assert "nested" in problems(nested)[0][2]
    too_deep = FileDescriptorProto(syntax="proto3")
    message = too_deep.message_type.add(name="M0")
    for i in range(1, deep):
        message = message.nested_type.add(name=f"M{i}")
    # protoc's own limit, which MAX_MESSAGE_NESTING repeats, holds for descriptors too
    assert "nested" in problems(base64.b64encode(too_deep.SerializeToString()).decode())[0][2]
    assert "not valid UTF-8" in problems('syntax = "proto3";\n// \udcff\n')[0][2]
    huge_enum = "".join(f"V{i} = {i}; " for i in range(5000))
    assert parse_protobuf(f'syntax = "proto3";\nenum Big {{ {huge_enum}}}\n').canonical.count(";") > 5000


def test_text_that_is_neither_proto_nor_a_descriptor_is_refused() -> None:
    found = problems("bm90IGEgZGVzY3JpcHRvcg=")
    assert "neither .proto text nor a base64-encoded FileDescriptorProto" in found[0][2]


def test_a_reference_to_a_schema_of_another_type_is_refused() -> None:
    from registry.schema_types import schema_type

    avro = schema_type("AVRO").parse('"string"')
    message = problems('syntax = "proto3";\nimport "x.proto";\n', (Reference("x.proto", avro),))[0][2]
    assert "is a AVRO schema" in message


def test_the_compiler_worker_is_restarted_after_it_dies() -> None:
    compiler = shared_compiler()
    parse_protobuf(ORDER)
    first = compiler.worker_pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    assert parse_protobuf(ORDER).canonical  # the request finds the worker dead and starts another
    assert compiler.worker_pid not in (None, first)


def test_a_compilation_over_time_is_refused_and_its_worker_stopped() -> None:
    slow = Compiler(timeout=1e-6)
    try:
        message = problems_with(slow)
        assert "took longer than" in message
        assert slow.worker_pid is None
    finally:
        slow.close()


def problems_with(compiler: Compiler) -> str:
    with pytest.raises(InvalidSchemaError) as caught:
        parse_protobuf(ORDER, compiler=compiler)
    return str(caught.value)
