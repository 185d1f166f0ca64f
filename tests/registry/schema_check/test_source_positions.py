"""JSON pointer → line:column, on text laid out the way people write .avsc files."""

from __future__ import annotations

import json

import pytest

from registry.schema_check.source_positions import (
    NOWHERE,
    Located,
    Position,
    SourceIndex,
    escape_token,
    join_pointer,
    split_pointer,
)

PAGE_VIEW = """{
  "type": "record",
  "name": "PageView",
  "fields": [
    {"name": "url", "type": "string"},
    {
      "name": "referrer",
      "type": ["null", "string"]
    }
  ]
}
"""


def test_value_positions_of_a_typical_schema() -> None:
    index = SourceIndex(PAGE_VIEW)
    assert index.value("") == Position(1, 1)
    assert index.value("/type") == Position(2, 11)
    assert index.value("/fields/0") == Position(5, 5)
    assert index.value("/fields/0/type") == Position(5, 29)
    assert index.value("/fields/1") == Position(6, 5)
    assert index.value("/fields/1/type/1") == Position(8, 24)


def test_key_position_points_at_the_member_name() -> None:
    index = SourceIndex(PAGE_VIEW)
    assert index.key("/fields/1/name") == Position(7, 7)
    assert index.key("/fields/1") == index.value("/fields/1")  # array elements have no key


def test_missing_member_falls_back_to_the_nearest_ancestor() -> None:
    index = SourceIndex(PAGE_VIEW)
    assert index.value("/fields/1/default") == Position(6, 5)
    assert index.value("/fields/9/type") == Position(4, 13)
    assert "/fields/1/default" not in index


def test_columns_count_characters_not_bytes_and_escapes_decode() -> None:
    text = '{"doc": "Größe \\u00e9", "a\\/b": {"x~y": [1, 2.5e3, true, null, -0.5]}}'
    index = SourceIndex(text)
    assert index.value("/doc") == Position(1, 9)
    assert index.value("/a~1b/x~0y/4") == Position(1, text.index("-0.5") + 1)
    assert index.value("/a~1b/x~0y/2") == Position(1, text.index("true") + 1)


def test_every_value_of_a_nested_document_is_indexed() -> None:
    document = {"a": [{"b": {"c": [1, [2, {"d": "e"}]]}}, "f"], "g": {}, "h": []}
    text = json.dumps(document, indent=2)
    index = SourceIndex(text)
    expected = ["", "/a", "/a/0", "/a/0/b", "/a/0/b/c", "/a/0/b/c/1/1/d", "/a/1", "/g", "/h"]
    assert all(pointer in index for pointer in expected)
    line = text.splitlines().index('              "d": "e"') + 1
    assert index.value("/a/0/b/c/1/1/d") == Position(line, 20)


def test_duplicate_keys_keep_the_last_like_json_loads() -> None:
    index = SourceIndex('{"type": "int",\n "type": "long"}')
    assert index.value("/type") == Position(2, 10)


def test_text_that_does_not_scan_answers_the_start() -> None:
    index = SourceIndex('{"type": ')
    assert index.value("/type") == Position(1, 1)


@pytest.mark.parametrize(
    ("tokens", "pointer"),
    [((), ""), (("fields", 2, "type"), "/fields/2/type"), (("a/b", "m~n"), "/a~1b/m~0n"), (("",), "/")],
)
def test_pointers_round_trip(tokens: tuple[str | int, ...], pointer: str) -> None:
    assert join_pointer(*tokens) == pointer
    assert split_pointer(pointer) == [str(token) for token in tokens]


def test_escape_order_matters() -> None:
    assert escape_token("~1") == "~01"
    assert split_pointer("/~01") == ["~1"]


def test_a_pointer_without_leading_slash_is_rejected() -> None:
    with pytest.raises(ValueError, match="starts with '/'"):
        split_pointer("fields/0")
    assert SourceIndex("{}").value("fields/0") == Position(1, 1)


def test_a_located_index_shows_a_pointer_at_its_nearest_located_parent() -> None:
    asked = []
    index = Located(lambda: asked.append(1) or {"/message_type/0": (3, 1), "/message_type/0/field/1": (5, 3)})
    assert asked == []  # not until a pointer is looked up
    assert index.value("/message_type/0/field/1") == Position(5, 3)
    assert index.value("/message_type/0/field/1/type_name") == Position(5, 3)
    assert index.value("/message_type/0/oneof_decl/0") == Position(3, 1)
    assert index.value("/message_type/1") == NOWHERE
    assert index.value("") == NOWHERE  # the whole file: a part the new version no longer has
    assert index.value("customer.proto:/message_type/0") == NOWHERE  # in a file it imports
    assert asked == [1]  # found once
