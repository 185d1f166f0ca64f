"""Config for data contracts (``/config`` and ``/config/{subject}``) and what it does to a registration.

Five settings, global or per subject, as in Confluent: ``compatibilityGroup`` (a metadata property: a new
version is checked only against versions with the same value of it), ``defaultMetadata`` and
``defaultRuleSet`` (used under what a version brings), ``overrideMetadata`` and ``overrideRuleSet`` (laid
over it). Scope follows Confluent's: a subject with a config of its own uses its own defaults and
overrides (not the global ones) and falls back to the global ``compatibilityGroup``; a subject without one
uses the global config.

A registration's contract, outside IMPORT mode, is Confluent's: the request's metadata (or, when the
request has none, the previous version's) merged over the default and under the override; the same for
the rule set. Pure functions; the repository reads and writes the settings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

from pydantic.alias_generators import to_camel

from registry.service.contracts import Metadata, RuleSet, merge_metadata, merge_rule_sets

V = TypeVar("V")


@dataclass(frozen=True)
class ContractConfig:
    """The contract settings of one scope (global, or one subject); ``None``: not set."""

    compatibility_group: str | None = None
    default_metadata: Metadata | None = None
    override_metadata: Metadata | None = None
    default_rule_set: RuleSet | None = None
    override_rule_set: RuleSet | None = None

    def is_empty(self) -> bool:
        return all(getattr(self, f.name) is None for f in fields(self))

    def body(self) -> dict[str, Any]:
        """The set fields under their JSON names (the part of ``GET /config`` beyond the level)."""
        out = {}
        for name, attribute in CONTRACT_FIELDS.items():
            value = getattr(self, attribute)
            if value is not None:
                out[name] = value
        return out


#: JSON name -> attribute of :class:`ContractConfig` (JSON names are the attributes in camelCase, as in
#: every body: ``registry.service.bodies``).
CONTRACT_FIELDS = {to_camel(f.name): f.name for f in fields(ContractConfig)}


@dataclass(frozen=True)
class ConfigUpdate:
    """A ``PUT /config`` body (``registry.service.bodies.ConfigBody``): the level when given, and the
    contract fields present in it (a field given as null clears it; an absent field keeps its value, as
    Confluent updates config)."""

    compatibility: str | None
    contract: dict[str, Any]

    def apply(self, current: ContractConfig) -> ContractConfig:
        return replace(current, **self.contract)


def in_scope(global_config: ContractConfig, subject_config: ContractConfig | None) -> ContractConfig:
    """The config a subject's registrations use (see the module docstring); ``subject_config`` is None
    when the subject has no config of its own (no level and no contract setting)."""
    if subject_config is None:
        return global_config
    group = subject_config.compatibility_group or global_config.compatibility_group
    return replace(subject_config, compatibility_group=group)


def registration_contract(
    config: ContractConfig,
    metadata: Metadata | None,
    rule_set: RuleSet | None,
    previous: tuple[Metadata | None, RuleSet | None] | None,
) -> tuple[Metadata | None, RuleSet | None]:
    """What a new version carries: given values (else the previous version's) between default and
    override. Empty results become ``None`` (nothing to store)."""
    if metadata is None and previous is not None:
        metadata = previous[0]
    if rule_set is None and previous is not None:
        rule_set = previous[1]
    merged_metadata = merge_metadata(
        merge_metadata(config.default_metadata, metadata), config.override_metadata
    )
    merged_rules = merge_rule_sets(
        merge_rule_sets(config.default_rule_set, rule_set), config.override_rule_set
    )
    return merged_metadata or None, merged_rules or None


def group_value(metadata: Metadata | None, group: str | None) -> str | None:
    """The version's value of the compatibility group property (None: no group, or no value)."""
    if group is None or not metadata:
        return None
    value = metadata.get("properties", {}).get(group)
    return value if isinstance(value, str) else None


def in_group(
    versions: Sequence[V],
    metadata_of: Callable[[V], Metadata | None],
    group: str,
    value: str | None,
    transitive: bool,
) -> list[V]:
    """The versions (oldest first) a new one of group value ``value`` is checked against: those of its
    group, all of them for a transitive level, else the newest."""
    same = [version for version in versions if group_value(metadata_of(version), group) == value]
    return same if transitive else same[-1:]
