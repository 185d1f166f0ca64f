"""Avro defaults as the SQL values old rows read in a column added later, decided without Spark."""

from __future__ import annotations

import json

import pytest
from pyspark.sql.types import LongType, StringType, StructField, StructType

from loader.schema.column_defaults import (
    EXISTS_DEFAULT,
    Default,
    existence_defaults,
    field_defaults,
    sql_literal,
    without_existence_defaults,
)
from loader.schema.table_evolution import plan_evolution


@pytest.mark.parametrize(
    ("avro_type", "value", "literal"),
    [
        ("string", "unknown", "'unknown'"),
        ("string", "it's a \\ path", "'it\\'s a \\\\ path'"),
        ({"type": "enum", "name": "E", "symbols": ["A", "B"]}, "B", "'B'"),
        ("boolean", False, "FALSE"),
        ("int", 7, "CAST(7 AS INT)"),
        ("long", -2, "CAST(-2 AS BIGINT)"),
        ("double", 0.5, "CAST(0.5 AS DOUBLE)"),
        (["string", "null"], "x", "'x'"),  # a union's default belongs to the first branch it matches
        (["null", "string"], None, None),  # NULL anyway
        (["null", "string"], "x", "'x'"),  # Avro 1.12: a later branch may hold the default
        (["null", {"type": "enum", "name": "E", "symbols": ["A"]}, "string"], "B", "'B'"),  # not a symbol
        (["int", "long"], 2**40, f"CAST({2**40} AS BIGINT)"),  # too large for the int branch
        (["null", "double"], 1, "CAST(1 AS DOUBLE)"),
        (["null", {"type": "record", "name": "R", "fields": []}], {}, None),  # no literal for a record
        ({"type": "long", "logicalType": "timestamp-millis"}, 0, None),  # no exact literal: NULL
        ("bytes", "\u00ff", None),
        ({"type": "array", "items": "int"}, [], None),
        ("int", True, None),  # a boolean is not an int default
    ],
)
def test_sql_literal(avro_type: object, value: object, literal: str | None) -> None:
    assert sql_literal(avro_type, value) == literal


def test_only_fields_with_a_carried_default_are_listed() -> None:
    schema = {
        "type": "record",
        "name": "R",
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "country", "type": "string", "default": "unknown"},
            {"name": "ref", "type": ["null", "string"], "default": None},
        ],
    }
    assert existence_defaults(json.dumps(schema)) == {"country": "'unknown'"}


def test_defaults_of_nested_fields_are_found_by_the_column_path_they_have() -> None:
    """What an Iceberg table gives the columns it adds as `initial-default`, nested ones included."""
    item = {"type": "record", "name": "Item", "fields": [{"name": "price", "type": "double", "default": 0}]}
    schema = {
        "type": "record",
        "name": "R",
        "fields": [
            {"name": "n", "type": "long", "default": 2**40},
            {"name": "on", "type": "boolean", "default": True},
            {"name": "items", "type": {"type": "array", "items": item}},
            {"name": "by_id", "type": {"type": "map", "values": "Item"}},
            {"name": "ctx", "type": ["null", {"type": "record", "name": "Ctx", "fields": [
                {"name": "src", "type": "string", "default": "web"},
                {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}, "default": 0},
            ]}], "default": None},
        ],
    }  # fmt: skip
    assert field_defaults(json.dumps(schema)) == {
        "n": Default("long", 2**40),
        "on": Default("boolean", True),
        "items[].price": Default("double", 0),
        "by_id{}.price": Default("double", 0),
        "ctx.src": Default("string", "web"),
    }


def test_the_default_stays_with_the_column_and_leaves_it_when_the_field_is_removed() -> None:
    """The existence default is what rows from before the column read: set when the column is added,
    kept when the schema's default changes later, dropped when the field is removed (new files lack
    the column and must read NULL)."""
    added = {"comment": "where", EXISTS_DEFAULT: "'unknown'"}
    table = StructType([StructField("id", LongType()), StructField("country", StringType(), True, added)])
    changed = StructType(
        [StructField("id", LongType()), StructField("country", StringType(), True, {EXISTS_DEFAULT: "'n/a'"})]
    )
    assert plan_evolution(table, changed).schema["country"].metadata == {EXISTS_DEFAULT: "'unknown'"}
    removed = plan_evolution(table, StructType([StructField("id", LongType())]))
    assert removed.schema["country"].metadata == {"comment": "where"}


def test_a_new_tables_columns_keep_their_comments_and_leave_out_existence_defaults() -> None:
    """A column made with its table has no rows from before it to give a default to."""
    columns = StructType(
        [
            StructField("id", LongType(), False),
            StructField("country", StringType(), True, {"comment": "where", EXISTS_DEFAULT: "'unknown'"}),
            StructField("deleted", StringType(), True, {EXISTS_DEFAULT: "FALSE"}),
        ]
    )
    made = without_existence_defaults(columns)
    assert [(f.name, f.dataType, f.nullable) for f in made.fields] == [
        (f.name, f.dataType, f.nullable) for f in columns.fields
    ]
    assert [f.metadata for f in made.fields] == [{}, {"comment": "where"}, {}]
