"""Parsing Canonical Form, fingerprints and the identity form."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import avro.schema
import pytest

from registry.compatibility import InvalidSchemaError, parse_schema
from tests.registry.compatibility.generator import SchemaGenerator

PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


def has_reference(schema: Any) -> bool:
    """Whether a named type is used by name (the Python package's canonical form repeats those in full)."""
    if isinstance(schema, str):
        return schema not in PRIMITIVES
    if isinstance(schema, list):
        return any(has_reference(b) for b in schema)
    kind = schema["type"]
    if kind == "record":
        return any(has_reference(f["type"]) for f in schema["fields"])
    if kind == "array":
        return has_reference(schema["items"])
    if kind == "map":
        return has_reference(schema["values"])
    return False


def test_canonical_form_and_fingerprint_match_the_avro_package_on_generated_schemas() -> None:
    """Compared where the Python package follows the specification (see the two exclusions)."""
    generator = SchemaGenerator(seed=99)
    compared = 0
    while compared < 300:
        schema = generator.schema()
        # Deviations of the Python package: it repeats a named type in full where it is used by name
        # (the spec and Java write the full name), and keeps a logical-typed primitive as an object
        # ({"type": "bytes"}) where PRIMITIVES and STRIP make it "bytes".
        if has_reference(schema) or "logicalType" in json.dumps(schema):
            continue
        compared += 1
        theirs = avro.schema.parse(json.dumps(schema))
        ours = parse_schema(json.dumps(schema))
        assert ours.canonical == theirs.canonical_form
        assert ours.rabin_fingerprint == int.from_bytes(theirs.fingerprint("CRC-64-AVRO"), "little")
        assert ours.fingerprint == hashlib.sha256(theirs.canonical_form.encode()).hexdigest()


@pytest.mark.parametrize(
    ("schema", "rabin"),
    [('"int"', 8247732601305521295), ('"null"', 7195948357588979594)],
)
def test_rabin_fingerprint_of_the_specification_test_vectors(schema: str, rabin: int) -> None:
    assert parse_schema(schema).rabin_fingerprint == rabin


def test_logical_types_are_stripped_to_the_bare_primitive() -> None:
    text = json.dumps(
        [
            "null",
            {"type": "bytes", "logicalType": "decimal", "precision": 4},
            {"type": "int", "logicalType": "date"},
        ]
    )
    assert parse_schema(text).canonical == '["null","bytes","int"]'


def test_a_named_type_is_written_in_full_once_then_by_full_name() -> None:
    text = json.dumps(
        {
            "type": "record",
            "name": "A",
            "namespace": "x",
            "fields": [
                {"name": "f", "type": {"type": "fixed", "name": "F", "size": 3}},
                {"name": "g", "type": "F"},
                {"name": "h", "type": {"type": "fixed", "name": "y.G", "size": 1}},
            ],
        }
    )
    assert parse_schema(text).canonical == (
        '{"name":"x.A","type":"record","fields":[{"name":"f","type":{"name":"x.F","type":"fixed","size":3}},'
        '{"name":"g","type":"x.F"},{"name":"h","type":{"name":"y.G","type":"fixed","size":1}}]}'
    )


BASE: dict[str, Any] = {
    "type": "record",
    "name": "A",
    "namespace": "x",
    "fields": [
        {"name": "f", "type": "long", "default": 0},
        {"name": "g", "type": {"type": "enum", "name": "E", "symbols": ["S", "T"]}},
    ],
}


def variant(change: str) -> dict[str, Any]:
    out = copy.deepcopy(BASE)
    f, g = out["fields"]
    if change == "default":
        f["default"] = 1
    elif change == "no-default":
        del f["default"]
    elif change == "logical-type":
        f["type"] = {"type": "long", "logicalType": "timestamp-millis"}
    elif change == "doc":
        out["doc"] = "explained"
    elif change == "field-doc":
        f["doc"] = "explained"
    elif change == "aliases":
        out["aliases"] = ["Old"]
    elif change == "field-aliases":
        f["aliases"] = ["old_f"]
    elif change == "order":
        f["order"] = "descending"
    elif change == "custom-property":
        f["pii"] = True
    elif change == "enum-default":
        g["type"]["default"] = "T"
    return out


MEANINGFUL = [
    "default",
    "no-default",
    "logical-type",
    "doc",
    "field-doc",
    "aliases",
    "field-aliases",
    "order",
]
MEANINGFUL += ["custom-property", "enum-default"]


@pytest.mark.parametrize("change", MEANINGFUL)
def test_identity_form_keeps_what_pcf_drops(change: str) -> None:
    base, changed = parse_schema(json.dumps(BASE)), parse_schema(json.dumps(variant(change)))
    assert changed.canonical == base.canonical
    assert changed.fingerprint == base.fingerprint
    assert changed.identity != base.identity


SPELLINGS: list[tuple[str, Any]] = [
    ("whitespace", json.dumps(BASE, indent=4)),
    ("key-order", json.dumps(dict(reversed(list(BASE.items()))))),
    ("dotted-name", json.dumps({**{k: v for k, v in BASE.items() if k != "namespace"}, "name": "x.A"})),
    (
        "object-primitive",
        json.dumps({**BASE, "fields": [{**BASE["fields"][0], "type": {"type": "long"}}, BASE["fields"][1]]}),
    ),
    (
        "explicit-ascending-order",
        json.dumps({**BASE, "fields": [{**BASE["fields"][0], "order": "ascending"}, BASE["fields"][1]]}),
    ),
]


@pytest.mark.parametrize(("name", "text"), SPELLINGS, ids=[s[0] for s in SPELLINGS])
def test_identity_form_ignores_spelling(name: str, text: str) -> None:
    assert parse_schema(text).identity == parse_schema(json.dumps(BASE)).identity


def test_identity_form_text() -> None:
    text = json.dumps(
        {
            "type": "record",
            "name": "A",
            "namespace": "x",
            "doc": "d",
            "aliases": ["B"],
            "fields": [
                {
                    "name": "f",
                    "type": {"type": "long", "logicalType": "timestamp-millis"},
                    "default": 0,
                    "order": "descending",
                    "x-custom": {"b": 1, "a": [2]},
                },
                {"name": "g", "type": {"type": "enum", "name": "E", "symbols": ["S"], "default": "S"}},
                {"name": "h", "type": "E"},
            ],
        }
    )
    parsed = parse_schema(text)
    assert parsed.identity == (
        '{"name":"x.A","type":"record","fields":[{"name":"f","type":{"type":"long","logicalType":"timestamp-millis"},'
        '"default":0,"order":"descending","x-custom":{"a":[2],"b":1}},'
        '{"name":"g","type":{"name":"x.E","type":"enum","symbols":["S"],"default":"S"}},'
        '{"name":"h","type":"x.E"}],"aliases":["x.B"],"doc":"d"}'
    )
    assert parsed.canonical == (
        '{"name":"x.A","type":"record","fields":[{"name":"f","type":"long"},'
        '{"name":"g","type":{"name":"x.E","type":"enum","symbols":["S"]}},{"name":"h","type":"x.E"}]}'
    )


def test_parsed_schema_keeps_text_and_json_and_names_the_top_level_type() -> None:
    text = ' {"type": "fixed", "name": "F", "namespace": "n", "size": 2} '
    parsed = parse_schema(text)
    assert parsed.text == text
    assert parsed.json == {"type": "fixed", "name": "F", "namespace": "n", "size": 2}
    assert parsed.name == "n.F"
    assert parse_schema('"string"').name is None
    assert parse_schema({"type": "array", "items": "int"}).json == {"type": "array", "items": "int"}
    assert parse_schema(["null", "int"]).canonical == '["null","int"]'


def test_parsed_schemas_compare_by_content() -> None:
    assert parse_schema('"int"') == parse_schema('"int"')
    assert parse_schema('"int"') != parse_schema('{"type": "int"}')  # the text differs
    assert hash(parse_schema('"int"')) == hash(parse_schema('"int"'))
    assert (
        len(
            {
                parse_schema('{"type": "map", "values": "int"}'),
                parse_schema('{"type": "map", "values": "int"}'),
            }
        )
        == 1
    )


def test_identity_form_parses_back_to_itself() -> None:
    generator = SchemaGenerator(seed=5)
    checked = 0
    while checked < 400:
        old = generator.schema()
        _, new = generator.evolve(copy.deepcopy(old))
        for schema in (old, new):
            try:
                parsed = parse_schema(json.dumps(schema))
            except InvalidSchemaError:
                continue
            checked += 1
            again = parse_schema(parsed.identity)
            assert (again.identity, again.canonical) == (parsed.identity, parsed.canonical)


def test_identity_form_keeps_a_null_namespace_type_out_of_the_enclosing_namespace() -> None:
    inner = {"type": "enum", "name": "E", "namespace": "", "symbols": ["A"]}
    parsed = parse_schema(
        json.dumps({"type": "record", "name": "x.R", "fields": [{"name": "e", "type": inner}]})
    )
    assert parsed.identity == (
        '{"name":"x.R","type":"record","fields":[{"name":"e","type":'
        '{"name":"E","type":"enum","symbols":["A"],"namespace":""}}]}'
    )
    assert parse_schema(parsed.identity).root.fields[0].type.name == "E"
