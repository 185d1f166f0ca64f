"""The manual's tables of compatibility rules are what each type's check answers for their examples
(registry/schema_types/rule_examples.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from registry.schema_types import SCHEMA_TYPE_NAMES
from registry.schema_types.rule_examples import EXAMPLES, LEVELS, rules_table, verdict, with_rules_tables

MANUAL = Path(__file__).resolve().parents[3] / "docs" / "registry.md"


def test_the_manual_s_tables_are_the_ones_the_checks_make() -> None:
    manual = MANUAL.read_text()
    assert with_rules_tables(manual) == manual, (
        "docs/registry.md's rules tables differ from the checks: "
        "python -m registry.schema_types.rule_examples docs/registry.md"
    )
    for name in SCHEMA_TYPE_NAMES:
        assert rules_table(name) in manual


def test_every_type_has_examples_each_level_allows_and_refuses() -> None:
    """A type added to the registry gets its table too; each table shows both answers at each level."""
    assert set(EXAMPLES) == set(SCHEMA_TYPE_NAMES)
    for name, examples in EXAMPLES.items():
        for level in LEVELS:
            answers = {verdict(name, example, level).split(":")[0] for example in examples}
            assert answers == {"yes", "no"}, (name, level)


def test_a_marker_naming_no_type_is_an_error() -> None:
    marked = "<!-- rules table: XML (made by hand) -->\n| old |\n<!-- end of the rules table -->"
    with pytest.raises(ValueError, match="no examples of schema type 'XML'"):
        with_rules_tables(marked)


def test_a_table_left_stale_is_made_again() -> None:
    stale = "<!-- rules table: AVRO (made from the examples) -->\n| old |\n<!-- end of the rules table -->"
    made = with_rules_tables(stale)
    assert "| old |" not in made
    assert made == stale.replace("| old |\n", rules_table("AVRO"))
