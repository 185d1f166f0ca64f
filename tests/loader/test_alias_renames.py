"""Which columns a schema change renames through Avro aliases, decided without Spark."""

from __future__ import annotations

import json
from typing import Any

from pyspark.sql.types import ArrayType, LongType, MapType, StringType, StructField, StructType

from loader.schema.alias_renames import Rename, field_aliases, implied_renames, renamed


def _struct(**types: Any) -> StructType:
    return StructType([StructField(name, t) for name, t in types.items()])


def _schema(fields: list[dict[str, Any]]) -> str:
    return json.dumps({"type": "record", "name": "R", "namespace": "com.example", "fields": fields})


def _renames(table: StructType, latest: StructType, fields: list[dict[str, Any]]) -> list[Rename]:
    typed = [{"type": "string", **f} for f in fields]
    return implied_renames(table, latest, field_aliases(_schema(typed)))


def test_an_alias_of_a_column_the_schema_no_longer_has_renames_it() -> None:
    table = _struct(id=LongType(), name=StringType())
    latest = _struct(id=LongType(), full_name=StringType())
    fields = [{"name": "id", "type": "long"}, {"name": "full_name", "type": "string", "aliases": ["name"]}]
    assert _renames(table, latest, fields) == [Rename("name", "full_name")]
    assert renamed(table, [Rename("name", "full_name")]) == _struct(id=LongType(), full_name=StringType())


def test_names_match_whatever_their_case() -> None:
    table = _struct(Name=StringType())
    latest = _struct(full_name=StringType())
    fields = [{"name": "full_name", "type": "string", "aliases": ["NAME"]}]
    assert _renames(table, latest, fields) == [Rename("Name", "full_name")]


def test_ambiguous_or_unfounded_aliases_rename_nothing() -> None:
    table = _struct(id=LongType(), name=StringType(), nick=StringType())
    # No alias: a new field beside the old column.
    assert _renames(table, _struct(id=LongType(), full_name=StringType()), [{"name": "full_name"}]) == []
    # The alias names a column the schema still has.
    still = [{"name": "full_name", "aliases": ["id"]}]
    assert _renames(table, _struct(id=LongType(), full_name=StringType()), still) == []
    # Two aliases name two columns the schema no longer has.
    two = [{"name": "full_name", "aliases": ["name", "nick"]}]
    assert _renames(table, _struct(id=LongType(), full_name=StringType()), two) == []
    # Two new fields claim the same column.
    claimed = [{"name": "first", "aliases": ["name"]}, {"name": "second", "aliases": ["name"]}]
    latest = _struct(id=LongType(), nick=StringType(), first=StringType(), second=StringType())
    assert _renames(table, latest, claimed) == []
    # The alias names no column of the table.
    assert _renames(table, _struct(id=LongType(), x=StringType()), [{"name": "x", "aliases": ["gone"]}]) == []


def test_renames_inside_records_arrays_and_maps() -> None:
    code = {"name": "code", "type": "string", "aliases": ["sku"]}
    item = {"type": "record", "name": "Item", "fields": [code]}
    fields = [
        {"name": "info", "type": {"type": "record", "name": "Info", "fields": [
            {"name": "city", "type": "string", "aliases": ["town"]}]}},
        {"name": "items", "type": {"type": "array", "items": item}},
        {"name": "by_id", "type": {"type": "map", "values": "Item"}},  # a reference to the named type
        {"name": "owner", "type": ["null", {"type": "record", "name": "Owner", "fields": [
            {"name": "handle", "type": "string", "aliases": ["login"]}]}], "default": None},
    ]  # fmt: skip
    table = _struct(
        info=_struct(town=StringType()),
        items=ArrayType(_struct(sku=StringType())),
        by_id=MapType(StringType(), _struct(sku=StringType())),
        owner=_struct(login=StringType()),
    )
    latest = _struct(
        info=_struct(city=StringType()),
        items=ArrayType(_struct(code=StringType())),
        by_id=MapType(StringType(), _struct(code=StringType())),
        owner=_struct(handle=StringType()),
    )
    renames = _renames(table, latest, fields)
    assert renames == [
        Rename("info.town", "city"),
        Rename("items[].sku", "code"),
        Rename("by_id{}.sku", "code"),
        Rename("owner.login", "handle"),
    ]
    assert renamed(table, renames) == latest


def test_a_renamed_record_is_followed_into_for_its_own_renames() -> None:
    city = {"name": "city", "type": "string", "aliases": ["town"]}
    place = {"type": "record", "name": "Place", "fields": [city]}
    fields = [{"name": "place", "aliases": ["address"], "type": place}]
    table = _struct(address=_struct(town=StringType()))
    latest = _struct(place=_struct(city=StringType()))
    assert _renames(table, latest, fields) == [Rename("address", "place"), Rename("address.town", "city")]
    assert renamed(table, _renames(table, latest, fields)) == latest
