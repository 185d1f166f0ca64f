"""Data contracts as the page shows them: a subject's whole config, a version's metadata and rules as rows.

The values come from the repository the API answers from (``GET /config/{subject}?defaultToGlobal=true``
for the config); the shaping into rows is pure (``contract_diff.rule_rows``), so the templates only loop.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from registry.service import errors
from registry.ui.contract_diff import rule_rows

if TYPE_CHECKING:
    from registry.storage.repository import Registry

#: The config's keys in the order the page lists them (Confluent's names).
CONFIG_KEYS = (
    "compatibilityLevel",
    "compatibilityGroup",
    "defaultMetadata",
    "overrideMetadata",
    "defaultRuleSet",
    "overrideRuleSet",
)
RULE_SET_KEYS = ("defaultRuleSet", "overrideRuleSet")


@dataclass(frozen=True)
class RuleRow:
    phase: str
    cells: dict[str, str]


@dataclass(frozen=True)
class ConfigItem:
    """One config setting: its value as text (or as rules), and whether the subject sets it itself."""

    key: str
    value: str
    own: bool
    rules: tuple[RuleRow, ...] = ()


@dataclass(frozen=True)
class ContractView:
    """A version's data contract as rows: tags by path, properties, sensitive names, rules."""

    tags: tuple[tuple[str, str], ...] = ()
    properties: tuple[tuple[str, str], ...] = ()
    sensitive: tuple[str, ...] = ()
    rules: tuple[RuleRow, ...] = ()
    enable_at: str = ""

    @property
    def empty(self) -> bool:
        return not (self.tags or self.properties or self.sensitive or self.rules)


def rules_of(rule_set: dict[str, Any] | None) -> tuple[RuleRow, ...]:
    return tuple(RuleRow(phase, cells) for phase, cells in rule_rows(rule_set))


def contract_view(metadata: dict[str, Any] | None, rule_set: dict[str, Any] | None) -> ContractView:
    metadata = metadata or {}
    return ContractView(
        tags=tuple((path, ", ".join(tags)) for path, tags in sorted(metadata.get("tags", {}).items())),
        properties=tuple(sorted(metadata.get("properties", {}).items())),
        sensitive=tuple(metadata.get("sensitive", ())),
        rules=rules_of(rule_set),
        enable_at=str((rule_set or {}).get("enableAt") or ""),
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)


def subject_config(registry: Registry, subject: str, level_own: bool) -> tuple[ConfigItem, ...]:
    """Every setting in force for ``subject`` (its own, else the global one), as the API answers it;
    ``level_own``: whether the subject has a level of its own (its history says)."""
    effective = registry.get_config(subject, default_to_global=True)
    try:
        own = registry.get_config(subject)
    except errors.RegistryError:  # 40408: the subject sets nothing of its own
        own = {}
    items = []
    for key in CONFIG_KEYS:
        if key not in effective:
            continue
        value = effective[key]
        mine = level_own if key == "compatibilityLevel" else key in own
        rules = rules_of(value) if key in RULE_SET_KEYS else ()
        items.append(ConfigItem(key, "" if rules else _text(value), bool(mine), rules))
    for key in sorted(set(effective) - set(CONFIG_KEYS)):
        items.append(ConfigItem(key, _text(effective[key]), key in own))
    return tuple(items)
