"""Metadata and rule sets as clients send them: canonical forms, Confluent's validation, clear refusals."""

from __future__ import annotations

from typing import Any

import pytest

from registry.service import errors
from registry.service.contracts import (
    from_text,
    has_properties,
    merge_metadata,
    merge_rule_sets,
    parse_metadata,
    parse_rule_set,
    to_text,
)


def rule(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "type": "CEL", **fields}


def test_metadata_is_canonical_sorted_and_without_empty_parts() -> None:
    sent = {
        "tags": {"Order.email": ["PII", "EMAIL", "PII"], "Order.id": []},
        "properties": {"owner": "team-a", "application.major": "2"},
        "sensitive": ["z", "a"],
    }
    assert parse_metadata(sent) == {
        "tags": {"Order.email": ["EMAIL", "PII"], "Order.id": []},
        "properties": {"application.major": "2", "owner": "team-a"},
        "sensitive": ["a", "z"],
    }
    assert parse_metadata({"tags": {}, "properties": None, "sensitive": []}) == {}, "given, but empty"
    assert parse_metadata(None) is None, "not given"


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        ([], "metadata must be an object"),
        ({"owner": "x"}, "metadata has unknown field 'owner' (known: tags, properties, sensitive)"),
        ({"properties": {"major": 2}}, "metadata.properties.major must be a string, not 2"),
        ({"properties": ["a"]}, "metadata.properties must be an object of strings"),
        ({"tags": {"f": "PII"}}, "metadata.tags.f must be a list of strings"),
        ({"tags": ["PII"]}, "metadata.tags must be an object of tag lists"),
        ({"sensitive": "f"}, "metadata.sensitive must be a list of strings"),
    ],
)
def test_malformed_metadata_is_a_400_naming_the_field(sent: Any, message: str) -> None:
    with pytest.raises(errors.BadRequest) as refused:
        parse_metadata(sent)
    assert refused.value.message == f"Invalid metadata: {message}."


def test_rules_keep_every_field_in_confluents_order_with_its_defaults() -> None:
    full = {
        "disabled": True,
        "onFailure": "ERROR",
        "onSuccess": "NONE",
        "expr": "message.amount > 0",
        "params": {"b": "2", "a": "1"},
        "tags": ["PII", "FIN"],
        "type": "CEL",
        "mode": "WRITE",
        "kind": "CONDITION",
        "doc": "amounts are positive",
        "name": "positiveAmount",
    }
    parsed = parse_rule_set({"domainRules": [full, rule("plain")], "enableAt": "CLIENT"})
    assert parsed is not None
    first, plain = parsed["domainRules"]
    assert list(first) == [
        "name", "doc", "kind", "mode", "type", "tags", "params", "expr", "onSuccess", "onFailure", "disabled",
    ]  # fmt: skip
    assert (
        first["mode"] == "WRITE"
        and first["tags"] == ["FIN", "PII"]
        and first["params"] == {"a": "1", "b": "2"}
    )
    assert plain == {
        "name": "plain",
        "kind": "TRANSFORM",
        "mode": "WRITEREAD",
        "type": "CEL",
        "disabled": False,
    }
    assert parsed["enableAt"] == "CLIENT"
    assert parse_rule_set({"migrationRules": [], "domainRules": None}) == {}


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        ({"domainRules": [rule("a"), rule("a")]}, "ruleSet: two rules are named 'a'"),
        (
            {"migrationRules": [rule("m", mode="WRITE")]},
            "ruleSet.migrationRules[0] (m): mode WRITE is not allowed",
        ),
        (
            {"domainRules": [rule("d", mode="UPGRADE")]},
            "ruleSet.domainRules[0] (d): mode UPGRADE is not allowed",
        ),
        ({"migrationRules": [rule("m")]}, "ruleSet.migrationRules[0] (m).mode is missing; it must be one of"),
        ({"domainRules": [{"name": "x"}]}, "ruleSet.domainRules[0] (x) needs a string 'type'"),
        ({"domainRules": [{"name": "x", "type": None}]}, "ruleSet.domainRules[0] (x) needs a string 'type'"),
        ({"domainRules": [rule("1x")]}, "the name '1x' must start with a letter or '_'"),
        ({"domainRules": [rule("a b")]}, "the name 'a b' may hold only letters, digits, '_' and '-'"),
        ({"domainRules": [rule("x" * 257)]}, "the name is longer than 256 characters"),
        ({"domainRules": [{"type": "CEL"}]}, "ruleSet.domainRules[0] needs a non-empty string 'name'"),
        ({"domainRules": [rule("w", mode="WRITE", onFailure="DLQ,ERROR")]}, "two actions in onFailure"),
        ({"domainRules": [rule("k", kind="CHECK")]}, "kind must be one of TRANSFORM, CONDITION"),
        ({"domainRules": [rule("u", when="x")]}, "has unknown field 'when'"),
        ({"domainRules": [rule("p", params={"n": 1})]}, "params.n must be a string, not 1"),
        ({"domainRules": [rule("t", disabled="no")]}, "disabled must be true or false"),
        ({"domainRules": rule("x")}, "ruleSet.domainRules must be a list of rules"),
        ({"rules": []}, "ruleSet has unknown field 'rules'"),
        ({"enableAt": "EVERYWHERE"}, "ruleSet.enableAt must be one of ALL, CLIENT"),
        ({"domainRules": [rule("w", mode="write")]}, "mode must be one of UPGRADE, DOWNGRADE, UPDOWN, WRITE"),
        ({"domainRules": [rule("\u00e9t\u00e9")]}, "must start with a letter or '_'"),
        ({"domainRules": [rule("t", disabled=None)]}, "disabled must be true or false, not null"),
        ("CEL", "ruleSet must be an object"),
    ],
)
def test_invalid_rule_sets_are_42210_saying_what_is_wrong(sent: Any, message: str) -> None:
    with pytest.raises(errors.InvalidRuleSet) as refused:
        parse_rule_set(sent)
    assert refused.value.error_code == 42210
    assert message in refused.value.message


