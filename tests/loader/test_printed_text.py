"""Text from outside (an error, a path, an address, a topic, a note) reaches people as it is, through
every path the loader prints it by, never read as Rich markup: `[/127.0.0.1]` (in an AWS SDK error) is no
closing tag, `[bold]` no style. The registry's CLI: tests/registry/test_cli_database.py."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from rich.console import Console

from loader import printed
from loader.formats.maintenance import PartitionAction
from loader.operations import audit, maintain, status
from loader.operations.maintain import MaintainReport
from loader.outcome.report import RunReport, TopicReport, render

# What the AWS SDK says of a store that does not answer, and text that looks like a style.
OUTSIDE = "Connect to 127.0.0.1:9000 [/127.0.0.1] failed: [bold]Connection refused[/bold] [/x]"


def shown(draw: Callable[[Console], None]) -> str:
    """What `draw` prints, as people see it, on one line per line however long (wide enough)."""
    out = io.StringIO()
    draw(Console(file=out, width=1000, color_system=None))
    return out.getvalue()


@pytest.mark.parametrize("say", [printed.note, printed.error, printed.not_started])
def test_a_labelled_line_prints_its_text_as_it_is(say: Callable[[Console, object], None]) -> None:
    said = shown(lambda console: say(console, RuntimeError(OUTSIDE)))
    assert OUTSIDE in said
    assert said.split(":", 1)[0] in ("note", "error", "not started")  # the label's markup, applied


def test_a_run_s_report_prints_its_error_and_each_topic_s_reason_notes_and_table_changes() -> None:
    topic = TopicReport(
        "orders",
        "failed",
        table="lake.orders",
        reason=OUTSIDE,
        notes=[f"note {OUTSIDE}"],
        table_action="evolved",
        table_changes=[f"change {OUTSIDE}"],
    )
    report = RunReport("run-1", "2026-12-06T10:00:00+00:00", "lake", [topic], exit_code=1, error=OUTSIDE)
    said = shown(lambda console: render(report, console))
    assert f"failed: {OUTSIDE}; note {OUTSIDE}" in said
    assert f"evolved (change {OUTSIDE})" in said
    assert f"error: {OUTSIDE}" in said


def test_maintain_s_report_prints_its_error_and_each_action_s_detail() -> None:
    action = PartitionAction("lake.orders", f"dt={OUTSIDE}", "failed", detail=OUTSIDE)
    report = MaintainReport("run-1", "lake", [action], error=OUTSIDE, tables=1)
    said = shown(lambda console: maintain.render(report, console))
    assert f"dt={OUTSIDE}" in said and f"| {OUTSIDE}" in said.replace("│", "|")
    assert f"error: {OUTSIDE}" in said


def test_the_audit_prints_what_could_not_be_read_and_the_runs_notes() -> None:
    report = audit.AuditReport("lake", notes={"orders": [OUTSIDE]}, unreadable={"lake.orders": OUTSIDE})
    said = shown(lambda console: audit.render(report, console))
    assert f"lake.orders could not be read: {OUTSIDE}" in said
    assert f"orders: {OUTSIDE}" in said


def test_status_prints_its_state_addresses_and_notes() -> None:
    topic = status.TopicStatus("orders", ["lake.orders"], 1, 3, 4, 1, notes=[OUTSIDE])
    report = status.StatusReport(f"s3://state/{OUTSIDE}", "never", "c1", "c0", OUTSIDE, OUTSIDE, [topic])
    said = shown(lambda console: status.render(report, console))
    flat = " ".join(said.split())  # the title and the caption wrap at the table's width
    assert f"loader state s3://state/{OUTSIDE}, last load never, Kafka cluster c1" in flat
    assert "(the saved offsets are of cluster c0)" in flat
    assert f"Kafka {OUTSIDE}; registry {OUTSIDE}" in flat
    assert f"│ {OUTSIDE} │" in said  # the topic's note, in its row
