"""The audit's pure parts: what a run records, and when a window counts as a mismatch."""

from __future__ import annotations

import json

from loader.audit import AuditReport, WindowAudit, audit_record


def test_audit_record_holds_each_topics_table_and_windows() -> None:
    record = json.loads(audit_record("r1", {"clicks": ("kafka.clicks", {"2026-11-23 04:10": 5})}))
    assert record == {
        "run_id": "r1",
        "topics": {"clicks": {"table": "kafka.clicks", "windows": {"2026-11-23 04:10": 5}}},
    }


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
