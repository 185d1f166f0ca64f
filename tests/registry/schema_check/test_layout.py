"""Paths ↔ subjects in the schemas/ layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from registry.schema_check.layout import LayoutError, discover, schema_file, schema_files


def test_value_and_key_files_map_to_topic_name_strategy_subjects() -> None:
    value = schema_file("schemas/page_view.avsc")
    key = schema_file(Path("schemas/page_view.key.avsc"))
    assert (value.topic, value.subject, value.display) == (
        "page_view",
        "page_view-value",
        "schemas/page_view.avsc",
    )
    assert (key.topic, key.subject) == ("page_view", "page_view-key")


def test_subdirectories_only_group_files() -> None:
    assert schema_file("schemas/ads/ad.click-events.avsc").subject == "ad.click-events-value"


@pytest.mark.parametrize(
    "name", ["schemas/notes.txt", "schemas/bad name.avsc", "schemas/.avsc", "x/...avsc", "schemas/.key.proto"]
)
def test_names_that_are_not_topics_are_refused(name: str) -> None:
    with pytest.raises(LayoutError) as raised:
        schema_file(name)
    assert name in str(raised.value)


def test_two_files_for_one_subject_is_a_layout_error(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="both hold subject 'search-value'"):
        schema_files(["schemas/search.avsc", "schemas/old/search.avsc"])


def test_the_same_file_named_twice_is_checked_once(tmp_path: Path) -> None:
    (tmp_path / "search.avsc").write_text("{}")
    files = schema_files([tmp_path / "search.avsc", tmp_path / "." / "search.avsc"])
    assert [f.subject for f in files] == ["search-value"]


def test_discover_finds_schema_files_of_every_type_recursively_in_order(tmp_path: Path) -> None:
    names = ["b.avsc", "a.key.avsc", "sub/c.avsc", "d.proto", "e.json", "b.meta.json", "notes.md"]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    assert [p.relative_to(tmp_path).as_posix() for p in discover(tmp_path)] == [
        "a.key.avsc",
        "b.avsc",
        "d.proto",
        "e.json",
        "sub/c.avsc",
    ]


def test_a_contract_file_is_not_a_schema_file() -> None:
    with pytest.raises(LayoutError, match=r"named <topic>\.avsc, <topic>\.json or <topic>\.proto"):
        schema_file("schemas/page_view.meta.json")
