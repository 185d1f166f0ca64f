"""The JSON bodies of the registry's API, declared once: what a request may carry and what an answer holds.

Each body is a pydantic model whose fields carry their types and constraints. The handlers validate a
request's JSON with them (:func:`schema_request`, :func:`config_update`, :func:`mode`), and the OpenAPI
document's component schemas are derived from them (``registry.api.openapi``), so a field or a rule is
written here only (data contracts: ``registry.service.contract_bodies``). A refused body answers the
Confluent error its field declares (a ``Refusal`` among the field's annotations, read by
``registry.service.refusals``), with a message naming the field and saying what it must be; a field's
``description``, when it has one, is that phrase (``a metadata property name``).

What JSON Schema cannot say stays outside: a body's size and nesting are checked before it is parsed
(``registry.service.requests``), and a bound that is a setting is read at each request and written into
the document from the settings (:class:`ConfiguredLimit`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Protocol, TypeVar, get_args
from uuid import UUID

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic.alias_generators import to_camel

from registry.compatibility import CompatibilityLevel
from registry.schema_types import DEFAULT_SCHEMA_TYPE, SCHEMA_TYPE_NAMES, unknown_type_message
from registry.service import errors
from registry.service.contract_bodies import MetadataValue, RuleSetValue
from registry.service.contract_config import CONTRACT_FIELDS, ConfigUpdate
from registry.service.refusals import Refusal, complete, refusal
from registry.service.requests import MAX_INT32, json_depth

SchemaType = Literal[SCHEMA_TYPE_NAMES]  # type: ignore[valid-type]  # the types' own names
Mode = Literal["READWRITE", "READONLY", "IMPORT"]
MODES: tuple[str, ...] = get_args(Mode)
COMPATIBILITY_LEVELS: tuple[str, ...] = tuple(level.value for level in CompatibilityLevel)
DEFAULT_COMPATIBILITY: str = CompatibilityLevel.BACKWARD.value
DEFAULT_MODE: Mode = "READWRITE"
MAX_GROUP_LENGTH = 255
#: Confluent request fields for features this registry does not have: refused rather than dropped.
UNSUPPORTED_SCHEMA_FIELDS = {
    "schemaTagsToAdd": "schema tags",
    "schemaTagsToRemove": "schema tags",
    "propagateSchemaTags": "schema tags",
    "rulesToMerge": "rule merging",
    "rulesToRemove": "rule removal",
}
#: Confluent config fields this registry does not implement: refused, never silently ignored.
UNSUPPORTED_CONFIG_FIELDS = (
    "alias", "aliasForDeks", "normalize", "validateFields", "validateNewSchemas", "validateRules",
    "compatibilityPolicy",
)  # fmt: skip
Model = TypeVar("Model", bound=BaseModel)


class BodyLimits(Protocol):
    """The settings a body is checked against (``RegistryConfig`` has them)."""

    @property
    def max_schema_chars(self) -> int: ...
    @property
    def max_json_depth(self) -> int: ...


@dataclass(frozen=True)
class ConfiguredLimit:
    """A field's bound that is a setting (a :class:`BodyLimits` attribute): checked at each request by
    the field's validator, and stated in the OpenAPI document as the JSON Schema ``keyword``."""

    setting: str
    keyword: str


# -- the values the bodies become -----------------------------------------------------------------
@dataclass(frozen=True)
class SchemaReferenceInput:
    """One entry of a request's ``references``."""

    name: str
    subject: str
    version: int


@dataclass(frozen=True)
class SchemaRequest:
    """The validated body of a register, lookup or compatibility request.

    ``metadata`` and ``rule_set`` are canonical (``registry.service.contracts``); ``None`` when the body
    has none, which makes a registration carry the previous version's forward.
    """

    schema: str
    schema_type: str = DEFAULT_SCHEMA_TYPE
    references: tuple[SchemaReferenceInput, ...] = field(default_factory=tuple)
    id: int | None = None
    version: int | None = None
    metadata: dict[str, Any] | None = field(default=None, hash=False)
    rule_set: dict[str, Any] | None = field(default=None, hash=False)


# -- field types ----------------------------------------------------------------------------------
def _upper(value: Any) -> Any:
    """Names that clients send in any case (``full``, ``readonly``, ``avro``)."""
    return value.upper() if isinstance(value, str) else value


def _level(raw: Any) -> Any:
    """A level name in any case; null is refused, as Confluent does (absent is "not given")."""
    if raw is None:
        raise complete(errors.InvalidCompatibilityLevel, _level_message(raw))
    return _upper(raw)


def _level_message(raw: Any) -> str:
    return f"Invalid compatibility level {raw!r}. Valid values are {', '.join(COMPATIBILITY_LEVELS)}."


