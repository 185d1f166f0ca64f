"""The pure request parsers: ranges, strictness and the non-recursive depth scan."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from registry.service import errors
from registry.service.bodies import config_update, schema_request
from registry.service.requests import (
    LATEST,
    MAX_INT32,
    json_depth,
    parse_bool,
    parse_version,
    validate_subject,
)


@pytest.mark.parametrize(
    ("raw", "expected"), [("true", True), ("True", True), ("FALSE", False), (None, False)]
)
def test_booleans_as_clients_send_them(raw: str | None, expected: bool) -> None:
    assert parse_bool(raw) is expected


def test_versions() -> None:
    assert parse_version("latest") == parse_version("-1") == LATEST
    assert parse_version(str(MAX_INT32)) == MAX_INT32
    for bad in ("0", str(MAX_INT32 + 1), "-2", "\uff11", "1 ", ""):
        with pytest.raises(errors.InvalidVersion):
            parse_version(bad)


def test_json_depth_ignores_brackets_inside_strings() -> None:
    assert json_depth('{"a": "[[[[{{{{"}') == 1
    assert json_depth('{"a": "\\"[[[", "b": [[1]]}') == 3
    assert json_depth("[" * 5000 + "]" * 5000) == 5000  # no recursion, no RecursionError


def test_subject_validation() -> None:
    assert validate_subject("a/b:c.d", 255) == "a/b:c.d"
    for bad in ("", "   ", "a\x00b", "a\u0085b", "x" * 256):
        with pytest.raises(errors.InvalidSubject):
            validate_subject(bad, 255)


@dataclass(frozen=True)
class Limits:
    max_schema_chars: int
    max_json_depth: int


def test_levels_are_case_insensitive_and_checked() -> None:
    assert config_update({"compatibility": "full_transitive"}).compatibility == "FULL_TRANSITIVE"
    with pytest.raises(errors.InvalidCompatibilityLevel):
        config_update({"compatibility": None})


def test_schema_request_limits() -> None:
    schema = json.dumps({"type": "string"})
    assert schema_request({"schema": schema}, Limits(100, 8)).schema_type == "AVRO"
    with pytest.raises(errors.SchemaTooLarge):
        schema_request({"schema": schema}, Limits(5, 8))
    with pytest.raises(errors.InvalidSchema):
        schema_request({"schema": "[" * 10 + "]" * 10}, Limits(100, 8))
    with pytest.raises(errors.InvalidSchema, match="AVRO, JSON, PROTOBUF"):
        schema_request({"schema": schema, "schemaType": "XML"}, Limits(100, 8))
