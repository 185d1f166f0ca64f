"""Data contracts as clients send them, declared once: a version's ``metadata`` and ``ruleSet``.

Pydantic models whose fields carry Confluent's rules; ``registry.service.contracts`` validates with them
(the API, backups, ``registry check``'s contract files) and the OpenAPI document shows their schemas.

* metadata ``{"tags": {path: [tag]}, "properties": {key: value}, "sensitive": [name]}``;
* a rule set ``{"migrationRules", "domainRules", "encodingRules", "enableAt"}``, each rule with every
  field Confluent defines (``name``, ``doc``, ``kind`` (default TRANSFORM), ``mode`` (domain and encoding
  rules: default WRITEREAD), ``type``, ``tags``, ``params``, ``expr``, ``onSuccess``, ``onFailure``,
  ``disabled``) and validated by Confluent's rules: unique names of ASCII letters, digits, ``_`` and ``-``
  (Confluent also takes non-ASCII letters and digits), a type, migration rules UPGRADE/DOWNGRADE/UPDOWN,
  domain and encoding rules WRITE/READ/WRITEREAD, two actions only for the two-way modes; enum values
  exactly as Confluent spells them ("write" is not WRITE).

Nothing is dropped: an unknown field or a value of the wrong type is refused (400 for metadata, 42210 for
rule sets) with the path to it. :meth:`Metadata.canonical` and :meth:`RuleSet.canonical` give the form
that is stored, returned and hashed into a version's identity (sorted, defaults filled, empty parts left
out).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from registry.service import errors
from registry.service.refusals import MISSING, Refusal, shown

RuleKind = Literal["TRANSFORM", "CONDITION"]
MigrationMode = Literal["UPGRADE", "DOWNGRADE", "UPDOWN"]
DomainMode = Literal["WRITE", "READ", "WRITEREAD"]
ExecutionEnvironment = Literal["ALL", "CLIENT", "GATEWAY", "SERVER", "NONE"]
RULE_KINDS: tuple[str, ...] = get_args(RuleKind)
MIGRATION_MODES: tuple[str, ...] = get_args(MigrationMode)
DOMAIN_MODES: tuple[str, ...] = get_args(DomainMode)
EXECUTION_ENVIRONMENTS: tuple[str, ...] = get_args(ExecutionEnvironment)
TWO_WAY_MODES = ("UPDOWN", "WRITEREAD")
ALL_MODES: tuple[str, ...] = (*MIGRATION_MODES, *DOMAIN_MODES)
RULE_NAME_MAX = 256
RULE_NAME_START = "[A-Za-z_]"
#: Confluent's rule names, in ASCII.
RULE_NAME = rf"^{RULE_NAME_START}[A-Za-z0-9_-]{{0,{RULE_NAME_MAX - 1}}}$"


def _sorted_set(values: list[str] | None) -> list[str] | None:
    """Confluent keeps tags and sensitive names in sorted sets; an empty list is left out."""
    return sorted(set(values)) if values else None


def _sorted_map(values: dict[str, Any] | None) -> dict[str, Any] | None:
    return dict(sorted(values.items())) if values else None


Strings = Annotated[list[str] | None, AfterValidator(_sorted_set)]
StringMap = Annotated[dict[str, str] | None, AfterValidator(_sorted_map)]


def _sorted_tags(tags: dict[str, list[str]] | None) -> dict[str, list[str]] | None:
    return {path: sorted(set(names)) for path, names in sorted(tags.items())} if tags else None


class ContractPart(BaseModel):
    """Strict JSON (no ``"true"`` for true), fields under their JSON names, nothing unknown."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid", alias_generator=to_camel)
    #: How a refused value answers (set by the parts a body holds: metadata, rule sets).
    refusal: ClassVar[Refusal] = Refusal()

    def canonical(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True)


class Metadata(ContractPart):
    """A version's metadata: tags per field path, properties, and the names of sensitive fields."""

    refusal: ClassVar[Refusal] = Refusal(errors.BadRequest, prefix="Invalid metadata: ")

    tags: Annotated[
        dict[str, list[str]] | None,
        AfterValidator(_sorted_tags),
        Field(description="an object of tag lists"),
    ] = None
    properties: StringMap = None
    sensitive: Strings = None


