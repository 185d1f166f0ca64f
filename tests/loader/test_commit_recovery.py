"""Recovery runs the check its caller asks for (the job's claim of its database, a metastore call) once
before it completes a committed run, and not at all when no committed run is left to complete: a quiet
run's recovery touches nothing but the state directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.planning.commit_protocol import CommitLog, Manifest, StagedTable
from loader.planning.state_store import StateStore

pytestmark = pytest.mark.integration


def test_the_check_runs_once_before_committed_runs_are_completed_and_never_when_none_is_left(
    spark: SparkSession, tmp_path: Path
) -> None:
    store = StateStore(spark, f"file://{tmp_path}/state")
    events: list[object] = []
    log = CommitLog(store, add_partitions=lambda table, specs: events.append(("partitions", table)))

    assert log.recover(before_completing=lambda: events.append("check")) == Manifest(0, "", {})
    assert events == []  # nothing ever committed

    store.mkdirs(log.commits_dir)
    for seq in (1, 2):  # two committed runs a crash left incomplete: manifests without their marker
        staged = StagedTable(f"db.t{seq}", [], [{"dt": "2026-11-26"}])
        manifest = Manifest(seq, f"r{seq}", {("t", 0): seq}, tables=[staged])
        store.write_text(f"{log.commits_dir}/{seq:012d}.json", manifest.to_json())

    last = log.recover(before_completing=lambda: events.append("check"))

    assert last.seq == 2
    assert events == ["check", ("partitions", "db.t1"), ("partitions", "db.t2")]
    events.clear()
    assert log.recover(before_completing=lambda: events.append("check")).seq == 2
    assert events == []  # both completed: the next recovery has nothing to check for
