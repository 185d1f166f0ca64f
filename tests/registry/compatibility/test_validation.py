"""Every reason a schema is refused, with the exact pointer and message a user sees."""

from __future__ import annotations

import inspect
import json
import sys

import pytest

from registry.compatibility import InvalidSchemaError, SchemaProblem, check_reader_writer, parse_schema

NAME_RULE = 'must start with a letter or "_" and contain only letters, digits and "_"'
INT_RULE = "expected an int (integer from -2147483648 to 2147483647)"


def record_with(field: dict) -> str:
    return json.dumps({"type": "record", "name": "A", "fields": [field]})


INVALID: list[tuple[str, str, list[tuple[str, str]]]] = [
    # structure
    (
        "unknown-type",
        '"Foo"',
        [("", 'unknown type "Foo" (named types must be defined before they are used)')],
    ),
    ("missing-type", '{"name": "x"}', [("", 'a schema object needs a "type"')]),
    (
        "type-is-object",
        '{"type": {"type": "int"}}',
        [("/type", '"type" must be a type name string here, not object')],
    ),
    (
        "number-as-schema",
        "42",
        [("", "a schema must be a type name, an object or a union array, not number")],
    ),
    ("record-without-fields", '{"type": "record", "name": "A"}', [("", 'the record\'s "fields" is missing')]),
    (
        "fields-not-array",
        '{"type": "record", "name": "A", "fields": {}}',
        [("/fields", 'the record\'s "fields" must be an array, not object')],
    ),
    (
        "field-not-object",
        '{"type": "record", "name": "A", "fields": ["int"]}',
        [("/fields/0", "a field must be an object, not string")],
    ),
    ("field-without-type", record_with({"name": "x"}), [("/fields/0", 'the field "x" needs a "type"')]),
    ("field-without-name", record_with({"type": "int"}), [("/fields/0", 'a field needs a "name" string')]),
    (
        "bad-order",
        record_with({"name": "a", "type": "int", "order": "up"}),
        [("/fields/0/order", '"order" must be "ascending", "descending" or "ignore"')],
    ),
    (
        "fixed-negative-size",
        '{"type": "fixed", "name": "F", "size": -1}',
        [("/size", 'a fixed needs a "size", a non-negative integer')],
    ),
    (
        "fixed-without-size",
        '{"type": "fixed", "name": "F"}',
        [("", 'a fixed needs a "size", a non-negative integer')],
    ),
    (
        "fixed-boolean-size",
        '{"type": "fixed", "name": "F", "size": true}',
        [("/size", 'a fixed needs a "size", a non-negative integer')],
    ),
    ("array-without-items", '{"type": "array"}', [("", 'an array needs "items"')]),
    ("map-without-values", '{"type": "map"}', [("", 'a map needs "values"')]),
    (
        "enum-without-symbols",
        '{"type": "enum", "name": "E"}',
        [("", 'an enum needs "symbols", an array of strings')],
    ),
    # names
    (
        "bad-name",
        '{"type": "record", "name": "1A", "fields": []}',
        [("/name", f'"1A" is not a valid name: each part {NAME_RULE}')],
    ),
    (
        "bad-namespace",
        '{"type": "record", "name": "A", "namespace": "a..b", "fields": []}',
        [("/name", f'"a..b.A" is not a valid name: each part {NAME_RULE}')],
    ),
    (
        "namespace-not-string",
        '{"type": "fixed", "name": "F", "namespace": 3, "size": 1}',
        [("/namespace", '"namespace" must be a string')],
    ),
    ("missing-name", '{"type": "enum", "symbols": ["A"]}', [("", 'the enum\'s "name" is missing')]),
    (
        "name-not-string",
        '{"type": "enum", "name": 5, "symbols": ["A"]}',
        [("/name", 'the enum\'s "name" must be a string, not number')],
    ),
    (
        "named-after-primitive",
        '{"type": "fixed", "name": "int", "size": 1}',
        [("/name", 'a fixed cannot be named after the primitive type "int"')],
    ),
    (
        "duplicate-field",
        '{"type": "record", "name": "A", "fields": '
        '[{"name": "x", "type": "int"}, {"name": "x", "type": "long"}]}',
        [("/fields/1/name", 'duplicate field name "x" (also field 0)')],
    ),
    (
        "duplicate-named-type",
        record_with({"name": "x", "type": {"type": "fixed", "name": "A", "size": 1}}),
        [("/fields/0/type/name", 'the name "A" is already defined')],
    ),
    (
        "field-name-with-dot",
        record_with({"name": "a.b", "type": "int"}),
        [("/fields/0/name", f'the field name "a.b" is not valid: it {NAME_RULE}')],
    ),
    (
        "duplicate-symbol",
        '{"type": "enum", "name": "E", "symbols": ["A", "B", "A"]}',
        [("/symbols/2", 'duplicate enum symbol "A" (also symbol 0)')],
    ),
    (
        "bad-symbol",
        '{"type": "enum", "name": "E", "symbols": ["A", "b-c"]}',
        [("/symbols/1", f'the symbol "b-c" is not valid: it {NAME_RULE}')],
    ),
    (
        "aliases-not-array",
        '{"type": "record", "name": "A", "aliases": "B", "fields": []}',
        [("/aliases", '"aliases" must be an array of strings')],
    ),
    (
        "bad-alias",
        '{"type": "record", "name": "A", "aliases": ["1B"], "fields": []}',
        [("/aliases/0", f'the alias "1B" is not a valid name: it {NAME_RULE}')],
    ),
    # unions
    (
        "union-duplicate",
        '["null", "string", "null"]',
        [("/2", "the union already has a branch of type null (branch 0)")],
    ),
    ("union-nested", '["null", ["int"]]', [("/1", "a union cannot directly contain another union")]),
    (
        "union-duplicate-named",
        '[{"type": "fixed", "name": "F", "size": 1}, "F"]',
        [("/1", 'the union already has a branch of type fixed "F" (branch 0)')],
    ),
    (
        "union-duplicate-through-logical-type",
        '["int", {"type": "int", "logicalType": "date"}]',
        [("/1", "the union already has a branch of type int (branch 0)")],
    ),
    # several problems at once, in document order
    (
        "several-problems",
        '{"type": "record", "name": "A", "fields": '
        '[{"name": "x", "type": "Nope"}, {"name": "x", "type": "int", "default": "s"}]}',
        [
            ("/fields/0/type", 'unknown type "Nope" (named types must be defined before they are used)'),
            ("/fields/1/name", 'duplicate field name "x" (also field 0)'),
            ("/fields/1/default", f'the default "s" does not match the type: {INT_RULE}, got "s"'),
        ],
    ),
]


