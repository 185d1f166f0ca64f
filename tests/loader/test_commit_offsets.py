"""What a run's commit saves of the offsets (`loader.run.commit`), on a real state directory: a topic
deleted and created again keeps none of its old offsets, a partition the new topic lacks included, and
a failed topic keeps the ones the last commit saved."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.outcome.report import RunReport, TopicReport
from loader.planning.commit_protocol import CommitLog, Manifest
from loader.planning.offsets import OffsetRange
from loader.planning.state_store import StateStore
from loader.run.commit import commit
from loader.run.plan import Plan

pytestmark = pytest.mark.integration

# Two topics of two partitions were saved; each is read again from partition 0 only.
SAVED = {("t", 0): 5, ("t", 1): 7, ("u", 0): 3, ("u", 1): 4}
PLANNED = [OffsetRange("t", 0, 0, 2), OffsetRange("u", 0, 3, 6)]


def committed(spark: SparkSession, root: Path, recreated: frozenset[str], t_status: str) -> Manifest:
    log = CommitLog(StateStore(spark, f"file://{root}"), add_partitions=lambda table, specs: None)
    last = Manifest(0, "", SAVED)
    report = RunReport(
        "r1", "2026-12-06T00:00:00Z", "db", [TopicReport("t", t_status), TopicReport("u", "loaded")]
    )
    planned = Plan(PLANNED, [], {"t": "id-2", "u": "id-u"}, recreated=recreated)
    commit(log, last, report, [], planned, {})
    assert report.committed
    return log.recover()


def test_a_recreated_topic_keeps_none_of_its_old_offsets(spark: SparkSession, tmp_path: Path) -> None:
    saved = committed(spark, tmp_path / "recreated", frozenset({"t"}), "loaded").offsets
    # t's partition 1 is the old topic's: gone; u's partition 1, not read this run, keeps its offset.
    assert saved == {("t", 0): 2, ("u", 0): 6, ("u", 1): 4}

    saved = committed(spark, tmp_path / "same", frozenset(), "loaded").offsets
    assert saved == {("t", 0): 2, ("t", 1): 7, ("u", 0): 6, ("u", 1): 4}


def test_a_failed_recreated_topic_keeps_what_the_last_commit_saved(
    spark: SparkSession, tmp_path: Path
) -> None:
    saved = committed(spark, tmp_path, frozenset({"t"}), "failed").offsets
    assert saved == {("t", 0): 5, ("t", 1): 7, ("u", 0): 6, ("u", 1): 4}
