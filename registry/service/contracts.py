"""Data contracts: a schema version's ``metadata`` and ``ruleSet``, as Confluent's clients send them.

Pure functions over JSON values, no I/O. Each part is validated field by field and brought to one
canonical form, the form that is stored, returned and hashed into the version's identity:

* metadata ``{"tags": {path: [tag]}, "properties": {key: value}, "sensitive": [name]}``: tags, sensitive
  names and property keys sorted (Confluent keeps them in sorted sets and maps), empty parts left out;
* a rule set ``{"migrationRules", "domainRules", "encodingRules", "enableAt"}``: rules in the order given,
  each with every field Confluent defines (``name``, ``doc``, ``kind`` (default TRANSFORM), ``mode``
  (default WRITEREAD), ``type``, ``tags``, ``params``, ``expr``, ``onSuccess``, ``onFailure``,
  ``disabled``) and validated by Confluent's rules (unique names of ASCII letters, digits, ``_`` and ``-``,
  a type, migration rules UPGRADE/DOWNGRADE/UPDOWN, domain and encoding rules WRITE/READ/WRITEREAD, two
  actions only for the two-way modes; enum values exactly as Confluent spells them).

``None`` means "not given" (a registration then carries the previous version's forward); an empty dict
means "given, and empty". Nothing is dropped: an unknown field or a value of the wrong type is refused
(400 for metadata, 42210 for rule sets) with the path to it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from registry.service import errors

Metadata = dict[str, Any]
RuleSet = dict[str, Any]

METADATA_FIELDS = ("tags", "properties", "sensitive")
RULE_PHASES = ("migrationRules", "domainRules", "encodingRules")
RULE_KINDS = ("TRANSFORM", "CONDITION")
MIGRATION_MODES = ("UPGRADE", "DOWNGRADE", "UPDOWN")
DOMAIN_MODES = ("WRITE", "READ", "WRITEREAD")
TWO_WAY_MODES = ("UPDOWN", "WRITEREAD")
EXECUTION_ENVIRONMENTS = ("ALL", "CLIENT", "GATEWAY", "SERVER", "NONE")
RULE_NAME_MAX = 256
#: Confluent's rule names, in ASCII (Confluent also takes non-ASCII letters and digits).
RULE_NAME_START = re.compile(r"[A-Za-z_]")
RULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_RULE_FIELDS = (
    "name", "doc", "kind", "mode", "type", "tags", "params", "expr", "onSuccess", "onFailure", "disabled",
)  # fmt: skip


# -- metadata -------------------------------------------------------------------------------------
Refusal = Callable[[str], errors.RegistryError]


def _metadata_error(message: str) -> errors.RegistryError:
    return errors.BadRequest(f"Invalid metadata: {message}.")


def _rule_error(message: str) -> errors.RegistryError:
    return errors.InvalidRuleSet(f"Invalid rule set: {message}.")


def _strings(raw: Any, where: str, refuse: Refusal) -> list[str]:
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise refuse(f"{where} must be a list of strings")
    return sorted(set(raw))


def _string_map(raw: Any, where: str, refuse: Refusal) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise refuse(f"{where} must be an object of strings")
    for key, value in raw.items():
        if not isinstance(value, str):
            raise refuse(f"{where}.{key} must be a string, not {json.dumps(value)}")
    return dict(sorted(raw.items()))


def _unknown(raw: Mapping[str, Any], known: Iterable[str], where: str) -> str | None:
    extra = sorted(set(raw) - set(known))
    return f"{where} has unknown field {extra[0]!r} (known: {', '.join(known)})" if extra else None


def parse_metadata(raw: Any, where: str = "metadata") -> Metadata | None:
    """Validated canonical metadata; ``None`` for a missing or null value."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise _metadata_error(f"{where} must be an object")
    unknown = _unknown(raw, METADATA_FIELDS, where)
    if unknown:
        raise _metadata_error(unknown)
    out: Metadata = {}
    _put(out, raw, "tags", lambda tags: _tags(tags, f"{where}.tags"))
    _put(out, raw, "properties", lambda value: _string_map(value, f"{where}.properties", _metadata_error))
    _put(out, raw, "sensitive", lambda value: _strings(value, f"{where}.sensitive", _metadata_error))
    return out


def _tags(raw: Any, where: str) -> dict[str, list[str]]:
    if not isinstance(raw, dict):
        raise _metadata_error(f"{where} must be an object of tag lists")
    return {path: _strings(tags, f"{where}.{path}", _metadata_error) for path, tags in sorted(raw.items())}


