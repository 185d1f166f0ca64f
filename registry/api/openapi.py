"""The OpenAPI 3.1 document of the API: its bodies derived from their declarations, its operations listed.

The component schemas are the JSON Schemas of the body models (``registry.service.bodies`` and
``registry.service.contract_bodies``): requests as they are validated, answers as they are sent, with the
bounds that are settings written in from the running config. The operations are built from small helpers
so each reads as one line. The document is accurate enough to drive schemathesis: every status an
operation can answer is listed with its body shape, and parameters carry the ranges the server enforces,
so a generated request that the document calls valid is one the server accepts, and everything else is a
documented 4xx.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from registry.config import RegistryConfig
from registry.service import bodies
from registry.service.bodies import ConfiguredLimit
from registry.service.refusals import DocumentSchema
from registry.service.requests import MAX_INT32

JSON_TYPES = (
    "application/vnd.schemaregistry.v1+json",
    "application/vnd.schemaregistry+json",
    "application/json",
)
RESPONSE_TYPE = JSON_TYPES[0]
COMPONENTS = "#/components/schemas/{model}"
Obj = dict[str, Any]


def components(cfg: RegistryConfig) -> Obj:
    """Every body's schema, named after its model, with the configured bounds written in."""
    models: list[tuple[type[BaseModel], Any]] = [(model, "validation") for model in bodies.REQUESTS]
    models += [(model, "serialization") for model in bodies.ANSWERS]
    _, document = models_json_schema(models, ref_template=COMPONENTS, schema_generator=DocumentSchema)
    schemas: Obj = document["$defs"]
    for model in bodies.REQUESTS:
        for name, field in model.model_fields.items():
            for limit in (meta for meta in field.metadata if isinstance(meta, ConfiguredLimit)):
                schemas[model.__name__]["properties"][field.alias or name][limit.keyword] = getattr(
                    cfg, limit.setting
                )
    return schemas


def ref(model: type[BaseModel]) -> Obj:
    return {"$ref": COMPONENTS.format(model=model.__name__)}


def ok(schema: Obj, description: str = "OK") -> Obj:
    return {"description": description, "content": {RESPONSE_TYPE: {"schema": schema}}}


def error(description: str) -> Obj:
    return ok(ref(bodies.Error), description)


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


def body(model: type[BaseModel]) -> Obj:
    return {"required": True, "content": {t: {"schema": ref(model)} for t in JSON_TYPES}}


def op(summary: str, params: list[Obj], resp: Obj, request_body: type[BaseModel] | None = None) -> Obj:
    out: Obj = {"summary": summary, "parameters": params, "responses": resp}
    if request_body is not None:
        out["requestBody"] = body(request_body)
    return out


#: Printable text, not blank, no control characters (the server answers 42208 otherwise).
SUBJECT_PATTERN = (
    r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
)
VERSION = param("version", "path", {"type": "string", "pattern": r"^(latest|-1|[1-9][0-9]{0,8})$"})
SCHEMA_ID = param("id", "path", {"type": "integer", "minimum": 1, "maximum": MAX_INT32})
PAGE = [
    param("offset", "query", {"type": "integer", "minimum": 0, "maximum": MAX_INT32}),
    param("limit", "query", {"type": "integer", "minimum": -1, "maximum": MAX_INT32}),
]
PREFIX = param("subjectPrefix", "query", {"type": "string"})
GUID = param("guid", "path", {"type": "string", "format": "uuid"})
#: A schema in a format of its type (Protobuf's ``serialized``: the base64 ``FileDescriptorProto``);
#: none, or one its type does not have, answers the text as stored.
FORMAT = {
    **param("format", "query", {"type": "string"}),
    "description": "serialized: a Protobuf schema as its base64 FileDescriptorProto; else the text as stored",
}
STRINGS = {"type": "array", "items": {"type": "string"}}
INTS = {"type": "array", "items": {"type": "integer"}}


def subject(cfg: RegistryConfig) -> Obj:
    limits = {"minLength": 1, "maxLength": cfg.max_subject_length, "pattern": SUBJECT_PATTERN}
    return param("subject", "path", {"type": "string", **limits})


def paths(cfg: RegistryConfig) -> Obj:
    return {**_subject_paths(subject(cfg)), **_schema_paths(), **_setting_paths(subject(cfg))}


