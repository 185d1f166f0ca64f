"""The event-type rules: which subject strategy placed a schema id, the type it is, and its table."""

from __future__ import annotations

import json

import pytest

from loader.reading.event_lookup import SchemaLookup, schemas_signature
from loader.reading.event_types import (
    VALUE_TYPE,
    Placement,
    event_table,
    event_types,
    is_record_named,
    place,
    record_full_name,
    topic_record_subjects,
    types_signature,
)
from loader.reading.registry_client import RegistrySnapshot


def record(name: str, namespace: str | None = None) -> str:
    schema = {"type": "record", "name": name, "fields": [{"name": "n", "type": "long"}]}
    if namespace:
        schema["namespace"] = namespace
    return json.dumps(schema)


@pytest.mark.parametrize(
    ("schema", "full_name"),
    [
        (record("Click", "shop.web"), "shop.web.Click"),
        (record("shop.web.Click", "ignored"), "shop.web.Click"),  # a dotted name is already full
        (record("Click"), "Click"),
        (json.dumps("string"), None),
        (json.dumps({"type": "enum", "name": "E", "symbols": ["A"]}), None),
        ("not json", None),
    ],
)
def test_record_full_name(schema: str, full_name: str | None) -> None:
    assert record_full_name(schema) == full_name


def test_the_topics_own_value_subject_comes_first() -> None:
    placed = place("orders", 7, ["shop.Order", "orders-value", "orders-shop.Order"], "shop.Order")
    assert placed == Placement(7, VALUE_TYPE, "orders-value")


def test_topic_record_name_strategy_comes_before_record_name_strategy() -> None:
    assert place("orders", 7, ["shop.Buy", "orders-shop.Buy"], "shop.Buy") == Placement(
        7, "shop.Buy", "orders-shop.Buy"
    )
    assert place("orders", 8, ["shop.Buy"], "shop.Buy") == Placement(8, "shop.Buy", "shop.Buy")


def test_an_id_of_another_topics_subjects_is_not_placed_and_says_why() -> None:
    placed = place("orders", 9, ["payments-value", "payments-shop.Buy"], "shop.Buy")
    assert (placed.event_type, placed.subject) == (None, None)
    assert placed.reason == (
        "schema id 9 belongs to subject(s) payments-shop.Buy, payments-value, none of which places it in "
        "topic orders (by orders-value, orders-<record name> or <record name>)"
    )


def test_a_record_named_subject_of_another_record_is_not_placed() -> None:
    # Registered under `shop.Buy` but the writer schema is `shop.Sell`: no strategy names it so.
    assert place("orders", 3, ["shop.Buy"], "shop.Sell").event_type is None


def test_an_unknown_id_says_so() -> None:
    assert place("orders", 404, [], None).reason == "schema id 404 is unknown to the registry"


def test_event_types_group_ids_by_record_and_prefer_the_topics_own_subject() -> None:
    placements = [
        Placement(1, "shop.Click", "shop.Click"),
        Placement(2, "shop.Click", "shop.Click"),
        Placement(3, "shop.View", "shop.View"),
        Placement(4, "shop.View", "orders-shop.View"),
        Placement(5, VALUE_TYPE, "orders-value"),
        Placement(6, None, None, "unknown"),
    ]
    assert event_types(placements) == {"shop.Click": "shop.Click", "shop.View": "orders-shop.View"}
    # Types known from earlier runs stay; a new one joins them.
    assert event_types([Placement(7, "shop.Buy", "shop.Buy")], {"shop.Click": "shop.Click"}) == {
        "shop.Buy": "shop.Buy",
        "shop.Click": "shop.Click",
    }


@pytest.mark.parametrize(
    ("topic", "full_name", "table"),
    [
        ("orders", "shop.web.Click", "orders__click"),
        ("Shop.Events-v2", "com.example.OrderCreated", "shop_events_v2__ordercreated"),
        ("2024.audit", "Login", "t_2024_audit__login"),
    ],
)
def test_event_table_names_follow_the_topic_mapping(topic: str, full_name: str, table: str) -> None:
    assert event_table(topic, full_name) == table


def test_topic_record_subjects_and_record_named_subjects() -> None:
    subjects = ["orders-value", "orders-key", "orders-shop.Buy", "ordersx-shop.Buy", "shop.Click"]
    assert topic_record_subjects("orders", subjects) == ["orders-shop.Buy"]
    assert is_record_named("shop.Click", record("Click", "shop"))
    assert not is_record_named("orders-value", record("Click", "shop"))


def test_the_signature_changes_with_a_types_latest_schema() -> None:
    before = types_signature({"shop.Click": ("shop.Click", 4)})
    assert before == "; types shop.Click=shop.Click:4"
    assert types_signature({"shop.Click": ("shop.Click", 5)}) != before


def test_a_registry_snapshot_names_the_subjects_of_an_id() -> None:
    snapshot = RegistrySnapshot(
        writers={"shop.Click": {1: record("Click", "shop"), 3: "c3"}, "orders-shop.Click": {1: "x"}},
        latest={"shop.Click": (3, "c3"), "orders-shop.Click": (1, "x")},
    )
    assert snapshot.subjects_of(1) == ["orders-shop.Click", "shop.Click"]
    assert snapshot.subjects_of(2) == []
    assert snapshot.schema_text(3) == "c3"
    click = snapshot.schemas("shop.Click")
    assert click is not None and (click.latest_id, sorted(click.writer_schemas)) == (3, [1, 3])
    assert snapshot.schemas("nothing") is None


def test_a_lookup_over_a_snapshot_places_ids_and_signs_a_topics_types_without_requests() -> None:
    click_v1, click_v2 = record("Click", "shop"), record("Click", "shop").replace('"long"', '"int"')
    snapshot = RegistrySnapshot(
        writers={"shop.Click": {1: click_v1, 2: click_v2}, "orders-value": {3: record("Order", "shop")}},
        latest={"shop.Click": (2, click_v2), "orders-value": (3, record("Order", "shop"))},
    )
    # No registry client at all: everything comes from the snapshot.
    lookup = SchemaLookup(None, snapshot, set(snapshot.latest))  # type: ignore[arg-type]
    assert lookup.has_record_named_subjects()
    assert lookup.placement("orders", 1) == Placement(1, "shop.Click", "shop.Click")
    assert lookup.placement("orders", 3) == Placement(3, VALUE_TYPE, "orders-value")
    values = lookup.schemas("orders-value")
    assert schemas_signature(values, None, {}, lookup, "day") == "value 3, key -, day"  # as before types
    assert schemas_signature(values, None, {"shop.Click": "shop.Click"}, lookup, "day") == (
        "value 3, key -, day; types shop.Click=shop.Click:2"
    )
    no_record_named = RegistrySnapshot(
        {"orders-value": {3: "x"}}, {"orders-value": (3, record("Order", "shop"))}
    )
    assert not SchemaLookup(None, no_record_named, {"orders-value"}).has_record_named_subjects()  # type: ignore[arg-type]
