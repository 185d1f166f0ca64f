"""The pure parts of the page's data contracts: metadata and rule-set changes, rule rows, tag paths."""

from __future__ import annotations

from registry.service.contracts import parse_metadata, parse_rule_set
from registry.ui.contract_diff import (
    ContractChange,
    contract_changes,
    path_tags,
    rule_changes,
    rule_rows,
)


def rule(name: str, **extra: object) -> dict[str, object]:
    return {"name": name, "kind": "CONDITION", "type": "CEL", "expr": "message.id > 0", **extra}


def test_rules_added_removed_and_changed_are_named_with_the_fields_that_differ() -> None:
    old = parse_rule_set({"domainRules": [rule("positive"), rule("gone")]})
    new = parse_rule_set(
        {
            "domainRules": [rule("positive", expr="message.id > 1", onFailure="DLQ")],
            "migrationRules": [rule("upgrade", kind="TRANSFORM", mode="UPGRADE", type="JSONATA", expr="$")],
        }
    )
    assert rule_changes(old, new) == [
        ContractChange("added", "migration rule", "upgrade", None, "TRANSFORM UPGRADE JSONATA expr $"),
        ContractChange("changed", "domain rule", "positive",
                       "expr: message.id > 0; onFailure: null", "expr: message.id > 1; onFailure: DLQ"),
        ContractChange("removed", "domain rule", "gone", "CONDITION WRITEREAD CEL expr message.id > 0", None),
    ]  # fmt: skip


def test_tags_properties_and_sensitive_names_are_compared_one_by_one() -> None:
    old = parse_metadata({"tags": {"Card.number": ["PII"]}, "properties": {"owner": "payments", "v": "1"}})
    new = parse_metadata(
        {
            "tags": {"Card.number": ["PII", "PCI"], "Card.last4": ["PII"]},
            "properties": {"owner": "cards", "team": "x"},
            "sensitive": ["team"],
        }
    )
    assert contract_changes((old, None), (new, None)) == [
        ContractChange("added", "tag", "Card.last4", None, "PII"),
        ContractChange("added", "tag", "Card.number", None, "PCI"),
        ContractChange("changed", "property", "owner", "payments", "cards"),
        ContractChange("added", "property", "team", None, "x"),
        ContractChange("removed", "property", "v", "1", None),
        ContractChange("added", "sensitive", "team"),
    ]


def test_no_contract_and_an_equal_contract_are_no_change() -> None:
    same = parse_rule_set({"domainRules": [rule("a")]})
    assert contract_changes((None, None), (None, None)) == []
    assert contract_changes(({}, same), (None, same)) == []


def test_rule_rows_keep_every_rule_in_order_with_their_columns() -> None:
    rules = parse_rule_set(
        {
            "domainRules": [rule("a", tags=["PII"], onSuccess="NONE", onFailure="ERROR"), rule("b")],
            "migrationRules": [rule("c", mode="UPGRADE", disabled=True)],
        }
    )
    rows = rule_rows(rules)
    assert [(phase, cells["name"]) for phase, cells in rows] == [
        ("migration rule", "c (disabled)"),
        ("domain rule", "a"),
        ("domain rule", "b"),
    ]
    cells = rows[1][1]
    assert cells["tags"] == "PII" and cells["onFailure"] == "ERROR" and cells["mode"] == "WRITEREAD"


def test_tag_paths_match_exactly_with_or_without_the_namespace_and_with_wildcards() -> None:
    metadata = {
        "tags": {
            "Card.number": ["PCI"],
            "com.example.Card.holder": ["PII"],
            "**.secret": ["SECRET"],
            "Card.*": ["CARD"],
        }
    }
    assert path_tags(metadata, "Card.number", "com.example") == ["CARD", "PCI"]
    assert path_tags(metadata, "Card.holder", "com.example") == ["CARD", "PII"]
    assert path_tags(metadata, "Card.billing.secret", "com.example") == ["SECRET"]
    assert path_tags(metadata, "Card.billing.city", "com.example") == []
    assert path_tags(None, "Card.number") == []
