"""The OpenAPI schemas of data contracts (metadata, rule sets, contract config), exactly as the server
validates them (``registry.service.contracts``), so that what the document calls invalid is refused."""

from __future__ import annotations

from typing import Any

from registry.service.bodies import MAX_GROUP_LENGTH
from registry.service.contract_bodies import (
    DOMAIN_MODES,
    EXECUTION_ENVIRONMENTS,
    MIGRATION_MODES,
    RULE_KINDS,
    RULE_NAME_MAX,
)

Obj = dict[str, Any]


def _ref(name: str) -> Obj:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(schema: Obj) -> Obj:
    if "$ref" in schema:  # OpenAPI 3.0 ignores siblings of $ref
        return {"allOf": [schema], "nullable": True}
    if "enum" in schema:  # a nullable enum must list null among its values to allow it
        return {**schema, "enum": [*schema["enum"], None], "nullable": True}
    return {**schema, "nullable": True}


def nullable_ref(name: str) -> Obj:
    return _nullable(_ref(name))


STRINGS: Obj = {"type": "array", "items": {"type": "string"}}
STRING_MAP: Obj = {"type": "object", "additionalProperties": {"type": "string"}}


def _rule(modes: tuple[str, ...]) -> Obj:
    text = _nullable({"type": "string"})
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["name", "type"],
        "properties": {
            "name": {"type": "string", "pattern": rf"^[A-Za-z_][A-Za-z0-9_-]{{0,{RULE_NAME_MAX - 1}}}$"},
            "doc": text,
            "kind": _nullable({"type": "string", "enum": list(RULE_KINDS)}),
            "mode": _nullable({"type": "string", "enum": list(modes)}),
            "type": {"type": "string", "minLength": 1},
            "tags": _nullable(STRINGS),
            "params": _nullable(STRING_MAP),
            "expr": text,
            "onSuccess": text,
            "onFailure": text,
            "disabled": {"type": "boolean"},
        },
    }


def contract_components() -> Obj:
    """Metadata, MigrationRule, DomainRule, RuleSet, ContractConfig and ConfigRequest."""
    return {
        "Metadata": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "tags": _nullable({"type": "object", "additionalProperties": STRINGS}),
                "properties": _nullable(STRING_MAP),
                "sensitive": _nullable(STRINGS),
            },
        },
        "MigrationRule": _rule(MIGRATION_MODES),
        "DomainRule": _rule(DOMAIN_MODES),
        "RuleSet": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "migrationRules": _nullable({"type": "array", "items": _ref("MigrationRule")}),
                "domainRules": _nullable({"type": "array", "items": _ref("DomainRule")}),
                "encodingRules": _nullable({"type": "array", "items": _ref("DomainRule")}),
                "enableAt": _nullable({"type": "string", "enum": list(EXECUTION_ENVIRONMENTS)}),
            },
        },
    }


def config_fields() -> Obj:
    """The contract settings of ``/config`` bodies and answers."""
    return {
        "compatibilityGroup": _nullable(
            {"type": "string", "minLength": 1, "maxLength": MAX_GROUP_LENGTH, "pattern": r"\S"}
        ),
        "defaultMetadata": nullable_ref("Metadata"),
        "overrideMetadata": nullable_ref("Metadata"),
        "defaultRuleSet": nullable_ref("RuleSet"),
        "overrideRuleSet": nullable_ref("RuleSet"),
    }
