"""The run's last step: its manifest, then the commit point (see `loader.planning.commit_protocol`).
Topics that did not fail advance their offsets and record their topic ids and, if their pass made sure of
their table, its schemas; a failed topic keeps what the last commit saved. The run's audit record is staged
to be moved into place by the same commit as its data."""

from __future__ import annotations

from loader.outcome.report import RunReport
from loader.planning.audit_files import TopicRecord, audit_path, audit_record
from loader.planning.commit_protocol import CommitLog, CompletionPending, Manifest, StagedTable
from loader.run.plan import Plan


def commit(
    log: CommitLog,
    last: Manifest,
    report: RunReport,
    staged: list[StagedTable],
    planned: Plan,
    looked_at: dict[str, dict[int, int]],
) -> None:
    """Commits the run (nothing when it changes nothing); `report.committed` says whether it did."""
    # A topic whose pass found nothing it can load keeps its offsets too.
    failed = {t.topic for t in report.topics if t.status in ("failed", "skipped")}
    offsets = {tp: o for tp, o in last.offsets.items() if tp[0] not in planned.recreated - failed}
    offsets.update({(r.topic, r.partition): r.end for r in planned.ranges if r.topic not in failed})
    topic_ids = {**last.topic_ids, **{t: i for t, i in planned.topic_ids.items() if t not in failed}}
    table_schemas = {
        **last.table_schemas,
        **{w.topic: planned.signatures[w.topic] for w in planned.work if w.topic not in failed},
    }
    event_types = {
        **last.event_types,
        **{t.topic: t.event_types for t in report.topics if t.event_types and t.topic not in failed},
    }
    looked_at = {t: o for t, o in {**last.looked_at, **looked_at}.items() if t not in event_types}
    cluster_id = report.cluster_id
    unchanged = (last.cluster_id, last.topic_ids, last.table_schemas, last.event_types, last.looked_at) == (
        cluster_id,
        topic_ids,
        table_schemas,
        event_types,
        looked_at,
    )
    if offsets == last.offsets and not staged and unchanged:
        return
    manifest = Manifest(
        last.seq + 1,
        report.run_id,
        offsets,
        staged,
        _stage_audit(log, report),
        cluster_id=cluster_id,
        topic_ids=topic_ids,
        table_schemas=table_schemas,
        event_types=event_types,
        looked_at=looked_at,
    )
    try:
        log.commit(manifest)
    except CompletionPending:  # past the commit point: the next run completes it
        report.committed = True
        raise
    report.committed = True


def _stage_audit(log: CommitLog, report: RunReport) -> list[tuple[str, str]]:
    """The run's audit record, staged to be moved into place by the same commit as its data."""
    counts = {
        t.topic: TopicRecord(
            t.table or "", t.windows, t.skipped_windows, t.notes, sorted(t.tables) if t.event_types else []
        )
        for t in report.topics
        if t.status in ("loaded", "up to date") and (t.windows or t.notes)
    }
    if not counts:
        return []
    staged = f"{log.staging_dir(report.run_id)}/audit.json"
    log.store.write_text(staged, audit_record(report.run_id, counts), overwrite=True)
    return [(staged, audit_path(log.store, report.run_id))]
