"""The pure decisions of current-state tables: which topics, their names, their rows, Debezium's
envelope."""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from loader.outcome.report import RunReport, TopicReport, render
from loader.schema.change_envelope import is_change_envelope
from loader.schema.current_state import (
    KeyedChange,
    change_action,
    current_rows,
    current_state_topics,
    current_table_names,
    unchecked_compaction,
)


def _envelope(after: object = "Value", op: object = "string", source: object | None = None) -> dict:
    value = {"type": "record", "name": "Value", "fields": [{"name": "id", "type": "int"}]}
    return {
        "type": "record",
        "name": "Envelope",
        "namespace": "dbserver1.inventory.customers",
        "fields": [
            {"name": "before", "type": ["null", value], "default": None},
            {"name": "after", "type": ["null", after], "default": None},
            {
                "name": "source",
                "type": source
                or {"type": "record", "name": "Source", "namespace": "io.debezium", "fields": []},
            },
            {"name": "op", "type": op},
            {"name": "ts_ms", "type": ["null", "long"], "default": None},
        ],
    }


def test_debeziums_envelope_is_recognised_by_reference_or_inline_and_as_text() -> None:
    assert is_change_envelope(_envelope())
    assert is_change_envelope(json.dumps(_envelope()))
    inline = {"type": "record", "name": "Value", "fields": [{"name": "id", "type": "int"}]}
    assert is_change_envelope(_envelope(after=inline))
    assert is_change_envelope(_envelope(after="dbserver1.inventory.customers.Value"))
    assert is_change_envelope(_envelope(op={"type": "string", "connect.version": 1}))


def test_what_is_not_an_envelope() -> None:
    assert not is_change_envelope(_envelope(after="Other"))  # before and after of different types
    assert not is_change_envelope(_envelope(after="string"))
    assert not is_change_envelope(_envelope(op="int"))
    assert not is_change_envelope(_envelope(source="string"))
    missing_op = _envelope()
    missing_op["fields"] = [f for f in missing_op["fields"] if f["name"] != "op"]
    assert not is_change_envelope(missing_op)
    assert not is_change_envelope('"string"')
    assert not is_change_envelope({"type": "record", "name": "R", "fields": []})


def test_which_topics_get_a_current_state_table() -> None:
    topics = ["accounts", "clicks", "db.customers", "flags", "audit.flags"]
    chosen = current_state_topics(topics, compacted={"accounts", "audit.flags"}, envelopes={"db.customers"})
    assert chosen == {"accounts", "audit.flags", "db.customers"}
    added = current_state_topics(topics, {"accounts"}, set(), include="flags|clicks")
    assert added == {"accounts", "flags", "clicks"}
    removed = current_state_topics(topics, {"accounts", "audit.flags"}, {"db.customers"}, exclude=".*flags")
    assert removed == {"accounts", "db.customers"}
    # The removal wins over the addition, and patterns match whole names.
    assert current_state_topics(topics, set(), set(), include="flags", exclude="flags") == set()
    assert current_state_topics(topics, set(), set(), include="flag") == set()


def test_names_and_their_collisions() -> None:
    tables = {"accounts": "accounts", "accounts.current": "accounts_current", "flags": "flags"}
    names, collisions = current_table_names(tables, {"accounts", "flags", "gone"})
    assert names == {"flags": "flags_current"}
    [collision] = collisions
    assert collision.table == "accounts_current"
    assert collision.topics == ["accounts", "accounts.current"]


def test_tombstones_and_debeziums_operations() -> None:
    assert change_action(tombstone=True) == "delete"
    assert change_action(tombstone=False) == "upsert"
    assert [change_action(False, op, envelope=True) for op in ("c", "u", "r", "d", "t", None)] == [
        "upsert",
        "upsert",
        "upsert",
        "delete",
        "ignore",
        "ignore",
    ]
    assert change_action(True, "c", envelope=True) == "delete"  # Debezium's tombstone after a delete


def test_the_highest_offset_of_a_key_wins_whatever_the_order_read() -> None:
    changes = [
        KeyedChange("a", 0, 5, "upsert", "a5"),
        KeyedChange("a", 0, 9, "upsert", "a9"),
        KeyedChange("a", 0, 7, "delete"),
        KeyedChange("b", 1, 3, "upsert", "b3"),
        KeyedChange("b", 1, 4, "delete"),
        KeyedChange("c", 1, 1, "delete"),
        KeyedChange(None, 0, 10, "upsert", "lost"),
        KeyedChange("d", 0, 11, "ignore"),
    ]
    before = {"b": "b0", "c": "c0", "d": "d0"}
    assert current_rows(changes, before) == {"a": "a9", "d": "d0"}
    assert current_rows(reversed(changes), before) == {"a": "a9", "d": "d0"}
    assert before == {"b": "b0", "c": "c0", "d": "d0"}  # the rows before are not changed in place


def test_hive_refuses_current_state_tables_and_says_to_use_iceberg() -> None:
    from pyspark.sql.types import StructType

    from loader.formats.hive import HiveFormat

    hive = HiveFormat(None, None, "day", "run", "/w")  # type: ignore[arg-type]  # what it refuses needs neither
    refusal = hive.current_state_refusal()
    assert refusal is not None and "--table-format iceberg" in refusal and "row-level" in refusal
    with pytest.raises(ValueError, match="use --table-format iceberg"):
        hive.ensure_current("accounts_current", StructType([]))


def test_the_note_of_unchecked_compaction_names_the_topics_the_refusal_and_the_acl() -> None:
    said = unchecked_compaction({"b": "TOPIC_AUTHORIZATION_FAILED", "a": "TOPIC_AUTHORIZATION_FAILED"})
    assert said == (
        "compaction not checked for topic(s) a, b: Kafka refused to describe their settings "
        "(TOPIC_AUTHORIZATION_FAILED); grant the user a DESCRIBE_CONFIGS ACL on them for compacted topics "
        "to get a current-state table (those chosen by current-state-topics or by a Debezium envelope "
        "still get one)"
    )


def _rendered(report: RunReport) -> list[list[str]]:
    console = Console(record=True, width=400)
    render(report, console)
    lines = [line.replace("┃", "│") for line in console.export_text().splitlines()]
    return [[cell.strip() for cell in line.split("│")[1:-1]] for line in lines if "│" in line]


def test_the_printed_report_shows_records_without_a_key_only_when_there_are_some() -> None:
    keyed = TopicReport("accounts", "loaded", "accounts", records=4)
    flags = TopicReport("flags", "loaded", "flags", records=5, no_key=2)
    header, *rows = _rendered(RunReport("r", "now", "kafka", [keyed, flags]))
    column = header.index("no key")
    assert {row[0]: row[column] for row in rows} == {"accounts": "0", "flags": "2"}
    header, *_ = _rendered(RunReport("r", "now", "kafka", [keyed]))
    assert "no key" not in header
    assert json.loads(RunReport("r", "now", "kafka", [flags]).to_json())["topics"][0]["no_key"] == 2
