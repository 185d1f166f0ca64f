"""The table-evolution plan: what each schema change does to the table's columns, decided without Spark."""

from __future__ import annotations

import pytest
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DataType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
)

from loader.schema.table_evolution import ColumnChange, UnrepresentableChange, plan_evolution

INT, LONG, FLOAT, DOUBLE = IntegerType(), LongType(), FloatType(), DoubleType()
STRING, BYTES, BOOL = StringType(), BinaryType(), BooleanType()


def cols(*fields: tuple[str, DataType]) -> StructType:
    return StructType([StructField(name, data_type, True) for name, data_type in fields])


def test_identical_schema_changes_nothing() -> None:
    plan = plan_evolution(cols(("id", LONG), ("url", STRING)), cols(("id", LONG), ("url", STRING)))
    assert plan.changes == []
    assert not plan.needs_alter
    assert plan.schema == cols(("id", LONG), ("url", STRING))


def test_added_top_level_field_is_appended() -> None:
    plan = plan_evolution(
        cols(("id", LONG), ("url", STRING)), cols(("id", LONG), ("referrer", STRING), ("url", STRING))
    )
    assert plan.schema == cols(("id", LONG), ("url", STRING), ("referrer", STRING))
    assert plan.changes == [ColumnChange("added", "referrer", new_type="string")]
    assert plan.needs_alter


def test_columns_are_matched_by_name_not_position() -> None:
    plan = plan_evolution(cols(("a", INT), ("b", STRING)), cols(("b", STRING), ("a", INT)))
    assert plan.schema == cols(("a", INT), ("b", STRING))
    assert plan.changes == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (INT, LONG),
        (INT, FLOAT),
        (INT, DOUBLE),
        (LONG, FLOAT),
        (LONG, DOUBLE),
        (FLOAT, DOUBLE),
        (STRING, BYTES),
    ],
)
def test_avro_promotions_widen_the_column(old: DataType, new: DataType) -> None:
    plan = plan_evolution(cols(("c", old)), cols(("c", new)))
    assert plan.schema == cols(("c", new))
    assert plan.changes == [ColumnChange("widened", "c", old.simpleString(), new.simpleString())]
    assert plan.needs_alter


def test_removed_field_keeps_its_column() -> None:
    plan = plan_evolution(cols(("id", LONG), ("legacy", STRING)), cols(("id", LONG)))
    assert plan.schema == cols(("id", LONG), ("legacy", STRING))
    assert plan.changes == [ColumnChange("kept_removed", "legacy", old_type="string")]
    assert not plan.needs_alter


def test_field_added_inside_record_array_and_map() -> None:
    current = cols(
        ("info", cols(("a", INT))),
        ("items", ArrayType(cols(("sku", STRING)))),
        ("attrs", MapType(STRING, cols(("v", STRING)))),
    )
    latest = cols(
        ("info", cols(("a", LONG), ("b", STRING))),
        ("items", ArrayType(cols(("sku", STRING), ("qty", INT)))),
        ("attrs", MapType(STRING, cols(("v", STRING), ("seen", BOOL)))),
    )
    plan = plan_evolution(current, latest)
    assert plan.schema == latest
    assert [change.describe() for change in plan.changes] == [
        "widened column info.a int -> bigint",
        "added column info.b string",
        "added column items[].qty int",
        "added column attrs{}.seen boolean",
    ]


def test_field_comment_follows_the_latest_schema() -> None:
    current = StructType([StructField("id", LONG, True)])
    latest = StructType([StructField("id", LONG, True, {"comment": "member id"})])
    assert plan_evolution(current, latest).schema["id"].metadata == {"comment": "member id"}


@pytest.mark.parametrize(
    ("old", "new", "remedy"),
    [
        (LONG, INT, "new field name"),
        (STRING, LONG, "new field name"),
        (BYTES, STRING, "hex text"),
        (cols(("a", INT)), STRING, "new field name"),
        (MapType(STRING, INT), MapType(INT, INT), "new field name"),
        (DOUBLE, FLOAT, "new field name"),
    ],
)
def test_unrepresentable_changes_are_refused_with_the_field_and_remedy(
    old: DataType, new: DataType, remedy: str
) -> None:
    with pytest.raises(UnrepresentableChange) as refused:
        plan_evolution(cols(("id", LONG), ("c", old)), cols(("id", LONG), ("c", new)))
    assert refused.value.path == "c"
    assert f"column c is {old.simpleString()} in the table but {new.simpleString()}" in str(refused.value)
    assert remedy in str(refused.value)


def test_union_struct_gaining_a_member_adds_a_field() -> None:
    old = cols(("ref", cols(("member_string", STRING), ("member_int", INT))))
    new = cols(("ref", cols(("member_string", STRING), ("member_int", INT), ("member_long", LONG))))
    plan = plan_evolution(old, new)
    assert plan.schema == new
    assert plan.changes == [ColumnChange("added", "ref.member_long", new_type="bigint")]


def test_nested_refusal_names_the_nested_path() -> None:
    with pytest.raises(UnrepresentableChange) as refused:
        plan_evolution(
            cols(("items", ArrayType(cols(("price", DOUBLE))))),
            cols(("items", ArrayType(cols(("price", STRING))))),
        )
    assert refused.value.path == "items[].price"
    assert refused.value.old_type == "double"
    assert refused.value.new_type == "string"
