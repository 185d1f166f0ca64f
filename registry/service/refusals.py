"""How a body that its declaration refuses becomes a Confluent error, with a message naming the field.

The declarations are pydantic models (``registry.service.bodies``, ``contract_bodies``). The first error
of a refused body decides what it answers:

* a validator that knows the whole answer raises a ``PydanticCustomError`` whose type is the name of a
  ``RegistryError`` (``"SchemaTooLarge"``, see :func:`complete`), and that is the answer;
* a validator's own rule about a value as a whole raises the error type ``"refused"``, which is said of
  the value's path (``ruleSet: two rules are named 'a'``);
* any other error answers the error its top-level field declares (a :class:`Refusal` among the field's
  annotations; 400 without one), saying what the value must be in words made from its JSON Schema, the
  one the OpenAPI document shows: ``'id' must be an integer between 1 and 2147483647, not 0.`` (the
  value sent is shown where a scalar was expected; for an object or a list the path and its kind say it:
  ``metadata.tags must be an object of tag lists.``)

The words are the user's, never a Python class's: a model is ``an object`` unless it declares a ``title``
(``a rule``, ``a list of rules``); a field's ``description`` is the whole phrase; a model that declares
``named_by`` (a rule: its ``name``) is shown by that field's value in the paths of what is wrong inside it
(``ruleSet.domainRules[0] (x).kind``); and a field whose refusal is said the way clients know it declares
``says`` on its :class:`Refusal` (``ruleSet.domainRules[0] (x) needs a string 'type'``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from types import NoneType, UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import CoreSchema, ErrorDetails, PydanticCustomError

from registry.service import errors

Obj = dict[str, Any]
Loc = Sequence[int | str]


@dataclass(frozen=True)
class Refusal:
    """The Confluent error a body field's invalid value answers, as an annotation of the field.

    ``prefix`` starts the message (``"Invalid rule set: "``; field paths then go unquoted); ``message``,
    when given, makes the whole message from the value sent, for the messages clients know from Confluent
    (``Invalid compatibility level 'X'. Valid values are ...``). ``says``, on a field at any depth, says
    what is wrong with the value sent (:data:`MISSING` when absent) of the object at the path given
    (``ruleSet.domainRules[0] (x)``), the message's prefix put before it; ``None`` from it leaves the
    saying to the JSON Schema's words.
    """

    error: type[errors.RegistryError] = errors.BadRequest
    prefix: str = ""
    message: Callable[[Any], str] | None = None
    says: Callable[[Any, str], str | None] | None = None


DEFAULT = Refusal()
#: The value of a field that was not sent, for :attr:`Refusal.says`.
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()


class DocumentSchema(GenerateJsonSchema):
    """Pydantic's JSON Schema without a title on every field (the field's name says it), as the OpenAPI
    document shows it and refusals read it."""

    def field_title_should_be_set(self, schema: CoreSchema) -> bool:  # type: ignore[override]
        return False


def complete(error: type[errors.RegistryError], message: str) -> PydanticCustomError:
    """For a validator: the whole answer, ``error`` with ``message`` (nothing is added to it)."""
    return PydanticCustomError(error.__name__, message)


def refusal(
    exc: ValidationError, model: type[BaseModel], sent: Any, where: str = "", declared: Refusal | None = None
) -> errors.RegistryError:
    """The Confluent error for ``model``'s refusal of ``sent``. ``where`` is the path of ``sent`` in a
    larger document (field paths start with it); ``declared``, the refusal of the whole value (else each
    top-level field's own)."""
    detail: ErrorDetails = exc.errors(include_url=False)[0]
    kind, loc = detail["type"], tuple(detail["loc"])
    known = getattr(errors, kind, None)
    if isinstance(known, type) and issubclass(known, errors.RegistryError):
        return known(detail["msg"])
    if declared is None:
        declared = _declared_refusal(model, loc[0]) if loc else DEFAULT
    if declared.message is not None:
        value = sent.get(loc[0]) if loc and isinstance(sent, dict) else sent
        return declared.error(declared.message(value))
    path = _Path(model, sent, where, loc, quoted=not declared.prefix)
    said = None
    own = path.refusal()
    if own is not None and own.says is not None and kind not in ("refused", "extra_forbidden"):
        said = own.says(_value_at(sent, loc), path.subject(len(loc) - 1))
    if said is None:
        said = _says(detail, _schema(model), path)
    return declared.error(f"{declared.prefix}{said}.")


def _says(detail: ErrorDetails, schema: Obj, path: _Path) -> str:
    """What is wrong, naming the field by its path (``metadata.tags.x``, ``references[0].version``)."""
    kind, loc = detail["type"], path.loc
    subject = path.subject(len(loc))
    defs = schema.get("$defs", {})
    if kind == "missing":
        return f"{subject} is missing; it must be {describe(_at(schema, loc), defs)}"
    if kind == "extra_forbidden":
        names = ", ".join(_at(schema, loc[:-1]).get("properties", {}))
        holder = path.subject(len(loc) - 1)
        if not path.where and len(loc) == 1:  # at the top of a body
            title = schema.get("title")
            return f"Unknown {f'{title} ' if title else ''}field {loc[-1]!r} (known: {names})"
        return f"{holder} has unknown field {loc[-1]!r} (known: {names})"
    if kind == "refused":  # a rule about the value as a whole, said by its validator
        return f"{subject}: {detail['msg']}"
    expected = _at(schema, loc)
    if _container(expected):  # the path and the kind say it: the value sent may be long
        return f"{subject} must be {describe(expected, defs)}"
    return f"{subject} must be {describe(expected, defs)}, not {shown(detail['input'])}"


def _container(node: Obj) -> bool:
    """Whether a value of this JSON Schema is an object or a list."""
    options = [option for option in node.get("anyOf", []) if option.get("type") != "null"] or [node]
    return any("properties" in option or option.get("type") in ("array", "object") for option in options)


class _Path:
    """Where a refused value is: the models along ``loc`` (for their fields' refusals and the names
    their objects are shown by) and the values sent along it."""

    def __init__(self, model: type[BaseModel], sent: Any, where: str, loc: Loc, quoted: bool) -> None:
        self.sent, self.where, self.loc, self.quoted = sent, where, tuple(loc), quoted
        self.types: list[Any] = [model]
        for part in self.loc:
            self.types.append(_step(self.types[-1], part))

    def refusal(self) -> Refusal | None:
        """The refusal declared on the field the error is in, if it declares one."""
        holder = _model(self.types[-2]) if self.loc else None
        field = _field(holder, self.loc[-1]) if holder is not None else None
        found = [meta for meta in field.metadata if isinstance(meta, Refusal)] if field else []
        return found[0] if found else None

    def subject(self, depth: int) -> str:
        """The path of the value at ``loc[:depth]``, each named object shown by its name."""
        path = self.where
        for index, part in enumerate(self.loc[:depth]):
            path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
            path += self._name(index + 1)
        if not path:
            return "The body"
        return f"'{path}'" if self.quoted else path

    def _name(self, depth: int) -> str:
        model = _model(self.types[depth])
        named_by = getattr(model, "named_by", None)
        if named_by is None or self.loc[depth : depth + 1] == (named_by,):  # refused: its name
            return ""
        name = _value_at(self.sent, self.loc[:depth])
        name = name.get(named_by) if isinstance(name, dict) else None
        return f" ({name})" if isinstance(name, str) else ""


def _options(annotation: Any) -> list[Any]:
    """The types a value of ``annotation`` may have (``X | None`` and ``Annotated[X, ...]`` are X)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _options(get_args(annotation)[0])
    if origin in (Union, UnionType):
        return [option for arg in get_args(annotation) for option in _options(arg) if option is not NoneType]
    return [annotation]


def _model(annotation: Any) -> type[BaseModel] | None:
    models = [option for option in _options(annotation) if _is_model(option)]
    return models[0] if models else None


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _field(model: type[BaseModel], name: int | str) -> FieldInfo | None:
    for python_name, field in model.model_fields.items():
        if (field.alias or python_name) == name:
            return field
    return None


def _step(annotation: Any, part: int | str) -> Any:
    """The type of the value at ``part`` of a value of type ``annotation`` (``None`` when unknown)."""
    for option in _options(annotation):
        field = _field(option, part) if _is_model(option) else None
        if field is not None:
            return field.annotation
        args = get_args(option)
        if isinstance(part, int) and get_origin(option) in (list, tuple) and args:
            return args[0]
        if isinstance(part, str) and get_origin(option) is dict and len(args) == 2:
            return args[1]
    return None


def _value_at(sent: Any, loc: Loc) -> Any:
    """The value sent at ``loc``, :data:`MISSING` when there is none."""
    value = sent
    for part in loc:
        found = isinstance(value, list) and isinstance(part, int) and -len(value) <= part < len(value)
        if not (found or (isinstance(value, dict) and part in value)):
            return MISSING
        value = value[part]
    return value


def _declared_refusal(model: type[BaseModel], name: int | str) -> Refusal:
    field = _field(model, name)
    found = [meta for meta in field.metadata if isinstance(meta, Refusal)] if field else []
    return found[0] if found else DEFAULT


@cache
def _schema(model: type[BaseModel]) -> Obj:
    """``model``'s JSON Schema without the titles that are class names (pydantic's default)."""
    schema = model.model_json_schema(mode="validation", schema_generator=DocumentSchema)
    for name, node in schema.get("$defs", {}).items():
        if node.get("title") in (name, name.rsplit("__", 1)[-1]):
            del node["title"]
    if schema.get("title") == model.__name__:
        del schema["title"]
    return schema


def shown(value: Any) -> str:
    """``value`` as JSON, cut to 60 characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _at(root: Obj, loc: Loc) -> Obj:
    """The JSON Schema of the value at ``loc`` (``{}`` where the schema says nothing)."""
    node = {key: value for key, value in root.items() if key != "description"}  # the model's docstring
    for part in loc:
        if isinstance(part, int):
            node = node.get("items", {})
        elif part in node.get("properties", {}):
            node = node["properties"][part]
        else:
            extra = node.get("additionalProperties")
            node = extra if isinstance(extra, dict) else {}
        node = _resolved(node, root)
    return node


