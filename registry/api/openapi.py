"""The OpenAPI 3.0 document of the API, built from small helpers so each operation reads as one line.

It is accurate enough to drive schemathesis: every status an operation can answer is listed with its body
shape, and parameters carry the ranges the server enforces, so a generated request that the document calls
valid is one the server accepts, and everything else is a documented 4xx.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from registry.api.openapi_contracts import config_fields, contract_components, nullable_ref
from registry.config import RegistryConfig
from registry.service.bodies import COMPATIBILITY_LEVELS, MODES
from registry.service.requests import MAX_INT32

JSON_TYPES = (
    "application/vnd.schemaregistry.v1+json",
    "application/vnd.schemaregistry+json",
    "application/json",
)
RESPONSE_TYPE = JSON_TYPES[0]
Obj = dict[str, Any]


def ref(name: str) -> Obj:
    return {"$ref": f"#/components/schemas/{name}"}


def obj(required: list[str], **props: Obj) -> Obj:
    return {"type": "object", "required": required, "properties": props}


def ok(schema: Obj, description: str = "OK") -> Obj:
    return {"description": description, "content": {RESPONSE_TYPE: {"schema": schema}}}


def error(description: str) -> Obj:
    return ok(ref("Error"), description)


ERRORS = {
    "400": error("Malformed request: invalid JSON or UTF-8, too deep, or a bad query parameter"),
    "404": error("Subject (40401), version (40402) or schema (40403) not found; 40408/40409 no setting"),
    "409": error("Incompatible schema (409)"),
    "413": error("Request body larger than the configured limit"),
    "422": error("Invalid schema, version, level, mode, subject, or operation not permitted (422xx)"),
    "500": error("Backend store error (50001)"),
}


def responses(success: Obj, *codes: str) -> Obj:
    out: Obj = {"200": success}
    for code in ("400", "422", "500", *codes):
        out[code] = ERRORS[code]
    return out


def param(name: str, where: str, schema: Obj, required: bool = False) -> Obj:
    return {"name": name, "in": where, "required": required or where == "path", "schema": schema}


def flags(*names: str) -> list[Obj]:
    return [param(name, "query", {"type": "boolean"}) for name in names]


def body(schema: Obj) -> Obj:
    return {"required": True, "content": {t: {"schema": schema} for t in JSON_TYPES}}


def op(summary: str, params: list[Obj], resp: Obj, request_body: Obj | None = None) -> Obj:
    out: Obj = {"summary": summary, "parameters": params, "responses": resp}
    if request_body is not None:
        out["requestBody"] = body(request_body)
    return out


#: Printable text, not blank, no control characters (the server answers 42208 otherwise).
SUBJECT_PATTERN = (
    r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
)
SUBJECT = param(
    "subject", "path", {"type": "string", "minLength": 1, "maxLength": 255, "pattern": SUBJECT_PATTERN}
)
VERSION = param("version", "path", {"type": "string", "pattern": r"^(latest|-1|[1-9][0-9]{0,8})$"})
SCHEMA_ID = param("id", "path", {"type": "integer", "minimum": 1, "maximum": MAX_INT32})
PAGE = [
    param("offset", "query", {"type": "integer", "minimum": 0, "maximum": MAX_INT32}),
    param("limit", "query", {"type": "integer", "minimum": -1, "maximum": MAX_INT32}),
]
PREFIX = param("subjectPrefix", "query", {"type": "string"})
GUID = param("guid", "path", {"type": "string", "format": "uuid"})


def components(cfg: RegistryConfig) -> Obj:
    version_number = {"type": "integer", "minimum": 1, "maximum": MAX_INT32}
    reference = obj(
        ["name", "subject", "version"],
        name={"type": "string"},
        subject={"type": "string"},
        version=version_number,
    )
    schema_fields: Obj = {
        "schema": {"type": "string"},
        "schemaType": {"type": "string", "enum": ["AVRO", None], "nullable": True},
        "references": {"type": "array", "items": ref("Reference"), "nullable": True},
        "metadata": nullable_ref("Metadata"),
        "ruleSet": nullable_ref("RuleSet"),
    }
    stored_fields: Obj = {**schema_fields, "guid": {"type": "string", "format": "uuid"}}
    return {
        "Error": obj(["error_code", "message"], error_code={"type": "integer"}, message={"type": "string"}),
        "Reference": reference,
        "SchemaRequest": {
            "type": "object",
            "required": ["schema"],
            "properties": {
                **schema_fields,
                "schema": {"type": "string", "minLength": 1, "maxLength": cfg.max_schema_chars},
            },
        },
        "Schema": {"type": "object", "required": ["schema", "guid"], "properties": stored_fields},
        "SubjectVersionSchema": {
            "type": "object",
            "required": ["subject", "version", "id", "schema", "guid"],
            "properties": {
                "subject": {"type": "string"},
                "version": version_number,
                "id": version_number,
                **stored_fields,
            },
        },
        "SubjectVersion": obj(["subject", "version"], subject={"type": "string"}, version=version_number),
        "Registered": {
            "type": "object",
            "required": ["id", "version", "guid", "schema"],
            "properties": {"id": version_number, "version": version_number, **stored_fields},
        },
        "ContextId": obj(["context", "id"], context={"type": "string"}, id=version_number),
        **contract_components(),
        "Compatibility": obj(
            ["is_compatible"],
            is_compatible={"type": "boolean"},
            messages={"type": "array", "items": {"type": "string"}},
        ),
        "Level": {"type": "string", "enum": list(COMPATIBILITY_LEVELS)},
        "Mode": {"type": "string", "enum": list(MODES)},
    }


def paths() -> Obj:
    strings = {"type": "array", "items": {"type": "string"}}
    ints = {"type": "array", "items": {"type": "integer"}}
    level_get = ok(obj(["compatibilityLevel"], compatibilityLevel=ref("Level"), **config_fields()))
    level_put = ok(obj([], compatibility=ref("Level"), **config_fields()))
    mode = ok(obj(["mode"], mode=ref("Mode")))
    mode_body = obj(["mode"], mode=ref("Mode"))
    level_body = {
        **obj([], compatibility=ref("Level"), compatibilityLevel=ref("Level"), **config_fields()),
        "additionalProperties": False,
        "minProperties": 1,
    }
    versions = "/subjects/{subject}/versions"
    return {
        "/": {"get": op("Root", [], {"200": ok({"type": "object"})})},
        "/subjects": {
            "get": op(
                "List subjects", [PREFIX, *flags("deleted", "deletedOnly"), *PAGE], responses(ok(strings))
            )
        },
        "/subjects/{subject}": {
            "post": op(
                "Look a schema up in a subject",
                [SUBJECT, *flags("normalize", "deleted")],
                responses(ok(ref("SubjectVersionSchema")), "404", "413"),
                ref("SchemaRequest"),
            ),
            "delete": op("Delete a subject", [SUBJECT, *flags("permanent")], responses(ok(ints), "404")),
        },
        versions: {
            "get": op(
                "List versions",
                [SUBJECT, *flags("deleted", "deletedOnly"), *PAGE],
                responses(ok(ints), "404"),
            ),
            "post": op(
                "Register a schema",
                [SUBJECT, *flags("normalize")],
                responses(ok(ref("Registered")), "404", "409", "413"),
                ref("SchemaRequest"),
            ),
        },
        "/subjects/{subject}/metadata": {
            "get": op(
                "The newest version whose metadata has every key/value given",
                [
                    SUBJECT,
                    param("key", "query", strings),
                    param("value", "query", strings),
                    *flags("deleted"),
                ],
                responses(ok(ref("SubjectVersionSchema")), "404"),
            )
        },
        versions + "/{version}": {
            "get": op(
                "Get a version",
                [SUBJECT, VERSION, *flags("deleted")],
                responses(ok(ref("SubjectVersionSchema")), "404"),
            ),
            "delete": op(
                "Delete a version",
                [SUBJECT, VERSION, *flags("permanent")],
                responses(ok({"type": "integer"}), "404"),
            ),
        },
        versions + "/{version}/schema": {
            "get": op(
                "Get a version's schema text", [SUBJECT, VERSION, *flags("deleted")], responses(ok({}), "404")
            )
        },
        versions + "/{version}/referencedby": {
            "get": op("Schemas referencing a version", [SUBJECT, VERSION, *PAGE], responses(ok(ints), "404"))
        },
        "/schemas": {
            "get": op(
                "List schemas",
                [PREFIX, *flags("deleted", "latestOnly"), *PAGE],
                responses(ok({"type": "array", "items": ref("SubjectVersionSchema")})),
            )
        },
        "/schemas/types": {"get": op("Supported schema types", [], {"200": ok(strings)})},
        "/schemas/guids/{guid}": {
            "get": op("Get a schema by GUID", [GUID], responses(ok(ref("Schema")), "404"))
        },
        "/schemas/guids/{guid}/ids": {
            "get": op(
                "The ids of a GUID, per context",
                [GUID],
                responses(ok({"type": "array", "items": ref("ContextId")}), "404"),
            )
        },
        "/contexts": {"get": op("Contexts (only the default one, '.')", PAGE, responses(ok(strings)))},
        "/schemas/ids/{id}": {
            "get": op("Get a schema by id", [SCHEMA_ID], responses(ok(ref("Schema")), "404"))
        },
        "/schemas/ids/{id}/schema": {
            "get": op("Get a schema's text by id", [SCHEMA_ID], responses(ok({}), "404"))
        },
        "/schemas/ids/{id}/subjects": {
            "get": op(
                "Subjects using a schema",
                [SCHEMA_ID, param("subject", "query", {"type": "string"}), *flags("deleted"), *PAGE],
                responses(ok(strings), "404"),
            )
        },
        "/schemas/ids/{id}/versions": {
            "get": op(
                "Subject versions using a schema",
                [SCHEMA_ID, param("subject", "query", {"type": "string"}), *flags("deleted"), *PAGE],
                responses(ok({"type": "array", "items": ref("SubjectVersion")}), "404"),
            )
        },
        "/compatibility/subjects/{subject}/versions/{version}": {
            "post": op(
                "Test compatibility with one version",
                [SUBJECT, VERSION, *flags("verbose", "normalize")],
                responses(ok(ref("Compatibility")), "404", "413"),
                ref("SchemaRequest"),
            )
        },
        "/compatibility/subjects/{subject}/versions": {
            "post": op(
                "Test compatibility with the subject's versions",
                [SUBJECT, *flags("verbose", "normalize")],
                responses(ok(ref("Compatibility")), "404", "413"),
                ref("SchemaRequest"),
            )
        },
        "/config": {
            "get": op("Global compatibility level", [], responses(level_get)),
            "put": op("Set the global level", [], responses(level_put, "413"), level_body),
            "delete": op("Reset the global level", [], responses(level_get)),
        },
        "/config/{subject}": {
            "get": op(
                "Subject compatibility level",
                [SUBJECT, *flags("defaultToGlobal")],
                responses(level_get, "404"),
            ),
            "put": op("Set a subject's level", [SUBJECT], responses(level_put, "413"), level_body),
            "delete": op("Remove a subject's level", [SUBJECT], responses(level_get, "404")),
        },
        "/mode": {
            "get": op("Global mode", [], responses(mode)),
            "put": op("Set the global mode", flags("force"), responses(mode, "413"), mode_body),
        },
        "/mode/{subject}": {
            "get": op("Subject mode", [SUBJECT, *flags("defaultToGlobal")], responses(mode, "404")),
            "put": op("Set a subject's mode", [SUBJECT, *flags("force")], responses(mode, "413"), mode_body),
            "delete": op("Remove a subject's mode", [SUBJECT], responses(mode, "404")),
        },
    }


@cache
def openapi_document(cfg: RegistryConfig) -> str:
    """The document as JSON text (built once per config)."""
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "Avro schema registry (Confluent Schema Registry API)", "version": "1"},
        "paths": paths(),
        "components": {"schemas": components(cfg)},
    }
    return json.dumps(doc, indent=2)
