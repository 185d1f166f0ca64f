"""The audit's pure parts: what a run records, and when a window counts as a mismatch."""

from __future__ import annotations

import json

from loader.operations.audit import AuditReport, WindowAudit
from loader.planning.audit_files import TopicRecord, audit_record


def test_audit_record_holds_each_topics_table_and_windows() -> None:
    record = json.loads(audit_record("r1", {"clicks": TopicRecord("kafka.clicks", {"2026-11-23 04:10": 5})}))
    assert record == {
        "run_id": "r1",
        "topics": {"clicks": {"table": "kafka.clicks", "windows": {"2026-11-23 04:10": 5}}},
    }


def test_audit_record_keeps_the_tombstones_the_setting_did_not_load() -> None:
    record = json.loads(audit_record("r1", {"c": TopicRecord("kafka.c", {"w1": 5, "w2": 2}, {"w1": 2})}))
    assert record["topics"]["c"] == {"table": "kafka.c", "windows": {"w1": 5, "w2": 2}, "skipped": {"w1": 2}}


def test_audit_record_keeps_the_notes_on_a_topics_offsets() -> None:
    note = "recreated: offsets restarted at 0 (saved 300)"
    record = json.loads(audit_record("r1", {"c": TopicRecord("kafka.c", {}, notes=[note])}))
    assert record["topics"]["c"] == {"table": "kafka.c", "windows": {}, "notes": [note]}


def test_audit_record_of_a_topic_of_several_event_types_names_their_tables() -> None:
    tables = ["kafka.shop__buy", "kafka.shop__click"]
    record = json.loads(audit_record("r1", {"shop": TopicRecord("", {"w1": 3}, tables=tables)}))
    assert record["topics"]["shop"] == {"table": "", "windows": {"w1": 3}, "tables": tables}


def test_a_window_matches_when_table_plus_quarantine_equal_kafka() -> None:
    report = AuditReport(
        "kafka",
        [
            WindowAudit("clicks", "kafka.clicks", "2026-11-23 04:10", kafka=5, table_rows=4, quarantined=1),
            WindowAudit("clicks", "kafka.clicks", "2026-11-23 04:20", kafka=5, table_rows=3, quarantined=1),
            WindowAudit("clicks", "kafka.clicks", "2026-11-23 04:30", kafka=0, table_rows=1, quarantined=0),
        ],
    )
    assert [w.window for w in report.mismatches] == ["2026-11-23 04:20", "2026-11-23 04:30"]
    data = json.loads(report.to_json())
    assert data["ok"] is False
    assert [w["ok"] for w in data["windows"]] == [True, False, False]
    assert [w["difference"] for w in data["windows"]] == [0, -1, 1]


def test_skipped_tombstones_count_towards_kafka_like_rows() -> None:
    window = WindowAudit("c", "kafka.c", "w", kafka=5, table_rows=2, quarantined=1, skipped=2)
    assert window.ok
    assert not WindowAudit("c", "kafka.c", "w", kafka=5, table_rows=2, quarantined=1, skipped=1).ok


def test_a_table_that_cannot_be_read_fails_the_audit_without_windows() -> None:
    missing = {"kafka.clicks": "File file:/w/kafka.db/clicks/x.parquet does not exist"}
    report = AuditReport("kafka", unreadable=missing)
    assert not report.mismatches and not report.ok
    data = json.loads(report.to_json())
    assert data["ok"] is False
    assert data["unreadable"] == missing
    assert AuditReport("kafka").ok
