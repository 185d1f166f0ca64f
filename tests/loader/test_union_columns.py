"""A plain column whose union gains a type: which columns the table gets and where each value comes from,
decided without Spark (the end-to-end case is in test_schema_changes)."""

from __future__ import annotations

import pytest
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    DataType,
    DoubleType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
)

from loader.schema.table_evolution import UnrepresentableChange, plan_evolution
from loader.schema.union_columns import Pick, Shape, fit_unions

INT, LONG, DOUBLE, STRING, BYTES = IntegerType(), LongType(), DoubleType(), StringType(), BinaryType()


def cols(*fields: tuple[str, DataType]) -> StructType:
    return StructType([StructField(name, data_type, True) for name, data_type in fields])


def union(**members: DataType) -> StructType:
    return cols(*[(f"member_{name}", data_type) for name, data_type in members.items()])


def test_no_table_yet_takes_the_decoded_columns_as_they_are() -> None:
    latest = cols(("ref", union(string=STRING, long=LONG)))
    assert fit_unions(None, latest) == (latest, None)


def test_nothing_split_means_no_reshaping() -> None:
    current = cols(("id", LONG), ("ref", union(string=STRING, int=INT)))
    latest = cols(("id", LONG), ("ref", union(string=STRING, int=INT, long=LONG)), ("new", STRING))
    assert fit_unions(current, latest) == (latest, None)


def test_plain_column_keeps_its_type_and_each_new_type_gets_a_column() -> None:
    current = cols(("id", LONG), ("ref", STRING))
    latest = cols(("id", LONG), ("ref", union(string=STRING, long=LONG)))
    fitted, shape = fit_unions(current, latest)
    assert fitted == cols(("id", LONG), ("ref", STRING), ("ref_long", LONG))
    assert shape == Shape(
        "struct",
        (Pick("id", "id"), Pick("ref", "ref", "member_string"), Pick("ref_long", "ref", "member_long")),
    )
    # What the table must then do is only additions.
    assert [c.describe() for c in plan_evolution(current, fitted).changes] == ["added column ref_long bigint"]


def test_a_later_branch_adds_one_more_column_and_renames_nothing() -> None:
    current = cols(("ref", STRING), ("ref_long", LONG))
    latest = cols(("ref", union(string=STRING, long=LONG, double=DOUBLE)))
    fitted, shape = fit_unions(current, latest)
    assert fitted == cols(("ref", STRING), ("ref_long", LONG), ("ref_double", DOUBLE))
    assert shape is not None and [p.member for p in shape.picks] == [
        "member_string", "member_long", "member_double",
    ]  # fmt: skip


def test_the_column_keeps_the_member_it_widens_to() -> None:
    """int in the table, ["null","long","string"] now: the column widens to long and keeps its values."""
    fitted, shape = fit_unions(cols(("n", INT)), cols(("n", union(string=STRING, long=LONG))))
    assert fitted == cols(("n", LONG), ("n_string", STRING))
    assert shape is not None and shape.picks[0] == Pick("n", "n", "member_long")


def test_split_inside_a_record_inside_an_array() -> None:
    current = cols(("items", ArrayType(cols(("sku", STRING), ("ref", STRING)))))
    latest = cols(("items", ArrayType(cols(("sku", STRING), ("ref", union(string=STRING, long=LONG))))))
    fitted, shape = fit_unions(current, latest)
    assert fitted == cols(("items", ArrayType(cols(("sku", STRING), ("ref", STRING), ("ref_long", LONG)))))
    element = Shape(
        "struct",
        (Pick("sku", "sku"), Pick("ref", "ref", "member_string"), Pick("ref_long", "ref", "member_long")),
    )
    assert shape == Shape("struct", (Pick("items", "items", None, Shape("array", element=element)),))


def test_split_inside_a_map_of_records() -> None:
    current = cols(("attrs", MapType(STRING, cols(("v", STRING)))))
    latest = cols(("attrs", MapType(STRING, cols(("v", union(string=STRING, long=LONG))))))
    fitted, _ = fit_unions(current, latest)
    assert fitted == cols(("attrs", MapType(STRING, cols(("v", STRING), ("v_long", LONG)))))


def test_array_items_gaining_a_type_are_refused_with_a_remedy() -> None:
    with pytest.raises(UnrepresentableChange) as refused:
        fit_unions(
            cols(("tags", ArrayType(STRING))), cols(("tags", ArrayType(union(string=STRING, long=LONG))))
        )
    assert refused.value.path == "tags[]"
    assert "new table" in refused.value.remedy


def test_a_sibling_name_taken_by_another_field_is_refused() -> None:
    current = cols(("ref", STRING), ("ref_long", STRING))
    latest = cols(("ref", union(string=STRING, long=LONG)), ("ref_long", STRING))
    with pytest.raises(UnrepresentableChange) as refused:
        fit_unions(current, latest)
    assert refused.value.path == "ref"
    assert "ref_long" in refused.value.remedy


def test_a_column_no_member_can_be_read_from_is_refused() -> None:
    with pytest.raises(UnrepresentableChange) as refused:
        fit_unions(cols(("b", BYTES)), cols(("b", union(string=STRING, long=LONG))))
    assert "No type of the new union" in refused.value.remedy


def test_a_record_whose_fields_merely_look_like_members_is_not_a_union() -> None:
    """One `member_x` field is a record, not a union: spark-avro's unions have two members or more."""
    current = cols(("r", STRING))
    latest = cols(("r", cols(("member_x", STRING))))
    assert fit_unions(current, latest) == (latest, None)
