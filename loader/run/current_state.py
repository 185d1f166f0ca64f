"""Before the passes: which planned topics get a current-state table, and its name (the decisions are
`loader.schema.current_state`'s). One request asks Kafka which topics are compacted; a Debezium change
envelope is recognised from the topic's latest value schema. A format that keeps no current-state tables
(Hive) gets none, and the run says once which topics would have had one. A user Kafka does not let describe
topic settings (no DescribeConfigs ACL) does not stop the run: the topics the patterns and the envelopes
choose still get their tables, and the run says once for which topics compaction was not checked. The
tables are checked as the run's others are (`TableFormat.prepare`) before any pass writes them."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from loader import printed
from loader.outcome.report import TopicReport
from loader.reading.kafka_metadata import CleanupPolicies
from loader.run.work import RunContext, TableClaim, TopicWork
from loader.schema.change_envelope import is_change_envelope
from loader.schema.current_state import current_state_topics, current_table_names, unchecked_compaction


class Printer(Protocol):
    def print(self, text: str) -> None: ...


def with_current_state(
    run: RunContext, work: list[TopicWork], reports: dict[str, TopicReport], console: Printer
) -> list[TopicWork]:
    """`work` with each current-state topic's table named; a name that is another topic's table is a note
    of the topic's report, and that topic keeps its history table only."""
    policy = run.current_state
    # Only a topic of one `<topic>-value` type: its rows are the ones a current-state table holds.
    candidates = [w for w in work if w.single_type]
    if not candidates:
        return work
    topics = [w.topic for w in candidates]
    refusal = run.tables.current_state_refusal()
    # A format that keeps no current-state tables asks Kafka nothing (no DescribeConfigs ACL needed): it
    # names only the topics the patterns and the Debezium envelopes choose.
    policies = CleanupPolicies(set(), {}) if refusal else run.kafka.compacted_topics_allowed(topics)
    if policies.refused:
        said = unchecked_compaction(policies.refused)
        printed.note(console, said)
        for topic in policies.refused:
            if topic in reports:
                reports[topic].notes.append(said)
    envelopes = {
        w.topic for w in candidates if w.values is not None and is_change_envelope(w.values.latest_schema)
    }
    chosen = current_state_topics(topics, policies.compacted, envelopes, policy.include, policy.exclude)
    if not chosen:
        return work
    if refusal:
        printed.note(console, f"{', '.join(sorted(chosen))}: {refusal}")
        return work
    tables = {owner.topic: table for table, owner in run.claims.items() if owner.history}
    tables.update({w.topic: w.table for w in work})
    names, collisions = current_table_names(tables, chosen)
    for collision in collisions:
        for topic in collision.topics:
            if topic in reports and topic in chosen:
                reports[topic].notes.append(f"no current-state table: {collision}")
    if names:  # the run's checks of its tables (mixed formats, outside the warehouse) cover these too
        run.tables.prepare(sorted(names.values()))
    with run.tables.lock:
        for topic, name in names.items():
            run.claims.setdefault(name, TableClaim(topic, current_state=True))
    return [
        replace(w, current_table=names[w.topic], envelope=w.topic in envelopes) if w.topic in names else w
        for w in work
    ]
