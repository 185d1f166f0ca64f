"""Several small topics' passes in one query: one Kafka read of all their ranges, each topic's records
decoded and projected by its own columns of the query, and every table's rows written by one Spark job.

A small topic costs its query and its write job, not its records (docs/loader.md, "What a busy topic
costs"): sharing both cuts that cost, as long as the format can write several tables in one job
(`TableFormat.appends_groups`). Everything else is a topic's own pass (`loader.run.topic_pass`), whose rules
this one keeps: the same decoding, the same tables (made sure of one by one), the same staging and commit.

A topic's own trouble stays its own. One that cannot be made a table of fails alone, as in its own
pass; a group whose query fails is done again topic by topic; a topic with records that do not load
(quarantine, or event types not known before) is done again in a pass of its own, which knows what to do
with them. Only their staged files are thrown away: nothing is committed before the run's manifest.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from loader.formats import GROUP_MEMBER, GROUP_TIMESTAMP, group_rows_column
from loader.outcome.cause import classify, shared_by_every_topic
from loader.outcome.chain import exception_chain
from loader.outcome.fault_injection import crash_point
from loader.outcome.report import TopicReport
from loader.planning.commit_protocol import StagedTable
from loader.reading.decoding import (
    DecodedNames,
    Decoding,
    decoding_columns,
    expressions,
    is_good_sql,
    table_columns_of,
    user_fields,
)
from loader.reading.registry_client import SubjectSchemas
from loader.reading.sql_text import aliased, case_when, identifier, named_struct, string_literal
from loader.reading.topic_read import GroupCountedRead, ReadCounts, read_ranges
from loader.run.topic_pass import (
    describe_tables,
    group_member,
    load_topic,
    mark_failed,
    ready_table,
    require_no_clash,
    staging_directory,
)
from loader.run.work import RunContext, TopicWork
from loader.schema.table_evolution import TableState
from loader.schema.union_columns import Shape, reshaped_row

# The query's column that says which of the group's topics a record is of.
TOPIC_MEMBER = "__loader_topic_member"


@dataclass(frozen=True)
class _Member:
    """A topic of the group whose table is ready for its rows."""

    number: int  # its place among the group's topics (its columns' numbers)
    work: TopicWork
    state: TableState
    shape: Shape | None


def load_group(run: RunContext, group: list[TopicWork], reports: dict[str, TopicReport]) -> list[StagedTable]:
    """The group's topics loaded as their own passes would load them; never raises for a topic's
    trouble (see the module docstring)."""
    started = time.monotonic()
    try:
        staged = _load(run, group, reports)
    except Exception as exc:  # the query itself failed: each topic on its own finds whose trouble it is,
        failure = classify(exception_chain(exc), run.places)
        if failure is not None and shared_by_every_topic(failure):  # unless all of them meet it alike
            for work in group:
                if reports[work.topic].status != "failed":
                    mark_failed(reports[work.topic], work.topic, exc, run.places)
            staged = []
        else:
            left = [w for w in group if reports[w.topic].status != "failed"]
            staged = [s for w in left for s in _alone(run, w, reports)]
    seconds = round(time.monotonic() - started, 2)
    for work in group:
        reports[work.topic].seconds = max(reports[work.topic].seconds, seconds)
    return staged


def _load(run: RunContext, group: list[TopicWork], reports: dict[str, TopicReport]) -> list[StagedTable]:
    spark = run.small_topics_spark
    numbers = F.expr(case_when((f"`topic` = {string_literal(w.topic)}", str(i)) for i, w in enumerate(group)))
    raw = read_ranges(spark, run.read, [r for w in group for r in w.ranges])
    decodings = [
        decoding_columns(_values(w), w.keys, DecodedNames.numbered(i), framing_apart=True)
        for i, w in enumerate(group)
    ]
    # The header's schema id (every topic's alike) beside the member: one projection for both.
    identified = {"schema_id": F.expr(decodings[0].schema_id)}
    read = GroupCountedRead(raw, numbers, len(group), TOPIC_MEMBER, keyless=False, beside=identified)
    judged = _decoded(read.frame, decodings)
    every = _rows_of_every_topic(judged, decodings, group)
    members, alone = [], []
    for i, work in enumerate(group):
        try:
            require_no_clash(user_fields(judged, decodings[i].names.event))
            row_schema = every.schema[group_rows_column(i)].dataType
            assert isinstance(row_schema, StructType)
            state, shape = ready_table(run, work.table, _values(work), row_schema)
            held = run.tables.held_offsets(work.table, work.topic, work.topic_id)
        except Exception as exc:  # the topic's own trouble, as in its own pass
            mark_failed(reports[work.topic], work.topic, exc, run.places)
            continue
        if work.reads_any_of(held):  # its own pass skips the records its table holds already
            alone.append(work)
            continue
        describe_tables(reports[work.topic], [(work.table, state)], multi=False)
        members.append(_Member(i, work, state, shape))
    crash_point("after_table_ready")
    staged = _group_append(run, _rows(every, members, len(group)), read, members, reports) if members else []
    return staged + [s for work in alone for s in _alone(run, work, reports)]


def _group_append(
    run: RunContext,
    rows: DataFrame,
    read: GroupCountedRead,
    members: list[_Member],
    reports: dict[str, TopicReport],
) -> list[StagedTable]:
    """The members' rows written in one job, each kept once its counts add up (else its topic goes alone)."""
    staged: list[StagedTable] = []
    written = run.tables.append_group(
        rows,
        [group_member(run, m.work, m.work.table, m.state, reports[m.work.topic]) for m in members],
    )
    counts = read.counts()
    for member, appended in zip(members, written, strict=True):
        report = reports[member.work.topic]
        qualified = f"{run.database}.{member.work.table}"
        if not _account(report, counts[member.number], appended.rows, member.work, qualified):
            # Records that do not load: its own pass quarantines them (or finds their event types).
            appended.discard()
            staged += _alone(run, member.work, reports)
            continue
        try:
            kept = appended.keep()
        except Exception as exc:  # its table's commit (Iceberg's), the topic's own trouble
            mark_failed(report, member.work.topic, exc, run.places)
            continue
        if kept is not None:
            staged.append(kept)
    return [s for s in staged if s.files]


