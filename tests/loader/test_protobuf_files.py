"""A Protobuf schema compiled with its imports by protoc, as the loader makes its table and decoder."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from loader.reading.value_formats.protobuf_files import SCHEMA_FILE, ProtobufCompileError, compiled


@dataclass(frozen=True)
class Text:
    text: str


MONEY = Text('syntax = "proto3";\npackage common;\nmessage Money { int64 cents = 1; }\n')
ORDER = Text(
    'syntax = "proto3";\npackage shop;\nimport "common/money.proto";\n'
    'import "google/protobuf/timestamp.proto";\n'
    "message Order { common.Money total = 1; google.protobuf.Timestamp at = 2; }\n"
)


def test_the_schema_comes_last_after_its_references_and_the_well_known_types() -> None:
    files = compiled(ORDER, {"common/money.proto": MONEY})
    assert [f.name for f in files] == ["common/money.proto", "google/protobuf/timestamp.proto", SCHEMA_FILE]
    assert files[-1].message_type[0].field[0].type_name == ".common.Money"


@pytest.mark.parametrize(
    ("references", "message"),
    [
        ({}, "protoc refused the schema or a file it imports"),  # the import is no reference
        ({"../money.proto": MONEY}, "the reference name '../money.proto' is no import path"),
    ],
)
def test_a_schema_that_does_not_compile_is_refused_by_name(references: dict, message: str) -> None:
    with pytest.raises(ProtobufCompileError, match=message.replace("(", r"\(")):
        compiled(ORDER, references)