def _put(out: dict[str, Any], raw: dict[str, Any], key: str, parse: Callable[[Any], Any]) -> None:
    """``out[key]`` is ``raw[key]`` parsed, when given (not null) and not empty: empty parts are left out."""
    if raw.get(key) is not None:
        value = parse(raw[key])
        if value:
            out[key] = value


# -- rule sets ------------------------------------------------------------------------------------
def _rule_name(name: Any, where: str) -> str:
    if not isinstance(name, str) or not name:
        raise _rule_error(f"{where} needs a non-empty string 'name'")
    if len(name) > RULE_NAME_MAX:
        raise _rule_error(f"{where}: the name is longer than {RULE_NAME_MAX} characters")
    if not RULE_NAME_START.fullmatch(name[0]):
        raise _rule_error(f"{where}: the name {name!r} must start with a letter or '_'")
    if not RULE_NAME.fullmatch(name):
        raise _rule_error(f"{where}: the name {name!r} may hold only letters, digits, '_' and '-'")
    return name


def _choice(raw: Any, allowed: tuple[str, ...], default: str, where: str) -> str:
    if raw is None:
        return default
    if raw not in allowed:  # exact, as Confluent's enums: "write" is not WRITE
        raise _rule_error(f"{where} must be one of {', '.join(allowed)}, not {json.dumps(raw)}")
    return str(raw)


def parse_rule(raw: Any, modes: tuple[str, ...], where: str) -> dict[str, Any]:
    """One rule with Confluent's defaults filled in, its fields in Confluent's order."""
    if not isinstance(raw, dict):
        raise _rule_error(f"{where} must be an object")
    unknown = _unknown(raw, _RULE_FIELDS, where)
    if unknown:
        raise _rule_error(unknown)
    name = _rule_name(raw.get("name"), where)
    where = f"{where} ({name})"
    rule: dict[str, Any] = {"name": name}
    _optional_text(raw, "doc", where, rule)
    rule["kind"] = _choice(raw.get("kind"), RULE_KINDS, "TRANSFORM", f"{where}.kind")
    mode = _choice(raw.get("mode"), (*MIGRATION_MODES, *DOMAIN_MODES), "WRITEREAD", f"{where}.mode")
    if mode not in modes:
        raise _rule_error(f"{where}: mode {mode} is not allowed here (use {', '.join(modes)})")
    rule["mode"] = mode
    if not isinstance(raw.get("type"), str) or not raw["type"]:
        raise _rule_error(f"{where} needs a string 'type' (CEL, JSONATA, ENCRYPT, ...)")
    rule["type"] = raw["type"]
    _put(rule, raw, "tags", lambda tags: _strings(tags, f"{where}.tags", _rule_error))
    _put(rule, raw, "params", lambda params: _string_map(params, f"{where}.params", _rule_error))
    for key in ("expr", "onSuccess", "onFailure"):
        _optional_text(raw, key, where, rule)
    for key in ("onSuccess", "onFailure"):
        if "," in rule.get(key, "") and mode not in TWO_WAY_MODES:
            raise _rule_error(f"{where}: two actions in {key} need mode WRITEREAD or UPDOWN, not {mode}")
    disabled = raw.get("disabled", False)
    if not isinstance(disabled, bool):
        raise _rule_error(f"{where}.disabled must be true or false")
    rule["disabled"] = disabled
    return rule


def _optional_text(raw: dict[str, Any], key: str, where: str, rule: dict[str, Any]) -> None:
    value = raw.get(key)
    if value is None:
        return
    if not isinstance(value, str):
        raise _rule_error(f"{where}.{key} must be a string")
    rule[key] = value


def parse_rule_set(raw: Any, where: str = "ruleSet") -> RuleSet | None:
    """Validated canonical rule set; ``None`` for a missing or null value."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise _rule_error(f"{where} must be an object")
    unknown = _unknown(raw, (*RULE_PHASES, "enableAt"), where)
    if unknown:
        raise _rule_error(unknown)
    out: RuleSet = {}
    names: set[str] = set()
    for phase in RULE_PHASES:
        rules = raw.get(phase)
        if rules is None:
            continue
        if not isinstance(rules, list):
            raise _rule_error(f"{where}.{phase} must be a list of rules")
        modes = MIGRATION_MODES if phase == "migrationRules" else DOMAIN_MODES
        parsed = [parse_rule(rule, modes, f"{where}.{phase}[{i}]") for i, rule in enumerate(rules)]
        for rule in parsed:
            if rule["name"] in names:
                raise _rule_error(f"{where}: two rules are named {rule['name']!r}")
            names.add(rule["name"])
        if parsed:
            out[phase] = parsed
    if raw.get("enableAt") is not None:
        out["enableAt"] = _choice(raw["enableAt"], EXECUTION_ENVIRONMENTS, "", f"{where}.enableAt")
    return out


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
