"""Data contracts: a schema version's ``metadata`` and ``ruleSet``, validated, canonical, merged, stored.

Pure functions over JSON values, no I/O. What a client may send is declared in
``registry.service.contract_bodies``; :func:`parse_metadata` and :func:`parse_rule_set` validate with those
declarations and return the canonical form, the form that is stored, returned and hashed into the version's
identity: metadata tags, sensitive names and property keys sorted (Confluent keeps them in sorted sets and
maps), rules in the order given with Confluent's defaults filled in, empty parts left out.

``None`` means "not given" (a registration then carries the previous version's forward); an empty dict
means "given, and empty". Nothing is dropped: an unknown field or a value of the wrong type is refused
(400 for metadata, 42210 for rule sets) with the path to it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import ValidationError

from registry.service.contract_bodies import RULE_PHASES, ContractPart
from registry.service.contract_bodies import Metadata as MetadataBody
from registry.service.contract_bodies import RuleSet as RuleSetBody
from registry.service.refusals import refusal

Metadata = dict[str, Any]
RuleSet = dict[str, Any]
Part = TypeVar("Part", bound=ContractPart)


def _parse(model: type[Part], raw: Any, where: str) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        return model.model_validate(raw).canonical()
    except ValidationError as exc:
        raise refusal(exc, model, raw, where, model.refusal) from None


def parse_metadata(raw: Any, where: str = "metadata") -> Metadata | None:
    """Validated canonical metadata; ``None`` for a missing or null value (``where``: its path, which
    messages start with)."""
    return _parse(MetadataBody, raw, where)


def parse_rule_set(raw: Any, where: str = "ruleSet") -> RuleSet | None:
    """Validated canonical rule set; ``None`` for a missing or null value."""
    return _parse(RuleSetBody, raw, where)


# -- merging, as Confluent merges defaults, a version's own values and overrides --------------------
def merge_metadata(old: Metadata | None, new: Metadata | None) -> Metadata | None:
    """``new`` over ``old``: tag paths and property keys of ``new`` win, sensitive names are united."""
    if old is None:
        return new
    if new is None:
        return old
    out: Metadata = {}
    for part in ("tags", "properties"):
        merged = {**old.get(part, {}), **new.get(part, {})}
        if merged:
            out[part] = dict(sorted(merged.items()))
    sensitive = sorted(set(old.get("sensitive", ())) | set(new.get("sensitive", ())))
    if sensitive:
        out["sensitive"] = sensitive
    return out


def merge_rule_sets(old: RuleSet | None, new: RuleSet | None) -> RuleSet | None:
    """``new`` over ``old``, phase by phase: a rule of ``new`` replaces the one of ``old`` with its name
    (which leaves its place and goes to the end, after the kept ones); ``enableAt`` of ``new`` wins."""
    if old is None:
        return new
    if new is None:
        return old
    out: RuleSet = {}
    for phase in RULE_PHASES:
        newer = new.get(phase, [])
        replaced = {rule["name"] for rule in newer}
        rules = [rule for rule in old.get(phase, []) if rule["name"] not in replaced] + newer
        if rules:
            out[phase] = rules
    enable_at = new.get("enableAt", old.get("enableAt"))
    if enable_at is not None:
        out["enableAt"] = enable_at
    return out


def properties(metadata: Metadata | None) -> dict[str, str]:
    return dict(metadata.get("properties", {})) if metadata else {}


def has_properties(metadata: Metadata | None, wanted: Mapping[str, str]) -> bool:
    """Whether every wanted key is a property with that value (``GET /subjects/{s}/metadata``)."""
    found = properties(metadata)
    return all(found.get(key) == value for key, value in wanted.items())


# -- storage --------------------------------------------------------------------------------------
def to_text(value: Metadata | RuleSet | None) -> str | None:
    """The stored JSON text; empty and missing both store as NULL."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False) if value else None


def from_text(text: str | None) -> dict[str, Any] | None:
    return json.loads(text) if text else None
