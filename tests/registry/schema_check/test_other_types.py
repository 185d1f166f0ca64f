"""The check of Protobuf (``.proto``) and JSON Schema (``.json``) files: subjects from their paths, their
type's parser and rules, positions, and the files they import or ``$ref`` (parsed with them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from registry.compatibility import CompatibilityLevel
from registry.schema_check.checker import (
    INVALID_SCHEMA,
    Baseline,
    FileResult,
    Policies,
    PreviousVersion,
    Status,
    check_file,
)
from registry.schema_check.layout import SchemaFile, schema_file
from registry.schema_check.references import FileSchemas, ReferenceProblem, in_work_tree
from registry.schema_check.report import format_result
from registry.schema_check.source_positions import NOWHERE, Position
from registry.schema_types import Reference, schema_type
from tests.registry.schema_check import schemas

ORDERS = schema_file("schemas/orders.proto")
PAYMENTS = schema_file("schemas/payments.json")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A schemas/ directory with the files the others refer to."""
    folder = tmp_path / "schemas"
    folder.mkdir()
    (folder / "customer.proto").write_text(schemas.CUSTOMER_PROTO)
    (folder / "address.json").write_text(schemas.ADDRESS_JSON)
    return folder


def refs(tree: Path, name: str) -> tuple[Reference, ...]:
    """The parsed reference ``name`` in ``tree``, as the check gives it to a file."""
    referenced = schema_file(tree / name)
    return (Reference(name, FileSchemas(in_work_tree, tree).parsed(referenced)),)


def check(
    file: SchemaFile, text: str, previous: str | None, type_name: str, references: tuple[Reference, ...]
) -> FileResult:
    """``text`` checked under BACKWARD against ``previous`` (with the same references) as version 1."""
    versions = (PreviousVersion(1, previous, "version 1", type_name, references),) if previous else ()
    baseline = Baseline(CompatibilityLevel.BACKWARD, versions, "test")
    return check_file(file, text, baseline, None, type_name, references)


def test_subjects_and_types_come_from_the_path_as_for_avsc_files() -> None:
    assert (ORDERS.subject, ORDERS.schema_type) == ("orders-value", "PROTOBUF")
    assert (PAYMENTS.subject, PAYMENTS.schema_type) == ("payments-value", "JSON")
    key = schema_file("schemas/ads/orders.key.proto")
    assert (key.topic, key.subject, key.schema_type) == ("orders", "orders-key", "PROTOBUF")


def test_protobuf_compatible_and_incompatible_changes(tree: Path) -> None:
    customer = refs(tree, "customer.proto")
    passed = check(ORDERS, schemas.ORDER_PROTO_ADDED, schemas.ORDER_PROTO_V1, "PROTOBUF", customer)
    assert passed.status is Status.PASSED, passed.findings
    assert passed.notes == ("compatible under BACKWARD with version 1 (test)",)

    failed = check(ORDERS, schemas.ORDER_PROTO_RETYPED, schemas.ORDER_PROTO_V1, "PROTOBUF", customer)
    assert failed.status is Status.INCOMPATIBLE
    (finding,) = failed.findings
    # Where protoc says the field's declaration starts: `string total_cents = 3;`, line 9.
    assert (finding.position, finding.rule) == (Position(9, 3), "FIELD_SCALAR_KIND_CHANGED")
    assert format_result(failed)[0].startswith(
        'schemas/orders.proto:9:3: "Order.total_cents (field 3)" is string in the reader but int64 in the'
    )


def test_a_protobuf_conflict_without_a_line_of_its_own_points_at_the_file(tree: Path) -> None:
    """A message the new version no longer has, and any conflict of a schema sent as a compiled descriptor
    (no source to point into), show as the whole file, the message or field named."""
    customer = refs(tree, "customer.proto")
    with_refund = schemas.ORDER_PROTO_V1 + "message Refund {\n  string id = 1;\n}\n"
    removed = check(ORDERS, schemas.ORDER_PROTO_V1, with_refund, "PROTOBUF", customer)
    (finding,) = removed.findings
    assert (finding.position, finding.rule) == (NOWHERE, "MESSAGE_REMOVED")
    assert format_result(removed)[0].startswith('schemas/orders.proto: message "Refund" is in the writer')

    compiled = schema_type("PROTOBUF").formatted(
        schema_type("PROTOBUF").parse(schemas.ORDER_PROTO_RETYPED, customer), "serialized"
    )
    assert compiled is not None
    failed = check(ORDERS, compiled, schemas.ORDER_PROTO_V1, "PROTOBUF", customer)
    (finding,) = failed.findings
    assert (finding.position, finding.rule) == (NOWHERE, "FIELD_SCALAR_KIND_CHANGED")


