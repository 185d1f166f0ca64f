"""How a body that its declaration refuses becomes a Confluent error, with a message naming the field.

The declarations are pydantic models (``registry.service.bodies``, ``contract_bodies``). The first error
of a refused body decides what it answers:

* a validator that knows the whole answer raises a ``PydanticCustomError`` whose type is the name of a
  ``RegistryError`` (``"SchemaTooLarge"``, see :func:`complete`), and that is the answer;
* a validator's own rule about a value as a whole raises the error type ``"refused"``, which is said of
  the value's path (``ruleSet: two rules are named 'a'``);
* any other error answers the error its top-level field declares (a :class:`Refusal` among the field's
  annotations; 400 without one), saying what the value must be in words made from its JSON Schema, the
  one the OpenAPI document shows: ``'id' must be an integer between 1 and 2147483647, not 0.``
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails, PydanticCustomError

from registry.service import errors

Obj = dict[str, Any]
Loc = Sequence[int | str]


@dataclass(frozen=True)
class Refusal:
    """The Confluent error a body field's invalid value answers, as an annotation of the field.

    ``prefix`` starts the message (``"Invalid rule set: "``; field paths then go unquoted); ``message``,
    when given, makes the whole message from the value sent, for the messages clients know from Confluent
    (``Invalid compatibility level 'X'. Valid values are ...``).
    """

    error: type[errors.RegistryError] = errors.BadRequest
    prefix: str = ""
    message: Callable[[Any], str] | None = None


DEFAULT = Refusal()


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
    return declared.error(f"{declared.prefix}{_says(detail, _schema(model), where, not declared.prefix)}.")


def _says(detail: ErrorDetails, schema: Obj, where: str, quoted: bool) -> str:
    """What is wrong, naming the field by its path (``metadata.tags.x``, ``references[0].version``)."""
    kind, loc = detail["type"], tuple(detail["loc"])
    subject = _subject(where, loc, quoted)
    if kind == "missing":
        return f"{subject} is missing; it must be {describe(_at(schema, loc))}"
    if kind == "extra_forbidden":
        names = ", ".join(_at(schema, loc[:-1]).get("properties", {}))
        return f"{_subject(where, loc[:-1], quoted)} has unknown field {loc[-1]!r} (known: {names})"
    if kind == "refused":  # a rule about the value as a whole, said by its validator
        return f"{subject}: {detail['msg']}"
    return f"{subject} must be {describe(_at(schema, loc))}, not {_shown(detail['input'])}"


def _declared_refusal(model: type[BaseModel], name: int | str) -> Refusal:
    for python_name, field in model.model_fields.items():
        if (field.alias or python_name) == name:
            found = [meta for meta in field.metadata if isinstance(meta, Refusal)]
            return found[0] if found else DEFAULT
    return DEFAULT


@cache
def _schema(model: type[BaseModel]) -> Obj:
    return model.model_json_schema(mode="validation")


def _subject(where: str, loc: Loc, quoted: bool) -> str:
    path = where
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    if not path:
        return "The body"
    return f"'{path}'" if quoted else path


def _shown(value: Any) -> str:
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
        node.setdefault("title", name)
    return node


def describe(node: Obj) -> str:
    """What a value of this JSON Schema is, in words: ``a list of strings``, ``one of A, B``."""
    if "description" in node:  # a field's own (a model's docstring is left out when resolving its $ref)
        return str(node["description"])
    return _words(node, plural=False)


def _words(node: Obj, plural: bool) -> str:
    options = [option for option in node.get("anyOf", []) if option.get("type") != "null"]
    if options:
        return " or ".join(_words(option, plural) for option in options)
    if "properties" in node or "$ref" in node:
        name = node.get("title") or node.get("$ref", "").rsplit("/", 1)[-1]
        return f"{name} objects" if plural else f"a {name} object"
    if "enum" in node or "const" in node:
        values = node.get("enum", [node.get("const")])
        return "one of " + ", ".join(str(value) for value in values)
    kind = node.get("type")
    if kind == "array":
        items = _words(node.get("items", {}), plural=True)
        return f"lists of {items}" if plural else f"a list of {items}"
    if kind == "object":
        values = node.get("additionalProperties")
        inner = f" of {_words(values, plural=True)}" if isinstance(values, dict) and values else ""
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