def _values(work: TopicWork) -> SubjectSchemas:
    assert work.values is not None, "a group holds topics of one event type (see topic_groups)"
    return work.values


def _of(member: int) -> str:
    """A record of the group's topic numbered `member`."""
    return f"{identifier(TOPIC_MEMBER)} = {member}"


def _decoded(identified: DataFrame, decodings: list[Decoding]) -> DataFrame:
    """Every topic's columns of `decode`: a topic's own computed only for its own topic's records, a
    shared one (see `DecodedNames`) by each record's own topic's rules. `identified` has the schema id."""
    decoding = {
        name: read.only_where(_of(i)).column()
        for i, d in enumerate(decodings)
        for name, read in d.decoding.items()
    }
    stage = identified.withColumns({**decoding, **expressions(_columns(decodings, "framing"))})
    return stage.withColumns(expressions(_columns(decodings, "judging")))


def _columns(decodings: list[Decoding], part: Literal["framing", "judging"]) -> dict[str, str]:
    """The topics' columns of one part of their decodings (SQL text by name): a topic's own for its
    records only, a shared one by each record's topic's text (one text when every topic's is alike)."""
    columns: dict[str, str] = {}
    shared: dict[str, dict[str, list[int]]] = {}  # name -> text -> the topics whose text it is
    for i, d in enumerate(decodings):
        for name, text in getattr(d, part).items():
            if d.names.shared(name):
                shared.setdefault(name, {}).setdefault(text, []).append(i)
            else:
                columns[name] = case_when([(_of(i), text)])
    for name, texts in shared.items():
        if len(texts) == 1:
            columns[name] = next(iter(texts))
        else:
            member = identifier(TOPIC_MEMBER)
            columns[name] = case_when((f"{member} IN ({_listed(t)})", text) for text, t in texts.items())
    return columns


def _listed(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def _rows_of_every_topic(judged: DataFrame, decodings: list[Decoding], group: list[TopicWork]) -> DataFrame:
    """Which topic's row a record is (NULL: none's: a bad record, or a tombstone skipped), its timestamp,
    and each topic's row as its own pass would write it, numbered as the group's topics are, in one
    projection. Its schema gives each topic's row type; a group whose topics all load as they are
    writes it as it is (see `_rows`). Nothing is filtered: a filter on the verdicts would be pushed below
    the decoding and decode every body twice (see `loader.reading.decoding.decode`)."""
    goods = [
        f"{_of(i)} AND {is_good_sql(w.skip_tombstones, d.names.bad_reason)}"
        for i, (w, d) in enumerate(zip(group, decodings, strict=True))
    ]
    rows = []
    for i, d in enumerate(decodings):
        columns = table_columns_of(user_fields(judged, d.names.event), d.names, d.has_key_schema)
        rows.append(aliased(case_when([(goods[i], named_struct(columns.items()))]), group_rows_column(i)))
    which = aliased(case_when((good, str(i)) for i, good in enumerate(goods)), GROUP_MEMBER)
    return judged.selectExpr(which, aliased("`timestamp`", GROUP_TIMESTAMP), *rows)


def _rows(every: DataFrame, members: list[_Member], topics: int) -> DataFrame:
    """The query the format writes: `every` itself when each of the group's topics is a member that
    takes its rows as they are; else the members' rows renumbered, each in the shape of its table."""
    if [m.number for m in members] == list(range(topics)) and all(m.shape is None for m in members):
        return every
    which = case_when((f"{identifier(GROUP_MEMBER)} = {m.number}", str(j)) for j, m in enumerate(members))
    rows = []
    for j, member in enumerate(members):
        row = F.col(group_rows_column(member.number))  # NULL unless the record is a row of its table
        if member.shape is not None:
            row = F.when(row.isNotNull(), reshaped_row(row, member.shape))
        rows.append(row.alias(group_rows_column(j)))
    return every.select(F.expr(which).alias(GROUP_MEMBER), GROUP_TIMESTAMP, *rows)


def _account(report: TopicReport, counts: ReadCounts, written: int, work: TopicWork, table: str) -> bool:
    """Fills the topic's report as its own pass would; False when some records it read did not load."""
    skipped = counts.tombstones if work.skip_tombstones else {}
    if sum(counts.records.values()) - written - sum(skipped.values()):
        return False
    report.windows, report.skipped_windows = counts.records, skipped
    report.newest_record = counts.newest
    report.tombstones = sum(counts.tombstones.values())
    report.tables = {table: written}
    report.records = written
    return True


def _alone(run: RunContext, work: TopicWork, reports: dict[str, TopicReport]) -> list[StagedTable]:
    """The topic's own pass, after what the group staged for it is thrown away; its report keeps what
    the group did to its table (the pass finds the table ready and would say `unchanged`)."""
    run.log.store.delete(staging_directory(run, work.table))
    report = reports[work.topic]
    action, changes = report.table_action, report.table_changes
    staged = load_topic(run, work, report)
    if report.status != "failed" and action not in (None, "unchanged"):
        report.table_action, report.table_changes = action, changes
    return staged