def _not_null(schema: dict[str, Any]) -> None:
    """The document's side of a field that may be absent but not null (its validator refuses null)."""
    options = [option for option in schema.pop("anyOf", []) if option.get("type") != "null"]
    if options:
        schema.update(options[0])
    if "default" in schema and schema["default"] is None:
        del schema["default"]


SCHEMA_CHARS = ConfiguredLimit("max_schema_chars", "maxLength")


def _within_limits(text: str, info: ValidationInfo) -> str:
    limits: BodyLimits = info.context
    most: int = getattr(limits, SCHEMA_CHARS.setting)
    if len(text) > most:
        raise complete(errors.SchemaTooLarge, f"Schema has {len(text)} characters; the limit is {most}.")
    if json_depth(text) > limits.max_json_depth:
        raise complete(errors.InvalidSchema, f"Schema is nested deeper than {limits.max_json_depth} levels.")
    return text


PositiveInt32 = Annotated[int, Field(ge=1, le=MAX_INT32)]
Level = Annotated[CompatibilityLevel, Field(strict=False)]
LevelSetting = Annotated[
    Level | None,
    BeforeValidator(_level),
    Field(json_schema_extra=_not_null),
    Refusal(errors.InvalidCompatibilityLevel, message=_level_message),
]
SchemaText = Annotated[
    str,
    Field(alias="schema", pattern=r"\S", description="a non-blank string holding the schema's text"),
    SCHEMA_CHARS,
    AfterValidator(_within_limits),
    Refusal(errors.InvalidSchema),
]


def _schema_type_message(sent: Any) -> str:
    return unknown_type_message(sent)


class Body(BaseModel):
    """A JSON body: strict types (no ``"7"`` for 7, no ``true`` for 1), fields under their JSON names."""

    model_config = ConfigDict(strict=True, frozen=True, alias_generator=to_camel)


# -- requests -------------------------------------------------------------------------------------
class Reference(Body):
    """Another subject's version, whose named types the schema uses under ``name``."""

    model_config = ConfigDict(title="reference")

    name: str
    subject: str
    version: PositiveInt32


def _empty(value: Any) -> bool:
    """null, false, [] or {} (not 0 or "", which equal false in Python)."""
    return value is None or value is False or (isinstance(value, list | dict) and not value)


def _document_unsupported(schema: dict[str, Any]) -> None:
    for name, feature in UNSUPPORTED_SCHEMA_FIELDS.items():
        refused = {"description": f"refused unless empty: this registry has no {feature}"}
        schema["properties"][name] = {**refused, "enum": [None, False, [], {}]}


class SchemaBody(Body):
    """A schema to register, look up or check (fields this registry does not know are ignored)."""

    model_config = ConfigDict(json_schema_extra=_document_unsupported)

    schema_text: SchemaText
    schema_type: Annotated[
        SchemaType | None,
        BeforeValidator(_upper),
        Refusal(errors.InvalidSchema, message=_schema_type_message),
    ] = None
    references: Annotated[list[Reference] | None, Refusal(errors.InvalidSchema)] = None
    id: PositiveInt32 | None = None
    version: PositiveInt32 | None = None
    metadata: MetadataValue = None
    rule_set: RuleSetValue = None

    @model_validator(mode="before")
    @classmethod
    def _refuse_unsupported(cls, body: Any) -> Any:
        for name, feature in UNSUPPORTED_SCHEMA_FIELDS.items():
            if isinstance(body, dict) and not _empty(body.get(name)):
                raise complete(
                    errors.BadRequest, f"'{name}' is not supported: this registry has no {feature}."
                )
        return body

    def request(self) -> SchemaRequest:
        return SchemaRequest(
            schema=self.schema_text,
            schema_type=self.schema_type or DEFAULT_SCHEMA_TYPE,
            references=tuple(
                SchemaReferenceInput(r.name, r.subject, r.version) for r in self.references or ()
            ),
            id=self.id,
            version=self.version,
            metadata=None if self.metadata is None else self.metadata.canonical(),
            rule_set=None if self.rule_set is None else self.rule_set.canonical(),
        )


class ContractSettings(Body):
    """The data-contract settings of a scope (``registry.service.contract_config``)."""

    compatibility_group: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=MAX_GROUP_LENGTH,
            pattern=r"\S",
            description=f"a metadata property name (1 to {MAX_GROUP_LENGTH} characters)",
        ),
    ] = None
    default_metadata: MetadataValue = None
    override_metadata: MetadataValue = None
    default_rule_set: RuleSetValue = None
    override_rule_set: RuleSetValue = None