def _resolved(node: Obj, root: Obj) -> Obj:
    """``node`` without its ``$ref`` and without the ``null`` of a nullable value."""
    options = [option for option in node.get("anyOf", []) if option.get("type") != "null"]
    if len(options) == 1:
        node = {**options[0], **{k: v for k, v in node.items() if k != "anyOf"}}
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        declared = {k: v for k, v in root.get("$defs", {}).get(name, {}).items() if k != "description"}
        node = {**declared, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def describe(node: Obj, defs: Obj | None = None) -> str:
    """What a value of this JSON Schema is, in words: ``a list of strings``, ``one of A, B``, ``a rule``
    (``defs``: the ``$defs`` its ``$ref`` name)."""
    if "description" in node:  # a field's own (a model's docstring is left out when resolving its $ref)
        return str(node["description"])
    return _words(node, plural=False, defs=defs or {})


def _words(node: Obj, plural: bool, defs: Obj) -> str:
    options = [option for option in node.get("anyOf", []) if option.get("type") != "null"]
    if options:
        return " or ".join(_words(option, plural, defs) for option in options)
    ref = node.get("$ref")
    if isinstance(ref, str):
        return _words(defs.get(ref.rsplit("/", 1)[-1], {}), plural, defs)
    if "properties" in node:
        return _object_words(node.get("title"), plural)
    if "enum" in node or "const" in node:
        values = node.get("enum", [node.get("const")])
        return "one of " + ", ".join(str(value) for value in values)
    kind = node.get("type")
    if kind == "array":
        items = _words(node.get("items", {}), True, defs)
        return f"lists of {items}" if plural else f"a list of {items}"
    if kind == "object":
        values = node.get("additionalProperties")
        inner = f" of {_words(values, True, defs)}" if isinstance(values, dict) and values else ""
        return f"objects{inner}" if plural else f"an object{inner}"
    if kind == "string":
        non_empty = node.get("minLength") == 1 and "maxLength" not in node
        noun = "non-empty string" if non_empty else "string"
        return (f"{noun}s" if plural else f"a {noun}") + ("" if non_empty else _string_bounds(node))
    if kind == "integer":
        return ("integers" if plural else "an integer") + _number_bounds(node)
    if kind == "boolean":
        return "booleans" if plural else "true or false"
    return "JSON values" if plural else "a JSON value"


def _object_words(title: str | None, plural: bool) -> str:
    """A model's value: ``an object``, or what its ``title`` calls it (``a rule``, ``rules``)."""
    if not title:
        return "objects" if plural else "an object"
    if plural:
        return f"{title}s"
    return f"{'an' if title[0] in 'aeiou' else 'a'} {title}"


def _string_bounds(node: Obj) -> str:
    low, high = node.get("minLength"), node.get("maxLength")
    bounds = ""
    if low is not None and high is not None:
        bounds = f" of {low} to {high} characters"
    elif high is not None:
        bounds = f" of at most {high} characters"
    elif low is not None:
        bounds = f" of at least {low} characters"
    pattern = node.get("pattern")
    return bounds + (f" matching {pattern}" if pattern else "")


def _number_bounds(node: Obj) -> str:
    low, high = node.get("minimum"), node.get("maximum")
    if low is not None and high is not None:
        return f" between {low} and {high}"
    if low is not None:
        return f" of at least {low}"
    return f" of at most {high}" if high is not None else ""