def _subject_paths(s: Obj) -> Obj:
    versions = "/subjects/{subject}/versions"
    version_schema = ok(ref(bodies.SubjectVersionSchema))
    return {
        "/": {"get": op("Root", [], {"200": ok({"type": "object"})})},
        "/subjects": {
            "get": op(
                "List subjects", [PREFIX, *flags("deleted", "deletedOnly"), *PAGE], responses(ok(STRINGS))
            )
        },
        "/subjects/{subject}": {
            "post": op(
                "Look a schema up in a subject",
                [s, *flags("normalize", "deleted"), FORMAT],
                responses(version_schema, "404", "413"),
                bodies.SchemaBody,
            ),
            "delete": op("Delete a subject", [s, *flags("permanent")], responses(ok(INTS), "404")),
        },
        versions: {
            "get": op(
                "List versions", [s, *flags("deleted", "deletedOnly"), *PAGE], responses(ok(INTS), "404")
            ),
            "post": op(
                "Register a schema",
                [s, *flags("normalize")],
                responses(ok(ref(bodies.Registered)), "404", "409", "413"),
                bodies.SchemaBody,
            ),
        },
        "/subjects/{subject}/metadata": {
            "get": op(
                "The newest version whose metadata has every key/value given",
                [
                    s,
                    param("key", "query", STRINGS),
                    param("value", "query", STRINGS),
                    *flags("deleted"),
                    FORMAT,
                ],
                responses(version_schema, "404"),
            )
        },
        versions + "/{version}": {
            "get": op(
                "Get a version", [s, VERSION, *flags("deleted"), FORMAT], responses(version_schema, "404")
            ),
            "delete": op(
                "Delete a version",
                [s, VERSION, *flags("permanent")],
                responses(ok({"type": "integer"}), "404"),
            ),
        },
        versions + "/{version}/schema": {
            "get": op(
                "Get a version's schema text",
                [s, VERSION, *flags("deleted"), FORMAT],
                responses(ok({}), "404"),
            )
        },
        versions + "/{version}/referencedby": {
            "get": op("Schemas referencing a version", [s, VERSION, *PAGE], responses(ok(INTS), "404"))
        },
        "/compatibility/subjects/{subject}/versions/{version}": {
            "post": op(
                "Test compatibility with one version",
                [s, VERSION, *flags("verbose", "normalize")],
                responses(ok(ref(bodies.Compatibility)), "404", "413"),
                bodies.SchemaBody,
            )
        },
        "/compatibility/subjects/{subject}/versions": {
            "post": op(
                "Test compatibility with the subject's versions",
                [s, *flags("verbose", "normalize")],
                responses(ok(ref(bodies.Compatibility)), "404", "413"),
                bodies.SchemaBody,
            )
        },
    }


def _schema_paths() -> Obj:
    by_subject = [param("subject", "query", {"type": "string"}), *flags("deleted"), *PAGE]
    return {
        "/schemas": {
            "get": op(
                "List schemas",
                [PREFIX, *flags("deleted", "latestOnly"), *PAGE],
                responses(ok({"type": "array", "items": ref(bodies.SubjectVersionSchema)})),
            )
        },
        "/schemas/types": {"get": op("Supported schema types", [], {"200": ok(STRINGS)})},
        "/schemas/guids/{guid}": {
            "get": op("Get a schema by GUID", [GUID, FORMAT], responses(ok(ref(bodies.Schema)), "404"))
        },
        "/schemas/guids/{guid}/ids": {
            "get": op(
                "The ids of a GUID, per context",
                [GUID],
                responses(ok({"type": "array", "items": ref(bodies.ContextId)}), "404"),
            )
        },
        "/contexts": {"get": op("Contexts (only the default one, '.')", PAGE, responses(ok(STRINGS)))},
        "/schemas/ids/{id}": {
            "get": op("Get a schema by id", [SCHEMA_ID, FORMAT], responses(ok(ref(bodies.Schema)), "404"))
        },
        "/schemas/ids/{id}/schema": {
            "get": op("Get a schema's text by id", [SCHEMA_ID, FORMAT], responses(ok({}), "404"))
        },
        "/schemas/ids/{id}/subjects": {
            "get": op("Subjects using a schema", [SCHEMA_ID, *by_subject], responses(ok(STRINGS), "404"))
        },
        "/schemas/ids/{id}/versions": {
            "get": op(
                "Subject versions using a schema",
                [SCHEMA_ID, *by_subject],
                responses(ok({"type": "array", "items": ref(bodies.SubjectVersion)}), "404"),
            )
        },
    }


def _setting_paths(s: Obj) -> Obj:
    level_get = ok(ref(bodies.Config))
    level_put = ok(ref(bodies.ConfigSet))
    mode = ok(ref(bodies.ModeBody))
    return {
        "/config": {
            "get": op("Global compatibility level", [], responses(level_get)),
            "put": op("Set the global level", [], responses(level_put, "413"), bodies.ConfigBody),
            "delete": op("Reset the global level", [], responses(level_get)),
        },
        "/config/{subject}": {
            "get": op(
                "Subject compatibility level", [s, *flags("defaultToGlobal")], responses(level_get, "404")
            ),
            "put": op("Set a subject's level", [s], responses(level_put, "413"), bodies.ConfigBody),
            "delete": op("Remove a subject's level", [s], responses(level_get, "404")),
        },
        "/mode": {
            "get": op("Global mode", [], responses(mode)),
            "put": op("Set the global mode", flags("force"), responses(mode, "413"), bodies.ModeBody),
        },
        "/mode/{subject}": {
            "get": op("Subject mode", [s, *flags("defaultToGlobal")], responses(mode, "404")),
            "put": op("Set a subject's mode", [s, *flags("force")], responses(mode, "413"), bodies.ModeBody),
            "delete": op("Remove a subject's mode", [s], responses(mode, "404")),
        },
    }


@cache
def openapi_document(cfg: RegistryConfig) -> str:
    """The document as JSON text (built once per config)."""
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "Schema registry (Confluent Schema Registry API)", "version": "1"},
        "paths": paths(cfg),
        "components": {"schemas": components(cfg)},
    }
    return json.dumps(doc, indent=2)
