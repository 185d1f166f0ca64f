"""Data contracts on every page: diffs name metadata and rule changes, the subject shows its whole config,
rules are a table with every rule, and tagged fields are marked in the tree."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from tests.registry.ui.helpers import api, register
from tests.registry.ui.test_pages import html, rows

SUBJECT = "cards-value"
CARD = {
    "type": "record",
    "name": "Card",
    "namespace": "com.example",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "number", "type": "string"},
        {"name": "card_last4", "type": "string", "default": "", "confluent:tags": ["MASKED"]},
    ],
}
POSITIVE = {
    "name": "positiveId",
    "kind": "CONDITION",
    "mode": "WRITE",
    "type": "CEL",
    "expr": "message.id > 0",
}
UPGRADE = {
    "name": "upgrade",
    "kind": "TRANSFORM",
    "mode": "UPGRADE",
    "type": "JSONATA",
    "expr": "$merge([$])",
}
CHECKSUM = {
    "name": "checksum",
    "kind": "CONDITION",
    "mode": "WRITE",
    "type": "CEL",
    "expr": "size(message.number) == 16",
    "tags": ["PCI"],
    "onFailure": "DLQ",
}


def contract(tags: dict[str, list[str]] | None = None, **properties: str) -> dict[str, Any]:
    return {"properties": {"owner": "cards", **properties}, **({"tags": tags} if tags else {})}


def fill(client: FlaskClient) -> None:
    register(client, SUBJECT, CARD, metadata=contract(), ruleSet={"domainRules": [POSITIVE]})
    register(
        client,
        SUBJECT,
        CARD,
        metadata=contract(),
        ruleSet={"domainRules": [POSITIVE, CHECKSUM], "migrationRules": [UPGRADE]},
    )
    register(
        client,
        SUBJECT,
        CARD,
        metadata=contract({"Card.number": ["PII"]}, retention="30d"),
        ruleSet={"domainRules": [POSITIVE, {**CHECKSUM, "onFailure": "ERROR"}], "migrationRules": [UPGRADE]},
    )
    api(client, "PUT", f"/config/{SUBJECT}", {
        "compatibilityGroup": "major",
        "defaultMetadata": {"properties": {"major": "1"}},
        "overrideRuleSet": {"domainRules": [{**POSITIVE, "name": "alwaysPositive"}]},
    })  # fmt: skip


def test_the_diff_names_rules_added_and_changed_and_tags_and_properties_added(client: FlaskClient) -> None:
    fill(client)
    first = html(client, f"/ui/subjects/{SUBJECT}/diff?old=1&new=2")
    assert rows(first, "contract-changes") == [
        ["added", "migration rule", "upgrade", "", "TRANSFORM UPGRADE JSONATA expr $merge([$])"],
        ["added", "domain rule", "checksum", "", "CONDITION WRITE CEL expr size(message.number) == 16"],
    ]
    assert "No change in fields, types, defaults or docs." in first  # the schema itself is the same
    second = html(client, f"/ui/subjects/{SUBJECT}/diff?old=2&new=3")
    assert rows(second, "contract-changes") == [
        ["added", "tag", "Card.number", "", "PII"],
        ["added", "property", "retention", "", "30d"],
        ["changed", "domain rule", "checksum", "onFailure: DLQ", "onFailure: ERROR"],
    ]
    same = html(client, f"/ui/subjects/{SUBJECT}/diff?old=3&new=3")
    assert 'id="no-contract-change"' in same


def test_the_subject_shows_its_whole_config_and_every_rule_in_a_table(client: FlaskClient) -> None:
    fill(client)
    page = html(client, f"/ui/subjects/{SUBJECT}")
    config = {row[0]: (row[1], row[-1]) for row in rows(page, "config-table")}
    assert config["compatibilityGroup"] == ("major", "the subject")
    assert '"major": "1"' in config["defaultMetadata"][0]
    assert "alwaysPositive" in config["overrideRuleSet"][0]
    rules = rows(page, "contract-rules")
    assert [row[:6] for row in rules] == [
        ["migration rule", "upgrade", "TRANSFORM", "UPGRADE", "JSONATA", "$merge([$])"],
        ["domain rule", "positiveId", "CONDITION", "WRITE", "CEL", "message.id > 0"],
        ["domain rule", "checksum", "CONDITION", "WRITE", "CEL", "size(message.number) == 16"],
    ]
    assert rules[2][6:9] == ["PCI", "", "ERROR"]
    metadata = rows(page, "contract-metadata")
    assert ["tag", "Card.number", "PII"] in metadata and ["property", "retention", "30d"] in metadata


def test_fields_carrying_tags_are_marked_in_the_tree(client: FlaskClient) -> None:
    fill(client)
    tree = {row[0]: row for row in rows(html(client, f"/ui/subjects/{SUBJECT}"), "field-tree")}
    assert tree["number PII"][1] == "string"
    assert "card_last4 MASKED" in tree
    assert "id" in tree
    older = {row[0] for row in rows(html(client, f"/ui/subjects/{SUBJECT}?version=1"), "field-tree")}
    assert "number" in older, "version 1's metadata tags nothing"
    assert 'class="badge tag"' in html(client, "/ui/schemas/3")


def test_a_subject_without_settings_of_its_own_shows_the_global_ones(client: FlaskClient) -> None:
    api(client, "PUT", "/config", {"compatibilityGroup": "app.major"})
    register(client, "plain-value", CARD)
    config = {row[0]: row[-1] for row in rows(html(client, "/ui/subjects/plain-value"), "config-table")}
    assert config == {"compatibilityGroup": "global"}
