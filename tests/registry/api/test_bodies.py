"""The API's bodies are declared once (``registry.service.bodies``): the OpenAPI document's component
schemas are the models' JSON Schemas, every refused field answers its Confluent code with a message that
names it, and what the registry answers is what the answer models declare."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import fields
from typing import Any, Literal

import pytest
from flask.testing import FlaskClient
from pydantic import BaseModel

from registry.api import openapi
from registry.config import RegistryConfig
from registry.service import bodies, contract_bodies, errors
from registry.service.contract_config import CONTRACT_FIELDS, ContractConfig
from registry.service.contracts import parse_metadata, parse_rule_set
from tests.registry.api.helpers import body, record

V1 = record(id="long")


def document(client: FlaskClient) -> dict[str, Any]:
    return json.loads(client.get("/openapi.json").get_data(as_text=True))


def test_the_documents_bodies_are_the_models_json_schemas(client: FlaskClient) -> None:
    doc = document(client)
    assert doc["openapi"].startswith("3.1")
    schemas = doc["components"]["schemas"]
    for model in (*bodies.REQUESTS, *bodies.ANSWERS):
        assert model.__name__ in schemas
    declared = bodies.SchemaBody.model_json_schema(ref_template=openapi.COMPONENTS)
    served = schemas["SchemaBody"]
    assert list(served["properties"]) == list(declared["properties"])
    assert served["required"] == declared["required"] == ["schema"]
    assert served["properties"]["references"] == {
        "anyOf": [
            {"type": "array", "items": {"$ref": "#/components/schemas/Reference"}},
            {"type": "null"},
        ],
        "default": None,
    }
    register = doc["paths"]["/subjects/{subject}/versions"]["post"]
    assert register["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/SchemaBody"
    }


def test_a_field_declared_on_a_model_appears_in_the_document(monkeypatch: pytest.MonkeyPatch) -> None:
    class SchemaBody(bodies.SchemaBody):
        format: Literal["serialized"] | None = None

    monkeypatch.setattr(bodies, "REQUESTS", (SchemaBody, bodies.ConfigBody, bodies.ModeBody))
    schemas = openapi.components(RegistryConfig())
    assert schemas["SchemaBody"]["properties"]["format"] == {
        "anyOf": [{"const": "serialized", "type": "string"}, {"type": "null"}],
        "default": None,
    }


def test_limits_that_are_settings_are_written_in_from_the_config() -> None:
    for chars in (100, 4096):
        schemas = openapi.components(RegistryConfig(max_schema_chars=chars))
        assert schemas["SchemaBody"]["properties"]["schema"]["maxLength"] == chars
    subject = openapi.subject(RegistryConfig(max_subject_length=40))
    assert subject["schema"]["maxLength"] == 40


def test_enums_come_from_their_declarations() -> None:
    schemas = openapi.components(RegistryConfig())
    assert schemas["CompatibilityLevel"]["enum"] == list(bodies.COMPATIBILITY_LEVELS)
    assert schemas["ModeBody"]["properties"]["mode"]["enum"] == list(bodies.MODES)
    level = schemas["ConfigBody"]["properties"]["compatibility"]
    assert level == {"$ref": "#/components/schemas/CompatibilityLevel"}, "absent, but never null"
    assert schemas["ConfigBody"]["additionalProperties"] is False
    for body_model in ("SchemaBody", "Schema"):
        types = schemas[body_model]["properties"]["schemaType"]["anyOf"][0]["enum"]
        assert types == ["AVRO", "JSON", "PROTOBUF"], body_model


def test_every_get_of_a_schema_takes_a_format() -> None:
    paths = openapi.paths(RegistryConfig())
    takes = {
        (path, method)
        for path, operations in paths.items()
        for method, operation in operations.items()
        if any(parameter["name"] == "format" for parameter in operation["parameters"])
    }
    versions = "/subjects/{subject}/versions/{version}"
    assert takes == {
        ("/schemas/ids/{id}", "get"),
        ("/schemas/ids/{id}/schema", "get"),
        ("/schemas/guids/{guid}", "get"),
        (versions, "get"),
        (versions + "/schema", "get"),
        ("/subjects/{subject}", "post"),
        ("/subjects/{subject}/metadata", "get"),
    }


def test_contract_settings_have_the_names_of_the_contract_config() -> None:
    assert set(bodies.ContractSettings.model_fields) == {f.name for f in fields(ContractConfig)}
    aliases = {field.alias for field in bodies.ContractSettings.model_fields.values()}
    assert aliases == set(CONTRACT_FIELDS)


BIG = json.dumps({"type": "enum", "name": "E", "symbols": [f"S{i}" for i in range(3000)]})
RULE = {"name": "r", "type": "CEL"}

#: (body fields beside a valid schema, HTTP status, Confluent code, text of the message)
SCHEMA_CASES = [
    ({"schema": 42}, 422, 42201, "'schema' must be a non-blank string holding the schema's text, not 42"),
    ({"schema": "  "}, 422, 42201, "'schema' must be a non-blank string"),
    ({"schema": None}, 422, 42201, "'schema' must be a non-blank string"),
    ({"schema": BIG}, 422, 42209, "the limit is 16384"),
    ({"schema": "[" * 40 + "]" * 40}, 422, 42201, "Schema is nested deeper than 32 levels"),
    ({"schemaType": "XML"}, 422, 42201, "Schema type XML is not supported: this registry stores AVRO, JSON"),
    ({"schemaType": 1}, 422, 42201, "Schema type 1 is not supported"),
    ({"references": ""}, 422, 42201, "'references' must be a list of references."),
    ({"references": [{"name": 1}]}, 422, 42201, "'references[0].name' must be a string, not 1"),
    ({"references": [{"name": "a", "version": 1}]}, 422, 42201, "'references[0].subject' is missing"),
    (
        {"references": [{"name": "a", "subject": "s", "version": 0}]},
        422,
        42201,
        "'references[0].version' must be an integer between 1 and 2147483647, not 0",
    ),
    ({"id": "7"}, 400, 400, "'id' must be an integer between 1 and 2147483647, not \"7\""),
    ({"id": True}, 400, 400, "'id' must be an integer"),
    ({"version": 2**31}, 400, 400, "'version' must be an integer between 1 and 2147483647"),
    ({"metadata": {"properties": {"v": 2}}}, 400, 400, "metadata.properties.v must be a string, not 2"),
    ({"metadata": {"owner": "x"}}, 400, 400, "metadata has unknown field 'owner'"),
    ({"ruleSet": {"domainRules": [{"name": "r"}]}}, 422, 42210, "domainRules[0] (r) needs a string 'type'"),
    ({"ruleSet": {"domainRules": [{**RULE, "kind": "X"}]}}, 422, 42210, "domainRules[0] (r).kind must"),
    ({"schemaTagsToAdd": [{"entityPath": "x"}]}, 400, 400, "'schemaTagsToAdd' is not supported"),
    ({"rulesToMerge": {"domainRules": []}}, 400, 400, "'rulesToMerge' is not supported"),
    ({"rulesToRemove": 0}, 400, 400, "'rulesToRemove' is not supported: this registry has no rule removal"),
]


@pytest.mark.parametrize(("fields_sent", "status", "code", "message"), SCHEMA_CASES)
def test_each_refused_schema_body_field_answers_its_code_naming_the_field(
    client: FlaskClient, fields_sent: dict[str, Any], status: int, code: int, message: str
) -> None:
    for path in ("/subjects/s/versions", "/subjects/s", "/compatibility/subjects/s/versions"):
        answer = client.post(path, json={**body(V1), **fields_sent})
        assert (answer.status_code, answer.get_json()["error_code"]) == (status, code), answer.get_json()
        assert message in answer.get_json()["message"]


SETTING_CASES = [
    ("/config", {}, 42203, "Invalid compatibility level None. Valid values are NONE, BACKWARD"),
    ("/config", {"compatibility": "SIDEWAYS"}, 42203, "Invalid compatibility level 'SIDEWAYS'"),
    ("/config", {"compatibilityLevel": None}, 42203, "Invalid compatibility level None"),
    ("/config", {"compatibility": 3}, 42203, "Invalid compatibility level 3"),
    ("/config", {"compatibility": "FULL", "compatibilityLevel": "NONE"}, 400, "name the same setting"),
    ("/config", {"normalize": True}, 400, "Config field 'normalize' is not supported by this registry"),
    ("/config", {"colour": "red"}, 400, "Unknown config field 'colour' (known: compatibilityGroup"),
    ("/config", {"compatibilityGroup": ""}, 400, "'compatibilityGroup' must be a metadata property name"),
    ("/config", {"defaultMetadata": []}, 400, "Invalid metadata: defaultMetadata must be an object."),
    ("/config", {"overrideRuleSet": {"rules": []}}, 42210, "overrideRuleSet has unknown field 'rules'"),
    ("/mode", {}, 42204, "Invalid mode None. Valid values are READWRITE, READONLY, IMPORT."),
    ("/mode", {"mode": "WRITEONLY"}, 42204, "Invalid mode 'WRITEONLY'"),
    ("/mode", {"mode": ["READONLY"]}, 42204, "Invalid mode ['READONLY']"),
]


@pytest.mark.parametrize(("path", "sent", "code", "message"), SETTING_CASES)
def test_each_refused_setting_answers_its_code_naming_the_field(
    client: FlaskClient, path: str, sent: dict[str, Any], code: int, message: str
) -> None:
    for scoped in (path, f"{path}/s-value"):
        answer = client.put(scoped, json=sent)
        assert answer.get_json()["error_code"] == code, answer.get_json()
        assert answer.status_code == int(str(code)[:3])
        assert message in answer.get_json()["message"]


def conforms(model: type[BaseModel], answer: Any) -> None:
    """``answer`` is valid for ``model`` and has no field the model does not declare."""
    model.model_validate_json(json.dumps(answer))
    declared = {field.alias or name for name, field in model.model_fields.items()}
    assert set(answer) <= declared, set(answer) - declared


def test_what_the_registry_answers_is_what_the_answer_models_declare(client: FlaskClient) -> None:
    contract = {"metadata": {"properties": {"owner": "a"}}, "ruleSet": {"domainRules": [RULE]}}
    registered = client.post("/subjects/a-value/versions", json=body(V1, **contract)).get_json()
    conforms(bodies.Registered, registered)
    conforms(bodies.SubjectVersionSchema, client.get("/subjects/a-value/versions/1").get_json())
    conforms(bodies.Schema, client.get(f"/schemas/ids/{registered['id']}").get_json())
    conforms(bodies.SubjectVersion, client.get(f"/schemas/ids/{registered['id']}/versions").get_json()[0])
    conforms(bodies.ContextId, client.get(f"/schemas/guids/{registered['guid']}/ids").get_json()[0])
    check = client.post("/compatibility/subjects/a-value/versions?verbose=true", json=body(V1))
    conforms(bodies.Compatibility, check.get_json())
    settings = {"compatibility": "full", "compatibilityGroup": "owner", "defaultMetadata": {"tags": {}}}
    conforms(bodies.ConfigSet, client.put("/config/a-value", json=settings).get_json())
    conforms(bodies.Config, client.get("/config/a-value").get_json())
    conforms(bodies.ModeBody, client.put("/mode", json={"mode": "readonly"}).get_json())
    conforms(bodies.Error, client.get("/subjects/nobody/versions").get_json())


CONTRACT_MODELS = (contract_bodies.Metadata, contract_bodies.RuleSet)
MIGRATION_RULE = {**RULE, "mode": "UPGRADE"}
#: Each model a request body holds, and how a body with ``{**valid, field: value}`` in its place is sent.
PLACES: list[tuple[type[BaseModel], dict[str, Any], Callable[[dict[str, Any]], object]]] = [
    (bodies.SchemaBody, {"schema": '"string"'}, lambda sent: bodies.schema_request(sent, RegistryConfig())),
    (bodies.ConfigBody, {"compatibility": "FULL"}, bodies.config_update),
    (bodies.ModeBody, {"mode": "READONLY"}, bodies.mode),
    (
        bodies.Reference,
        {"name": "n", "subject": "s", "version": 1},
        lambda sent: bodies.references([sent]),
    ),
    (contract_bodies.Metadata, {}, parse_metadata),
    (contract_bodies.RuleSet, {}, parse_rule_set),
    (contract_bodies.DomainRule, RULE, lambda sent: parse_rule_set({"encodingRules": [sent]})),
    (contract_bodies.MigrationRule, MIGRATION_RULE, lambda sent: parse_rule_set({"migrationRules": [sent]})),
]
WRONG: list[Any] = [12345, "x", ["x"], {"x": 1}, [{"x": 1}], None]


def class_names() -> set[str]:
    """Every Python class a request body is declared with (models and enums)."""
    names: set[str] = set()
    for model in (*bodies.REQUESTS, *CONTRACT_MODELS):
        names |= {model.__name__, *model.model_json_schema().get("$defs", {})}
    return names


def test_every_place_a_request_holds_a_model_is_checked_here() -> None:
    enums = {"CompatibilityLevel"}
    assert class_names() - enums == {model.__name__ for model, _, _ in PLACES}


@pytest.mark.parametrize(("model", "valid", "send"), PLACES, ids=lambda p: getattr(p, "__name__", ""))
def test_no_refusal_names_a_python_class(
    model: type[BaseModel], valid: dict[str, Any], send: Callable[[dict[str, Any]], object]
) -> None:
    send(valid)
    names = re.compile(r"\b(" + "|".join(sorted(class_names())) + r")\b")
    said = []
    for name, field in model.model_fields.items():
        for wrong in WRONG:
            try:
                send({**valid, field.alias or name: wrong})
            except errors.RegistryError as refused:
                said.append(refused.message)
    assert said, "a wrong value is refused"
    assert [message for message in said if names.search(message)] == []
