"""The schema types the registry stores, each a plug-in behind one interface (``base.SchemaType``).

The API, storage, the schema check and the page look a schema's type up here (:func:`schema_type`) and
ask it everything about its schemas; none of them branches on a type's name. A type is its own modules
(``avro`` and its field tree ``avro_tree``, over the Avro rules of ``registry.compatibility``; the
packages ``json_schema`` and ``protobuf``) and one entry in ``_TYPES``; ``type_change`` compares a schema
with versions of another type.
"""

from __future__ import annotations

from registry.schema_types.avro import Avro
from registry.schema_types.base import FieldRow, FieldTree, Parsed, Reference, SchemaType
from registry.schema_types.json_schema import JsonSchema
from registry.schema_types.protobuf import Protobuf

_TYPES: dict[str, SchemaType] = {t.name: t for t in (Avro(), JsonSchema(), Protobuf())}

#: The type a schema is when a request or an answer names none (``schemaType`` absent), as Confluent's.
DEFAULT_SCHEMA_TYPE = "AVRO"

#: The types' names, as ``schemaType`` says them and ``GET /schemas/types`` lists them.
SCHEMA_TYPE_NAMES: tuple[str, ...] = tuple(_TYPES)


def all_types() -> tuple[SchemaType, ...]:
    """Every type, in the order ``SCHEMA_TYPE_NAMES`` lists them (the schema check tells files apart by
    their types' suffixes)."""
    return tuple(_TYPES.values())


class UnknownSchemaType(ValueError):
    """A type this registry does not store; the message names the ones it does."""


def schema_type(name: str) -> SchemaType:
    """The type named ``name`` (as stored, or as a request says it: upper case)."""
    found = _TYPES.get(name)
    if found is None:
        raise UnknownSchemaType(unknown_type_message(name))
    return found


def unknown_type_message(name: object) -> str:
    """What a request naming a type this registry does not store is told."""
    known = ", ".join(SCHEMA_TYPE_NAMES)
    return f"Schema type {name} is not supported: this registry stores {known} schemas only."


__all__ = [
    "DEFAULT_SCHEMA_TYPE",
    "SCHEMA_TYPE_NAMES",
    "FieldRow",
    "FieldTree",
    "Parsed",
    "Reference",
    "SchemaType",
    "UnknownSchemaType",
    "all_types",
    "schema_type",
    "unknown_type_message",
]