class ConfigBody(ContractSettings):
    """``PUT /config[/{subject}]``: the level (under either name) and the contract settings to change; a
    setting given as null is cleared, one not given is kept."""

    model_config = ConfigDict(extra="forbid", title="config", json_schema_extra={"minProperties": 1})

    compatibility: LevelSetting = None
    compatibility_level: LevelSetting = None

    @model_validator(mode="before")
    @classmethod
    def _refuse_unsupported(cls, body: Any) -> Any:
        given = [name for name in UNSUPPORTED_CONFIG_FIELDS if isinstance(body, dict) and name in body]
        if given:
            raise complete(errors.BadRequest, f"Config field '{given[0]}' is not supported by this registry.")
        if body == {}:  # nothing to set: Confluent's 42203, naming the valid levels
            raise complete(errors.InvalidCompatibilityLevel, _level_message(None))
        return body

    @model_validator(mode="after")
    def _one_level(self) -> ConfigBody:
        levels = {self.compatibility, self.compatibility_level} - {None}
        if len(levels) > 1:
            message = "'compatibility' and 'compatibilityLevel' name the same setting; give one."
            raise complete(errors.BadRequest, message)
        return self

    def update(self) -> ConfigUpdate:
        level = self.compatibility or self.compatibility_level
        contract = {}
        for attribute in CONTRACT_FIELDS.values():
            if attribute in self.model_fields_set:
                value = getattr(self, attribute)
                contract[attribute] = (value.canonical() or None) if isinstance(value, BaseModel) else value
        return ConfigUpdate(None if level is None else level.value, contract)


class ModeBody(Body):
    """``PUT /mode[/{subject}]``, and what every ``/mode`` request answers."""

    mode: Annotated[
        Mode,
        BeforeValidator(_upper),
        Refusal(
            errors.InvalidMode,
            message=lambda sent: f"Invalid mode {sent!r}. Valid values are {', '.join(MODES)}.",
        ),
    ]


# -- answers: the document describes them (the storage layer's views build them) ----------------------
class Error(Body):
    """Every refusal: Confluent's error code (the HTTP status is its first three digits) and why."""

    error_code: int = Field(alias="error_code")
    message: str


class Schema(Body):
    """A stored schema (``schemaType`` only when not AVRO), with its data contract and GUID."""

    schema_text: str = Field(alias="schema")
    schema_type: SchemaType | None = None
    references: list[Reference] | None = None
    metadata: MetadataValue = None
    rule_set: RuleSetValue = None
    guid: UUID


class SubjectVersionSchema(Schema):
    """A subject's version and its schema."""

    subject: str
    version: PositiveInt32
    id: PositiveInt32


class Registered(Schema):
    """A registration's answer: the schema's id, the subject's version, and the schema as stored."""

    id: PositiveInt32
    version: PositiveInt32


class SubjectVersion(Body):
    subject: str
    version: PositiveInt32


class ContextId(Body):
    context: str
    id: PositiveInt32


class Compatibility(Body):
    """A compatibility check: whether the schema fits, and (with ``verbose``) why not."""

    is_compatible: bool = Field(alias="is_compatible")
    messages: list[str] | None = None


class Config(ContractSettings):
    """``GET`` and ``DELETE /config[/{subject}]``: the level in force and the scope's contract settings."""

    compatibility_level: Level


class ConfigSet(ContractSettings):
    """``PUT /config[/{subject}]``: the scope's own level, when it has one, and its contract settings."""

    compatibility: Level | None = None


#: Every body, for the OpenAPI document: requests as they are validated, answers as they are sent.
REQUESTS: tuple[type[Body], ...] = (SchemaBody, ConfigBody, ModeBody)
ANSWERS: tuple[type[Body], ...] = (
    Error, Schema, SubjectVersionSchema, Registered, SubjectVersion, ContextId, Compatibility, Config,
    ConfigSet, ModeBody,
)  # fmt: skip


# -- validation -----------------------------------------------------------------------------------
def validated(model: type[Model], body: Any, limits: BodyLimits | None = None) -> Model:
    """``body`` (parsed JSON) as a ``model``, or the Confluent error its declaration gives."""
    try:
        return model.model_validate(body, context=limits)
    except ValidationError as exc:
        raise refusal(exc, model, body) from None


def schema_request(body: Any, limits: BodyLimits) -> SchemaRequest:
    """The body of a register, lookup or compatibility request."""
    return validated(SchemaBody, body, limits).request()


def config_update(body: Any) -> ConfigUpdate:
    """A ``PUT /config`` body."""
    return validated(ConfigBody, body).update()


def mode(body: Any) -> str:
    """A ``PUT /mode`` body's mode."""
    return validated(ModeBody, body).mode


@dataclass(frozen=True)
class _Limits:
    max_schema_chars: int
    max_json_depth: int


def references(raw: Any) -> tuple[SchemaReferenceInput, ...]:
    """``raw`` read as a schema body's ``references`` (the page's form reads its rows with this)."""
    return schema_request({"schema": "{}", "references": raw}, _Limits(2, 1)).references