def _name_refused(sent: Any, rule: str) -> str:
    """Why a rule's name is refused, in the words Confluent's rules are known by."""
    if not isinstance(sent, str) or not sent:
        return f"{rule} needs a non-empty string 'name'"
    if len(sent) > RULE_NAME_MAX:
        return f"{rule}: the name is longer than {RULE_NAME_MAX} characters"
    if not re.fullmatch(RULE_NAME_START, sent[0]):
        return f"{rule}: the name {sent!r} must start with a letter or '_'"
    return f"{rule}: the name {sent!r} may hold only letters, digits, '_' and '-'"


def _mode_refused(allowed: tuple[str, ...]) -> Refusal:
    """A phase's modes: a mode of another phase is not allowed here; any other value is no mode."""

    def says(sent: Any, rule: str) -> str | None:
        if sent is MISSING or sent is None:
            return None
        if sent in ALL_MODES:
            return f"{rule}: mode {sent} is not allowed here (use {', '.join(allowed)})"
        return f"{rule}.mode must be one of {', '.join(ALL_MODES)}, not {shown(sent)}"

    return Refusal(says=says)


class Rule(ContractPart):
    """One rule, its fields in Confluent's order; paths into it show its name."""

    model_config = ConfigDict(title="rule")
    named_by: ClassVar[str] = "name"

    name: Annotated[
        str,
        Field(
            max_length=RULE_NAME_MAX,
            pattern=RULE_NAME,
            description=f"a name of ASCII letters, digits, '_' and '-' that starts with a letter or '_' "
            f"(at most {RULE_NAME_MAX} characters)",
        ),
        Refusal(says=_name_refused),
    ]
    doc: str | None = None
    kind: Annotated[RuleKind | None, AfterValidator(lambda kind: kind or "TRANSFORM")] = "TRANSFORM"
    mode: str | None = None  # each phase's rules declare theirs
    type: Annotated[
        str,
        Field(min_length=1, description="a non-empty string naming the rule's executor (CEL, JSONATA, ...)"),
        Refusal(says=lambda sent, rule: f"{rule} needs a string 'type' (CEL, JSONATA, ENCRYPT, ...)"),
    ]
    tags: Strings = None
    params: StringMap = None
    expr: str | None = None
    on_success: str | None = None
    on_failure: str | None = None
    disabled: bool = False

    @model_validator(mode="after")
    def _two_actions_need_a_two_way_mode(self) -> Rule:
        for field, actions in (("onSuccess", self.on_success), ("onFailure", self.on_failure)):
            if "," in (actions or "") and self.mode not in TWO_WAY_MODES:
                says = f"two actions in {field} need mode WRITEREAD or UPDOWN, not {self.mode}"
                raise PydanticCustomError("refused", says)
        return self


class MigrationRule(Rule):
    """A rule run when a reader's and a writer's versions differ (mode UPGRADE, DOWNGRADE or UPDOWN)."""

    mode: Annotated[MigrationMode, _mode_refused(MIGRATION_MODES)]  # type: ignore[assignment]


class DomainRule(Rule):
    """A rule run on each message (domain rules) or on its encoded bytes (encoding rules)."""

    mode: Annotated[  # type: ignore[assignment]
        DomainMode | None, AfterValidator(lambda mode: mode or "WRITEREAD"), _mode_refused(DOMAIN_MODES)
    ] = "WRITEREAD"


class RuleSet(ContractPart):
    """A version's rules by phase, and where they run."""

    refusal: ClassVar[Refusal] = Refusal(errors.InvalidRuleSet, prefix="Invalid rule set: ")

    migration_rules: list[MigrationRule] | None = None
    domain_rules: list[DomainRule] | None = None
    encoding_rules: list[DomainRule] | None = None
    enable_at: ExecutionEnvironment | None = None

    @model_validator(mode="after")
    def _unique_names(self) -> RuleSet:
        names: set[str] = set()
        for rule in self.rules():
            if rule.name in names:
                raise PydanticCustomError("refused", f"two rules are named {rule.name!r}")
            names.add(rule.name)
        return self

    def rules(self) -> list[Rule]:
        return [*(self.migration_rules or ()), *(self.domain_rules or ()), *(self.encoding_rules or ())]

    def canonical(self) -> dict[str, Any]:
        """Phases without rules are left out."""
        return {key: value for key, value in super().canonical().items() if value != []}


RULE_PHASES: tuple[str, ...] = tuple(
    RuleSet.model_fields[name].alias or name for name in ("migration_rules", "domain_rules", "encoding_rules")
)
MetadataValue = Annotated[Metadata | None, Metadata.refusal]
RuleSetValue = Annotated[RuleSet | None, RuleSet.refusal]
