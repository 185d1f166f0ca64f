"""What changed in a data contract between two versions: metadata (tags, properties, sensitive names) and
rule sets (rules added, removed or changed, and in which of their fields).

Pure functions over the canonical forms ``registry.service.contracts`` stores (tags, property keys and
sensitive names sorted; rules in order, each with every field). The diff page shows these rows beside the
schema's own changes, so a version that only adds a migration rule or a field's tag is not "no change".
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from registry.service.contracts import RULE_PHASES

#: The rule fields the page shows as columns, in that order (the others are compared too).
RULE_COLUMNS = ("name", "kind", "mode", "type", "expr", "tags", "onSuccess", "onFailure")


@dataclass(frozen=True)
class ContractChange:
    """One change: ``kind`` is ``added``, ``removed`` or ``changed``; ``part`` says what of the contract
    (``tag``, ``property``, ``sensitive``, a rule phase such as ``migration rule``)."""

    kind: str
    part: str
    name: str
    old: str | None = None
    new: str | None = None


def _phase_label(phase: str) -> str:
    return phase.removesuffix("Rules") + " rule"


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _mapping_changes(part: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[ContractChange]:
    out = []
    for key in sorted(set(old) | set(new)):
        if key not in new:
            out.append(ContractChange("removed", part, key, _shown(old[key]), None))
        elif key not in old:
            out.append(ContractChange("added", part, key, None, _shown(new[key])))
        elif old[key] != new[key]:
            out.append(ContractChange("changed", part, key, _shown(old[key]), _shown(new[key])))
    return out


def _tag_changes(old: Mapping[str, list[str]], new: Mapping[str, list[str]]) -> list[ContractChange]:
    """Tags per path, one row per tag added to or removed from a path."""
    out = []
    for path in sorted(set(old) | set(new)):
        before, after = set(old.get(path, ())), set(new.get(path, ()))
        out += [ContractChange("removed", "tag", path, tag, None) for tag in sorted(before - after)]
        out += [ContractChange("added", "tag", path, None, tag) for tag in sorted(after - before)]
    return out


def _text_or_none(value: Any) -> str | None:
    return None if value is None else _shown(value)


def metadata_changes(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> list[ContractChange]:
    """Tags, properties and sensitive names added, removed or changed."""
    old, new = old or {}, new or {}
    out = _tag_changes(old.get("tags", {}), new.get("tags", {}))
    out += _mapping_changes("property", old.get("properties", {}), new.get("properties", {}))
    before, after = set(old.get("sensitive", ())), set(new.get("sensitive", ()))
    out += [ContractChange("removed", "sensitive", name) for name in sorted(before - after)]
    out += [ContractChange("added", "sensitive", name) for name in sorted(after - before)]
    return out


def rule_summary(rule: Mapping[str, Any]) -> str:
    """A rule in one line: kind, mode, type and expression (what tells two rules apart at a glance)."""
    parts = [str(rule.get(key)) for key in ("kind", "mode", "type") if rule.get(key)]
    if rule.get("expr"):
        parts.append(f"expr {rule['expr']}")
    if rule.get("disabled"):
        parts.append("disabled")
    return " ".join(parts)


def rule_changes(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> list[ContractChange]:
    """Rules by phase and name: added, removed, or changed (naming the fields that differ)."""
    old, new = old or {}, new or {}
    out = []
    for phase in RULE_PHASES:
        part = _phase_label(phase)
        before = {rule["name"]: rule for rule in old.get(phase, ())}
        after = {rule["name"]: rule for rule in new.get(phase, ())}
        for name in [*before, *(n for n in after if n not in before)]:
            if name not in after:
                out.append(ContractChange("removed", part, name, rule_summary(before[name]), None))
            elif name not in before:
                out.append(ContractChange("added", part, name, None, rule_summary(after[name])))
            elif before[name] != after[name]:
                fields = sorted(
                    key
                    for key in set(before[name]) | set(after[name])
                    if before[name].get(key) != after[name].get(key)
                )
                old_text = "; ".join(f"{k}: {_shown(before[name].get(k))}" for k in fields)
                new_text = "; ".join(f"{k}: {_shown(after[name].get(k))}" for k in fields)
                out.append(ContractChange("changed", part, name, old_text, new_text))
    if old.get("enableAt") != new.get("enableAt"):
        was, now = _text_or_none(old.get("enableAt")), _text_or_none(new.get("enableAt"))
        out.append(ContractChange("changed", "rule set", "enableAt", was, now))
    return out


def contract_changes(
    old: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None],
    new: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None],
) -> list[ContractChange]:
    """Every change between two (metadata, rule set) pairs, metadata first."""
    return metadata_changes(old[0], new[0]) + rule_changes(old[1], new[1])


def rule_rows(rule_set: Mapping[str, Any] | None) -> list[tuple[str, dict[str, str]]]:
    """A rule set as table rows: (phase label, the :data:`RULE_COLUMNS` as text, params and doc too)."""
    rows = []
    for phase in RULE_PHASES:
        for rule in (rule_set or {}).get(phase, ()):
            cells = {key: _cell(rule.get(key)) for key in (*RULE_COLUMNS, "params", "doc")}
            if rule.get("disabled"):
                cells["name"] += " (disabled)"
            rows.append((_phase_label(phase), cells))
    return rows


def _cell(value: Any) -> str:
    if value is None or value == [] or value == {}:
        return ""
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def _glob(pattern: str) -> re.Pattern[str]:
    """Confluent's tag path patterns: ``*`` is one path segment's characters, ``**`` any characters."""
    parts = re.split(r"(\*\*|\*)", pattern)
    body = "".join(".*" if part == "**" else "[^.]*" if part == "*" else re.escape(part) for part in parts)
    return re.compile(body)


def path_tags(metadata: Mapping[str, Any] | None, path: str, namespace: str | None = None) -> list[str]:
    """The metadata tags whose path pattern matches a field's path (``Customer.email``; with the
    record's namespace in front too, as in ``com.example.Customer.email``), sorted."""
    candidates = [path] + ([f"{namespace}.{path}"] if namespace else [])
    found: set[str] = set()
    for pattern, tags in (metadata or {}).get("tags", {}).items():
        compiled = _glob(pattern)
        if any(compiled.fullmatch(candidate) for candidate in candidates):
            found.update(tags)
    return sorted(found)