def test_an_invalid_proto_file_fails_at_protoc_s_line_and_column(tree: Path) -> None:
    result = check(ORDERS, schemas.ORDER_PROTO_INVALID, None, "PROTOBUF", refs(tree, "customer.proto"))
    assert result.status is Status.INVALID
    assert [(f.rule, f.position) for f in result.findings] == [
        (INVALID_SCHEMA, Position(*schemas.ORDER_PROTO_INVALID_AT))
    ]
    assert format_result(result)[0].startswith("schemas/orders.proto:10:1: ")


def test_json_schema_compatible_and_incompatible_changes_point_at_their_lines(tree: Path) -> None:
    address = refs(tree, "address.json")
    passed = check(PAYMENTS, schemas.PAYMENT_JSON_ADDED, schemas.PAYMENT_JSON_V1, "JSON", address)
    assert passed.status is Status.PASSED, passed.findings

    failed = check(PAYMENTS, schemas.PAYMENT_JSON_RETYPED, schemas.PAYMENT_JSON_V1, "JSON", address)
    assert failed.status is Status.INCOMPATIBLE
    assert [(f.rule, f.position) for f in failed.findings] == [
        ("TYPE_CHANGED", Position(*schemas.PAYMENT_JSON_RETYPED_AT))
    ]
    assert "the new schema cannot read data written with version 1" in failed.findings[0].message


def test_an_invalid_json_schema_fails_at_its_line_and_column(tree: Path) -> None:
    result = check(PAYMENTS, schemas.PAYMENT_JSON_INVALID, None, "JSON", refs(tree, "address.json"))
    assert result.status is Status.INVALID
    assert [f.position for f in result.findings] == [Position(*schemas.PAYMENT_JSON_INVALID_AT)]
    assert "not valid draft-07" in result.findings[0].message


@pytest.mark.parametrize(
    ("name", "text", "referenced"),
    [
        ("orders.proto", schemas.ORDER_PROTO_V1, "customer.proto"),
        ("payments.json", schemas.PAYMENT_JSON_V1, "address.json"),
    ],
)
def test_an_import_or_ref_of_a_file_in_schemas_resolves_to_that_file(
    tree: Path, name: str, text: str, referenced: str
) -> None:
    (tree / name).write_text(text)
    file = schema_file(tree / name)
    files = FileSchemas(in_work_tree, tree)
    assert [(r.name, r.file.subject) for r in files.referenced_files(file, text)] == [
        (referenced, referenced.split(".")[0] + "-value")
    ]
    references = files.references(file, text)
    assert check_file(file, text, None, None, file.schema_type, references).status is Status.PASSED
    # Without the file it refers to, the schema does not parse: the reference is missing.
    alone = check_file(file, text, None, None, file.schema_type)
    assert alone.status is Status.INVALID
    assert referenced in alone.findings[0].message


def test_a_referenced_file_that_is_invalid_fails_the_file_that_refers_to_it(tree: Path) -> None:
    (tree / "customer.proto").write_text(
        schemas.CUSTOMER_PROTO.replace("string email = 2;", "string email = 2")
    )
    files = FileSchemas(in_work_tree, tree)
    with pytest.raises(ReferenceProblem) as raised:
        files.references(ORDERS, schemas.ORDER_PROTO_V1)
    (line,) = format_result(raised.value.result(ORDERS))[:1]
    assert line.startswith("schemas/orders.proto: ") and "customer.proto is not a valid schema" in line


def test_files_are_ordered_after_the_files_they_refer_to(tree: Path) -> None:
    (tree / "orders.proto").write_text(schemas.ORDER_PROTO_V1)
    files = FileSchemas(in_work_tree, tree)
    orders = schema_file(tree / "orders.proto")
    ordered = files.closure([(orders, schemas.ORDER_PROTO_V1)])
    assert [file.subject for file, _ in ordered] == ["customer-value", "orders-value"]


def test_the_field_policies_are_not_applied_to_types_without_avro_records() -> None:
    result = check_file(PAYMENTS, schemas.ADDRESS_JSON, None, Policies(require_docs=True), "JSON")
    assert result.status is Status.PASSED
    assert "--require-docs and --require-defaults read Avro records: not applied to JSON" in result.notes


def test_each_type_names_the_files_its_text_refers_to() -> None:
    proto = r"""syntax = "proto3";
// import "commented.proto";
/* import "block.proto"; */
import "common/money.proto";
import public 'customer.proto';
import "google/protobuf/timestamp.proto";
message A { string s = 1 [json_name = "import \"quoted.proto\";"]; }
"""
    assert schema_type("PROTOBUF").file_references(proto) == ("common/money.proto", "customer.proto")
    document = (
        '{"properties": {"a": {"$ref": "customer.json#/$defs/x"}, "b": {"$ref": "#/definitions/b"},'
        ' "c": {"$ref": "https://example.com/c.json"}}, "enum": [{"$ref": "data.json"}]}'
    )
    assert schema_type("JSON").file_references(document) == ("customer.json",)
    assert schema_type("AVRO").file_references(schemas.PAGE_VIEW_V1) == ()