def test_two_actions_are_allowed_in_two_way_modes() -> None:
    parsed = parse_rule_set({"migrationRules": [rule("m", mode="UPDOWN", onFailure="NONE,ERROR")]})
    assert parsed is not None and parsed["migrationRules"][0]["onFailure"] == "NONE,ERROR"


def test_metadata_merge_new_wins_per_key_and_sensitive_names_add_up() -> None:
    old = {"tags": {"a": ["X"], "b": ["Y"]}, "properties": {"owner": "a", "tier": "1"}, "sensitive": ["s1"]}
    new = {"tags": {"b": ["Z"]}, "properties": {"owner": "b"}, "sensitive": ["s2"]}
    assert merge_metadata(old, new) == {
        "tags": {"a": ["X"], "b": ["Z"]},
        "properties": {"owner": "b", "tier": "1"},
        "sensitive": ["s1", "s2"],
    }
    assert merge_metadata(None, new) is new and merge_metadata(old, None) is old


def test_rule_set_merge_replaces_rules_by_name_and_appends_the_new_ones() -> None:
    old = parse_rule_set({"domainRules": [rule("a"), rule("b")], "enableAt": "ALL"})
    new = parse_rule_set({"domainRules": [rule("a", expr="2"), rule("c")], "migrationRules": []})
    merged = merge_rule_sets(old, new)
    assert merged is not None
    assert [(r["name"], r.get("expr")) for r in merged["domainRules"]] == [
        ("b", None),
        ("a", "2"),
        ("c", None),
    ]
    assert merged["enableAt"] == "ALL"


def test_property_matching_and_storage_text() -> None:
    metadata = parse_metadata({"properties": {"major": "2", "owner": "a"}})
    assert has_properties(metadata, {"major": "2"}) and has_properties(metadata, {})
    assert not has_properties(metadata, {"major": "1"}) and not has_properties(None, {"major": "2"})
    assert to_text({}) is None and to_text(None) is None
    assert from_text(to_text(metadata)) == metadata
