"""Schema builders and a catalogue of named schemas for the tests, in the spirit of Avro Java's TestSchemas.

Plain JSON values (dicts, lists, strings), so a test shows exactly the schema text under test.
"""

from __future__ import annotations

import json
from typing import Any

from registry.compatibility import ParsedSchema, parse_schema

MISSING = object()


def array(items: Any) -> dict[str, Any]:
    return {"type": "array", "items": items}


def map_of(values: Any) -> dict[str, Any]:
    return {"type": "map", "values": values}


def enum(name: str, symbols: list[str], *, default: str | None = None, namespace: str | None = None) -> dict:
    out: dict[str, Any] = {"type": "enum", "name": name, "symbols": symbols}
    if default is not None:
        out["default"] = default
    if namespace is not None:
        out["namespace"] = namespace
    return out


def fixed(name: str, size: int, *, namespace: str | None = None, **extra: Any) -> dict:
    out: dict[str, Any] = {"type": "fixed", "name": name, "size": size, **extra}
    if namespace is not None:
        out["namespace"] = namespace
    return out


def field(name: str, type_: Any, default: Any = MISSING, *, aliases: list[str] | None = None) -> dict:
    out: dict[str, Any] = {"name": name, "type": type_}
    if default is not MISSING:
        out["default"] = default
    if aliases is not None:
        out["aliases"] = aliases
    return out


def record(
    name: str, fields: list[dict], *, namespace: str | None = None, aliases: list[str] | None = None
) -> dict:
    out: dict[str, Any] = {"type": "record", "name": name, "fields": fields}
    if namespace is not None:
        out["namespace"] = namespace
    if aliases is not None:
        out["aliases"] = aliases
    return out


# Primitive and container schemas.
INT_ARRAY = array("int")
LONG_ARRAY = array("long")
STRING_ARRAY = array("string")
INT_MAP = map_of("int")
LONG_MAP = map_of("long")

# Enums.
ENUM1_AB = enum("Enum1", ["A", "B"])
ENUM1_ABC = enum("Enum1", ["A", "B", "C"])
ENUM1_BC = enum("Enum1", ["B", "C"])
ENUM2_AB = enum("Enum2", ["A", "B"])
ENUM_AB_DEFAULT_A = enum("Enum", ["A", "B"], default="A")
ENUM_ABC_DEFAULT_A = enum("Enum", ["A", "B", "C"], default="A")

# Unions.
EMPTY_UNION: list[Any] = []
INT_UNION = ["int"]
LONG_UNION = ["long"]
FLOAT_UNION = ["float"]
DOUBLE_UNION = ["double"]
STRING_UNION = ["string"]
BYTES_UNION = ["bytes"]
INT_STRING_UNION = ["int", "string"]
STRING_INT_UNION = ["string", "int"]
INT_FLOAT_UNION = ["int", "float"]
INT_LONG_UNION = ["int", "long"]
INT_LONG_FLOAT_DOUBLE_UNION = ["int", "long", "float", "double"]

# Fixed.
FIXED_4 = fixed("Fixed", 4)
FIXED_8 = fixed("Fixed", 8)

# Records (D = the field has a default).
EMPTY_RECORD1 = record("Record1", [])
EMPTY_RECORD2 = record("Record2", [])
A_INT_RECORD1 = record("Record1", [field("a", "int")])
A_LONG_RECORD1 = record("Record1", [field("a", "long")])
A_INT_B_INT_RECORD1 = record("Record1", [field("a", "int"), field("b", "int")])
A_DINT_RECORD1 = record("Record1", [field("a", "int", 0)])
A_INT_B_DINT_RECORD1 = record("Record1", [field("a", "int"), field("b", "int", 0)])
A_DINT_B_DINT_RECORD1 = record("Record1", [field("a", "int", 0), field("b", "int", 0)])
A_DINT_B_FIXED4_RECORD1 = record("Record1", [field("a", "int", 0), field("b", FIXED_4)])
A_DINT_B_FIXED8_RECORD1 = record("Record1", [field("a", "int", 0), field("b", FIXED_8)])
A_DINT_B_INT_STRING_UNION_RECORD1 = record("Record1", [field("a", "int", 0), field("b", INT_STRING_UNION, 0)])
A_DINT_B_INT_UNION_RECORD1 = record("Record1", [field("a", "int", 0), field("b", INT_UNION, 0)])
A_DINT_B_ENUM1_RECORD1 = record("Record1", [field("a", "int", 0), field("b", ENUM1_AB)])
A_DINT_B_ENUM2_RECORD1 = record("Record1", [field("a", "int", 0), field("b", ENUM2_AB)])

# Same record, an inner record in two different namespaces (compatible: only unqualified names count).
NS_RECORD1 = record(
    "Record1", [field("f1", ["null", array(record("InnerRecord1", [field("a", "int")], namespace="ns1"))])]
)
NS_RECORD2 = record(
    "Record1", [field("f1", ["null", array(record("InnerRecord1", [field("a", "int")], namespace="ns2"))])]
)

# Recursive records.
INT_LIST = record("List", [field("head", "int"), field("tail", "List")])
LONG_LIST = record("List", [field("head", "long"), field("tail", "List")])
NULLABLE_INT_LIST = record("Node", [field("value", "int"), field("next", ["null", "Node"], None)])
NULLABLE_LONG_LIST = record("Node", [field("value", "long"), field("next", ["null", "Node"], None)])
NULLABLE_STRING_LIST = record("Node", [field("value", "string"), field("next", ["null", "Node"], None)])

# Records whose enum fields carry enum defaults and field defaults.
ENUM_AB_DEFAULT_A_RECORD = record("Record", [field("Field", enum("Schema", ["A", "B"], default="A"))])
ENUM_ABC_DEFAULT_A_RECORD = record("Record", [field("Field", enum("Schema", ["A", "B", "C"], default="A"))])
ENUM_AB_FIELD_DEFAULT_A_ENUM_DEFAULT_B_RECORD = record(
    "Record", [field("Field", enum("Schema", ["A", "B"], default="B"), "A")]
)
ENUM_ABC_FIELD_DEFAULT_B_ENUM_DEFAULT_A_RECORD = record(
    "Record", [field("Field", enum("Schema", ["A", "B", "C"], default="A"), "B")]
)


def parsed(value: Any) -> ParsedSchema:
    """Parses a schema given as a JSON value (a bare string is a type name, not JSON text)."""
    return parse_schema(json.dumps(value))
