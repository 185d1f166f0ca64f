"""The schema types behind one interface: the lookup, Avro as a plug-in, and that the API, storage, the
schema check and the page ask the interface rather than Avro's rules."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from registry.compatibility import CompatibilityLevel, InvalidSchemaError
from registry.schema_types import SCHEMA_TYPE_NAMES, Reference, UnknownSchemaType, schema_type
from registry.service.bodies import SchemaType

REGISTRY = Path(__file__).resolve().parents[3] / "registry"
# What the rest of the registry may take from Avro's package: what every type shares.
SHARED = {"Change", "ChangeKind", "CompatibilityLevel", "Conflict", "InvalidSchemaError", "SchemaProblem"}


def record(*fields: dict) -> str:
    return json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": list(fields)})


def test_the_lookup_names_the_types_it_has_and_refuses_others_naming_them() -> None:
    assert SCHEMA_TYPE_NAMES == ("AVRO", "JSON", "PROTOBUF")
    assert schema_type("AVRO").name == "AVRO"
    with pytest.raises(
        UnknownSchemaType,
        match=r"Schema type XML is not supported: this registry stores AVRO, JSON, PROTOBUF schemas only",
    ):
        schema_type("XML")


def test_the_api_accepts_the_types_the_lookup_has() -> None:
    assert SchemaType.__args__ == SCHEMA_TYPE_NAMES  # type: ignore[attr-defined]


def test_avro_through_the_interface_parses_compares_and_diffs() -> None:
    avro = schema_type("AVRO")
    v1 = avro.parse(record({"name": "id", "type": "long"}))
    v2 = avro.parse(record({"name": "id", "type": "long"}, {"name": "note", "type": "string"}))
    assert v1.schema_type == "AVRO"
    assert avro.parse(json.dumps(json.loads(v1.text), indent=4)).identity == v1.identity
    # a field without a default: the new schema cannot read the old data, the old reads the new
    assert not avro.reads(v2, v1) and avro.reads(v1, v2)
    found = avro.conflicts(v2, [(1, v1)], CompatibilityLevel.BACKWARD)
    assert [(c.version, c.incompatibility.kind.value) for c in found] == [
        (1, "READER_FIELD_MISSING_DEFAULT_VALUE")
    ]
    assert avro.conflicts(v2, [(1, v1)], "FORWARD") == []
    assert [c.path for c in avro.diff(v1, v2)] == ["Order.note"]
    assert json.loads(avro.readable(v2)) == json.loads(v2.identity)
    assert len(avro.readable(v2).splitlines()) > 1


def test_a_reference_s_named_types_are_known_to_the_schema_that_uses_them() -> None:
    avro = schema_type("AVRO")
    money = avro.parse(json.dumps({"type": "fixed", "name": "shop.Money", "size": 8}))
    order = avro.parse(record({"name": "total", "type": "shop.Money"}), [Reference("money", money)])
    assert order.fingerprint != money.fingerprint
    with pytest.raises(InvalidSchemaError):
        avro.parse(record({"name": "total", "type": "shop.Money"}))


def _avro_rules_used_outside() -> list[str]:
    found = []
    for part in ("api", "service", "storage", "schema_check", "ui"):
        for path in sorted((REGISTRY / part).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                module = node.module if isinstance(node, ast.ImportFrom) else None
                if module is not None and module.startswith("registry.compatibility"):
                    taken = {alias.name for alias in node.names}
                    if module != "registry.compatibility" or taken - SHARED:
                        found.append(f"{path.relative_to(REGISTRY)}: {module} {sorted(taken - SHARED)}")
    return found


def test_the_api_storage_check_and_page_ask_the_interface_not_avro_s_rules() -> None:
    assert _avro_rules_used_outside() == []