@pytest.mark.parametrize(("name", "text", "expected"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_schemas_report_every_problem_with_a_pointer(name: str, text: str, expected: list) -> None:
    with pytest.raises(InvalidSchemaError) as caught:
        parse_schema(text)
    assert [(p.pointer, p.message) for p in caught.value.problems] == expected
    assert all(p.line is None and p.column is None for p in caught.value.problems)


def test_json_syntax_error_gives_line_and_column() -> None:
    with pytest.raises(InvalidSchemaError) as caught:
        parse_schema('{"type": "record",\n "name": "A", "fields": [}')
    assert caught.value.problems == [
        SchemaProblem("", "the schema is not valid JSON: Expecting value", 2, 26)
    ]
    assert (
        str(caught.value)
        == "Invalid schema: line 2, column 26: the schema is not valid JSON: Expecting value"
    )


def test_empty_text_is_a_json_error() -> None:
    with pytest.raises(InvalidSchemaError) as caught:
        parse_schema("")
    assert caught.value.problems == [SchemaProblem("", "the schema is not valid JSON: Expecting value", 1, 1)]


def test_nan_is_not_json() -> None:
    with pytest.raises(InvalidSchemaError) as caught:
        parse_schema(
            record_with({"name": "x", "type": "double"}).replace('"double"}', '"double", "default": NaN}')
        )
    assert [p.message for p in caught.value.problems] == [
        "the schema is not valid JSON: NaN is not a JSON value"
    ]


def test_a_source_of_another_python_type_is_refused_clearly() -> None:
    with pytest.raises(InvalidSchemaError) as caught:
        parse_schema(42)  # type: ignore[arg-type]
    assert (
        str(caught.value) == "Invalid schema: /: a schema must be JSON text, an object or an array, not int"
    )


def test_several_problems_read_as_a_list() -> None:
    with pytest.raises(InvalidSchemaError) as caught:
        parse_schema('["null", "null", "Nope"]')
    assert str(caught.value) == (
        "Invalid schema (2 problems):\n"
        "  - /1: the union already has a branch of type null (branch 0)\n"
        '  - /2: unknown type "Nope" (named types must be defined before they are used)'
    )
    assert isinstance(caught.value, ValueError)


def test_absurd_nesting_is_refused_not_crashed() -> None:
    text = '{"type": "array", "items": ' * 5000 + '"int"' + "}" * 5000
    with pytest.raises(InvalidSchemaError) as caught:
        parse_schema(text)
    assert [p.message for p in caught.value.problems] == ["the schema is nested too deeply"]


VALID = [
    ("primitive-object", '{"type": "string", "doc": "x"}'),
    ("empty-union", "[]"),
    (
        "decimal-on-fixed-at-limit",
        '{"type": "fixed", "name": "D", "size": 2, "logicalType": "decimal", "precision": 4}',
    ),
    ("decimal-default-scale", '{"type": "bytes", "logicalType": "decimal", "precision": 1}'),
    ("unknown-logical-type-is-kept", '{"type": "string", "logicalType": "my-custom-type"}'),
    ("uuid-on-fixed-16", '{"type": "fixed", "name": "U", "size": 16, "logicalType": "uuid"}'),
    ("bytes-default-latin1", record_with({"name": "x", "type": "bytes", "default": "\u00ff\u0000"})),
    (
        "record-default-uses-field-defaults",
        record_with(
            {
                "name": "x",
                "type": {
                    "type": "record",
                    "name": "B",
                    "fields": [{"name": "y", "type": "int", "default": 1}],
                },
                "default": {},
            }
        ),
    ),
    ("error-type-is-a-record", '{"type": "error", "name": "Oops", "fields": []}'),
    (
        "name-with-namespace-in-name-wins",
        '{"type": "fixed", "name": "a.F", "namespace": "b..bad", "size": 1}',
    ),
    ("null-default-on-nullable-first", record_with({"name": "x", "type": ["null", "int"], "default": None})),
    ("integer-default-for-double", record_with({"name": "x", "type": "double", "default": 1})),
    # Avro 1.12: a union's default may match any branch, not only the first
    (
        "union-default-in-a-later-branch",
        record_with({"name": "x", "type": ["null", "string"], "default": "a"}),
    ),
    (
        "null-default-on-nullable-last",
        record_with({"name": "x", "type": ["string", "null"], "default": None}),
    ),
    (
        "nested-union-default-in-a-later-branch",
        record_with(
            {
                "name": "x",
                "type": {"type": "record", "name": "In", "fields": [{"name": "y", "type": ["null", "long"]}]},
                "default": {"y": 5},
            }
        ),
    ),
]


@pytest.mark.parametrize(
    ("name", "text"),
    VALID,
    ids=[v[0] for v in VALID],
)
def test_valid_schemas_are_accepted(name: str, text: str) -> None:
    assert parse_schema(text).json == json.loads(text)


def test_unqualified_reference_falls_back_to_the_null_namespace_like_java() -> None:
    text = json.dumps(
        [
            {"type": "fixed", "name": "C", "size": 1},
            {"type": "record", "name": "a.B", "fields": [{"name": "c", "type": "C"}]},
        ]
    )
    parsed = parse_schema(text)
    assert (
        parsed.canonical == '[{"name":"C","type":"fixed","size":1},'
        '{"name":"a.B","type":"record","fields":[{"name":"c","type":"C"}]}]'
    )


def test_references_to_named_types_of_other_schemas() -> None:
    address = parse_schema(
        '{"type": "record", "name": "Address", "namespace": "com.x", '
        '"fields": [{"name": "city", "type": "string"}]}'
    )
    person = (
        '{"type": "record", "name": "Person", "namespace": "com.x", '
        '"fields": [{"name": "home", "type": "Address"}]}'
    )
    with pytest.raises(InvalidSchemaError):
        parse_schema(person)
    for named in ({"com.x.Address": address}, [address]):
        parsed = parse_schema(person, named_types=named)
        assert parsed.name == "com.x.Person"
        assert parsed.canonical == (
            '{"name":"com.x.Person","type":"record","fields":[{"name":"home","type":'
            '{"name":"com.x.Address","type":"record","fields":[{"name":"city","type":"string"}]}}]}'
        )


def test_comparing_schemas_deeper_than_the_stack_allows_is_an_error_not_a_crash() -> None:
    deep: object = "int"
    for _ in range(150):
        deep = {"type": "array", "items": deep}
    schema = parse_schema(json.dumps(deep))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 100)
    try:
        with pytest.raises(InvalidSchemaError) as caught:
            check_reader_writer(schema, schema)
    finally:
        sys.setrecursionlimit(limit)
    assert [p.message for p in caught.value.problems] == ["the schemas are nested too deeply to compare"]
    assert check_reader_writer(schema, schema) == []
