"""Contract config: what a PUT body sets, which scope a subject uses, and what a registration stores."""

from __future__ import annotations

import pytest

from registry.service import errors
from registry.service.bodies import config_update
from registry.service.contract_config import ContractConfig, group_value, in_scope, registration_contract

OWNER_A = {"properties": {"owner": "a"}}
RULES = {
    "domainRules": [{"name": "r", "type": "CEL", "kind": "CONDITION", "mode": "WRITE", "disabled": False}]
}


def test_a_body_sets_what_it_gives_and_null_clears() -> None:
    current = ContractConfig(compatibility_group="major", default_metadata={"properties": {"x": "1"}})
    update = config_update({"overrideMetadata": OWNER_A, "compatibilityGroup": None})
    assert update.compatibility is None
    assert update.apply(current) == ContractConfig(
        default_metadata={"properties": {"x": "1"}}, override_metadata=OWNER_A
    )
    level_only = config_update({"compatibilityLevel": "full"})
    assert (level_only.compatibility, level_only.apply(current)) == ("FULL", current)
    assert config_update({"defaultRuleSet": RULES}).contract == {"default_rule_set": RULES}
    assert config_update({"defaultMetadata": {}}).contract == {"default_metadata": None}, "empty clears"


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ({}, 42203, "Invalid compatibility level"),
        ({"compatibility": "SIDEWAYS"}, 42203, "Invalid compatibility level"),
        ({"compatibility": "FULL", "compatibilityLevel": "AAA"}, 42203, "Invalid compatibility level 'AAA'"),
        ({"compatibility": "FULL", "compatibilityLevel": "NONE"}, 400, "name the same setting; give one"),
        ({"normalize": True}, 400, "Config field 'normalize' is not supported"),
        ({"alias": "other"}, 400, "Config field 'alias' is not supported"),
        ({"colour": "red"}, 400, "Unknown config field 'colour'"),
        ({"compatibilityGroup": ""}, 400, "'compatibilityGroup' must be a metadata property name"),
        ({"compatibilityGroup": 3}, 400, "'compatibilityGroup' must be a metadata property name"),
        ({"defaultMetadata": {"properties": {"a": 1}}}, 400, "defaultMetadata.properties.a must be a string"),
        ({"overrideRuleSet": {"domainRules": [{"name": "x"}]}}, 42210, "overrideRuleSet.domainRules[0]"),
    ],
)
def test_bad_config_bodies_are_refused(body: dict, code: int, message: str) -> None:
    with pytest.raises(errors.RegistryError) as refused:
        config_update(body)
    assert refused.value.error_code == code and message in refused.value.message


def test_a_subject_with_its_own_config_uses_its_contract_settings_and_the_global_group() -> None:
    global_config = ContractConfig(compatibility_group="major", override_metadata=OWNER_A)
    own = ContractConfig(default_metadata={"properties": {"tier": "1"}})
    assert in_scope(global_config, None) == global_config
    assert in_scope(global_config, own) == ContractConfig(
        compatibility_group="major", default_metadata={"properties": {"tier": "1"}}
    ), "as Confluent: the global override does not reach a subject that has a config of its own"
    assert in_scope(global_config, ContractConfig(compatibility_group="v")).compatibility_group == "v"


def test_registration_takes_the_request_else_the_previous_version_between_default_and_override() -> None:
    config = ContractConfig(
        default_metadata={"properties": {"owner": "default", "tier": "1"}},
        override_metadata={"properties": {"tier": "gold"}},
        default_rule_set=RULES,
    )
    given = {"properties": {"owner": "me", "tier": "2"}}
    previous = ({"properties": {"owner": "before"}}, None)
    assert registration_contract(config, given, None, previous) == (
        {"properties": {"owner": "me", "tier": "gold"}},
        RULES,
    )
    assert registration_contract(config, None, None, previous)[0] == {
        "properties": {"owner": "before", "tier": "gold"}
    }
    assert registration_contract(ContractConfig(), {}, {}, previous) == (None, None), "explicitly empty"
    assert registration_contract(ContractConfig(), None, None, None) == (None, None)


def test_group_value_is_the_property_of_the_configured_name() -> None:
    assert group_value({"properties": {"major": "2"}}, "major") == "2"
    assert group_value({"properties": {"major": "2"}}, None) is None
    assert group_value(None, "major") is None
