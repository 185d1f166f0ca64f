"""One topic's pass in a run: read its ranges, decode and project every record, make sure the table can
hold the rows, and stage them, in one Spark job; bad records go to the quarantine in a second, rare one.

A pass never raises for the topic's own trouble: it marks the topic failed in its report, and the run
leaves that topic's offsets where they were.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, replace
from functools import reduce

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from loader.formats import (
    GROUP_MEMBER,
    GROUP_TIMESTAMP,
    Append,
    CurrentMerge,
    GroupMember,
    already_held,
    group_rows_column,
)
from loader.outcome.cause import Places, classify
from loader.outcome.chain import exception_chain
from loader.outcome.fault_injection import crash_point
from loader.outcome.message import where
from loader.outcome.report import TopicReport
from loader.outcome.trace import log_trace
from loader.planning.commit_protocol import StagedTable
from loader.planning.current_seed import partitions_behind, seed_ranges
from loader.planning.freshness import valid_through_property
from loader.reading.decoding import (
    KAFKA_COLUMNS,
    METADATA_COLUMNS,
    METADATA_DEFAULTS,
    bad_rows,
    column_comments,
    counted_for_writing,
    decode,
    found_messages,
    framed_schema_ids,
    good_rows,
    is_good,
    of_schema_ids,
    rows_to_write,
    table_columns,
    user_fields,
    value_is_message_sql,
    with_reasons_by_id,
)
from loader.reading.event_types import VALUE_TYPE, Placement, event_table, event_types
from loader.reading.kafka_access import java_refusal
from loader.reading.registry_client import SubjectSchemas, describe_foreign_id
from loader.reading.sql_text import named_struct
from loader.reading.topic_read import CountedRead, observed_metrics, read_ranges
from loader.run.work import QUARANTINE_TABLE, RunContext, TableClaim, TopicWork
from loader.schema.column_defaults import existence_defaults, with_column_metadata
from loader.schema.current_state import NO_KEY
from loader.schema.table_evolution import TableState, UnrepresentableChange
from loader.schema.union_columns import Shape, fit_unions, reshape, reshaped_row

# At most this many distinct foreign schema ids per topic and run are looked up in the registry to say
# whose they are; a flood of garbage ids keeps the generic reason beyond it.
MAX_ID_LOOKUPS = 50
# A topic without a `<topic>-value` subject is looked at for record-named event types in this many of its
# first new offsets per partition (see `_discover`).
DISCOVERY_OFFSETS = 1000


def load_topic(run: RunContext, work: TopicWork, report: TopicReport) -> list[StagedTable]:
    started = time.monotonic()
    try:
        return _load(run, work, report)
    except Exception as exc:  # one topic's failure must not stop the others
        mark_failed(report, work.topic, exc, run.places)
        return []
    finally:
        report.seconds = round(time.monotonic() - started, 2)


def mark_failed(report: TopicReport, topic: str, exc: Exception, places: Places | None = None) -> None:
    """The topic failed, with a reason that says why in a line: the dependency that failed and the cause,
    when the error's chain names them (the stack trace goes to the log, at debug level)."""
    report.status = "failed"
    log_trace(f"topic {topic} failed", exc)
    if isinstance(exc, UnrepresentableChange | ValueError):
        report.reason = f"{topic}: {exc}"
        return
    refused = java_refusal(str(exc))  # Spark's Kafka source names a refusal in its stack trace
    failure = classify(exception_chain(exc), places) if places is not None and not refused else None
    report.failure = failure
    if failure is not None and places is not None:
        said = f"{where(failure.dependency, places, failure.path)}: {failure.cause} ({failure.detail})"
        report.reason = f"{topic}: {said}"
        return
    report.reason = f"{topic}: " + (refused or f"{type(exc).__name__}: {str(exc).splitlines()[0][:500]}")


@dataclass(frozen=True)
class Target:
    """One table a topic's pass writes: the rows of one event type's schema ids."""

    event_type: str  # a record full name, or VALUE_TYPE
    table: str  # unqualified
    schemas: SubjectSchemas  # what its rows are decoded with and projected onto
    ids: tuple[int, ...] | None  # None: every record of the topic (a topic of one type, as always)
    tombstones: bool  # the topic's tombstones are rows of this table
    # Of those ids, only the records where this holds (SQL text): a Protobuf message's, when the topic's
    # `<topic>-value` file has several messages with records (each message is an event type).
    where: str | None = None

    def rows_of(self, raw: DataFrame) -> DataFrame:
        if self.ids is None:
            return raw
        chosen = of_schema_ids(self.ids, self.tombstones)
        if self.where is not None:
            chosen &= F.expr(self.where) | F.col("value").isNull() if self.tombstones else F.expr(self.where)
        return raw.where(chosen)


def _load(run: RunContext, work: TopicWork, report: TopicReport) -> list[StagedTable]:
    if work.values is None and not work.event_types:
        work = replace(work, event_types=_discover(run, work))
        if not work.event_types:
            report.status, report.table = "skipped", None
            report.reason = f"no schema registered for subject {work.topic}-value"
            report.notes.append(
                f"no schema id in its first {DISCOVERY_OFFSETS} new offsets per partition belongs to a "
                f"subject named by record ({work.topic}-<record name> or <record name>)"
            )
            return []
    made: dict[str, TableState] = {}  # what an earlier pass of this run did to a table, when it did anything
    while True:
        targets = _targets(run, work)
        staged, foreign = _write(run, work, targets, report, made)
        placements = [run.lookup.placement(work.topic, i) for i in foreign]
        found = event_types(placements, work.event_types) | _found_messages(run, work, report)
        if found == work.event_types:
            break
        # Records of event types not known before (rare: a type's first records): done again with them.
        _discard(run, targets)
        work = replace(work, event_types=found)
    report.event_types = dict(work.event_types)
    if report.quarantined:
        staged.append(_stage_quarantine(run, work, targets, placements))
    return [s for s in staged if s is not None and s.files]


def _discover(run: RunContext, work: TopicWork) -> dict[str, str]:
    """The record-named event types among the schema ids of a topic that has no `<topic>-value` subject:
    in its first new offsets per partition not looked into by an earlier run, so that a topic that
    carries none (not Avro, or of another registry) costs a run at most a small read."""
    sample = []
    for r in work.ranges:
        looked = work.looked_at.get(r.partition, r.start)
        start = looked if r.start <= looked <= r.end else r.start
        sample.append(replace(r, start=start, end=min(r.end, start + DISCOVERY_OFFSETS)))
    sample = [r for r in sample if r.span]
    if not sample:
        return {}
    ids = framed_schema_ids(read_ranges(run.spark, run.read, sample), (), MAX_ID_LOOKUPS)
    found = event_types(run.lookup.placement(work.topic, i) for i in ids)
    if not found:
        run.looked_at[work.topic] = {**work.looked_at, **{r.partition: r.end for r in sample}}
    return found


def _found_messages(run: RunContext, work: TopicWork, report: TopicReport) -> dict[str, str]:
    """The other messages of a Protobuf `<topic>-value` file whose records the pass left over (they are
    quarantined as not the table's message): each becomes an event type of the topic, its table of its
    own. Only messages the latest file still has: a record of one it no longer has stays quarantined."""
    values = work.values
    if not report.quarantined or values is None or len(values.message_tables) < 2:
        return {}
    known = {values.message, *work.event_types}
    raw = read_ranges(run.spark, run.read, work.ranges)
    found = found_messages(raw, values, known, MAX_ID_LOOKUPS)
    return {name: values.subject for name in found if name in values.message_tables}


def _message_types(work: TopicWork) -> list[str]:
    """The event types that are other messages of the topic's Protobuf `<topic>-value` file."""
    values = work.values
    return [n for n, s in work.event_types.items() if values is not None and s == values.subject]


def _targets(run: RunContext, work: TopicWork) -> list[Target]:
    """The `<topic>-value` records into the topic's table; each record-named type into its own, and
    each other message of a Protobuf `<topic>-value` file into its own. Each schema id is one target's
    (the first to hold it), or each (id, message) pair, so that no record is loaded twice."""
    if not work.event_types:
        assert work.values is not None
        return [Target(VALUE_TYPE, work.table, work.values, None, True)]
    targets = []
    held: set[int] = set()
    messages = _message_types(work)
    if work.values is not None:
        held = set(work.values.writer_schemas)
        where = f"NOT {value_is_message_sql(work.values, messages)}" if messages else None
        targets.append(Target(VALUE_TYPE, work.table, work.values, tuple(sorted(held)), True, where))
    for name, subject in work.event_types.items():
        table = event_table(work.topic, name)
        if name in messages:
            _claim(run, work, name, table)
            assert work.values is not None
            message = value_is_message_sql(work.values, [name])
            ids = tuple(sorted(work.values.writer_schemas))
            targets.append(Target(name, table, work.values.of_message(name), ids, False, message))
            continue
        schemas = _type_schemas(run, name, subject)
        _claim(run, work, name, table)
        ids = tuple(sorted(set(schemas.writer_schemas) - held))
        held.update(ids)
        # A tombstone has no schema id, so no event type: only a `<topic>-value` table takes them.
        targets.append(Target(name, table, schemas, ids, False))
    return targets


def _claim(run: RunContext, work: TopicWork, name: str, table: str) -> None:
    """Event type `name`'s table is this topic's; refused when another topic or type loads into it."""
    owner = TableClaim(work.topic, event_type=name)
    with run.tables.lock:
        claimed = run.claims.setdefault(table, owner)
    if claimed != owner:
        raise ValueError(
            f"event type {name} maps to table '{table}', which {claimed} loads into; none of the "
            "topic is loaded. Rename the record or the topic, or exclude one of the topics"
        )


def _type_schemas(run: RunContext, name: str, subject: str) -> SubjectSchemas:
    """The subject an event type projects onto, with the writer schemas of both subjects the type may be
    registered under (`<topic>-<name>` and `<name>`: producers of either strategy write one type)."""
    schemas = run.lookup.schemas(subject)
    if schemas is None:
        raise ValueError(f"event type {name}: subject {subject} has no live version left")
    other = run.lookup.schemas(name) if subject != name else None
    if other is None:
        return schemas
    return replace(schemas, writer_schemas={**other.writer_schemas, **schemas.writer_schemas})


def _discard(run: RunContext, targets: list[Target]) -> None:
    for target in targets:
        run.log.store.delete(staging_directory(run, target.table))


def staging_directory(run: RunContext, table: str) -> str:
    """Where a table's rows of this run are staged (a table is one topic's, so one pass's)."""
    return f"{run.log.staging_dir(run.run_id)}/{run.database}.{table}"


@dataclass(frozen=True)
class _Ready:
    """A target whose table is ready for its rows: the decoded records, their columns, the reshape a
    table's union columns need (or None), and the table's state (None: no history table to write)."""

    target: Target
    decoded: DataFrame
    columns: list[str]
    shape: Shape | None
    state: TableState | None


def _write(
    run: RunContext,
    work: TopicWork,
    targets: list[Target],
    report: TopicReport,
    made: dict[str, TableState] | None = None,
) -> tuple[list[StagedTable | None], list[int]]:
    """Stages each target's rows, one Spark job each (the first counts what was read); returns the
    staged tables and, when records were left over, the framed schema ids no target holds."""
    spark = run.spark
    read = CountedRead(read_ranges(spark, run.read, work.ranges)) if work.span else None
    # A topic whose current-state table is its only table (`current-state-history = false`): its tombstones
    # are deletes of that table, never skipped.
    current_only = work.current_table is not None and not run.current_state.history
    skip_tombstones = not current_only and (work.skip_tombstones or not any(t.tombstones for t in targets))
    ready = _ready_targets(run, work, targets, read, current_only, skip_tombstones)
    if not current_only:
        states = [(r.target.table, _as_made(made, r.target.table, r.state)) for r in ready if r.state]
        describe_tables(report, states, multi=targets[0].ids is not None)
    crash_point("after_table_ready")
    if read is None:
        report.status = "up to date"
        return [], []
    report.tables = {}
    offsets = {r.partition: r.end for r in work.ranges}
    # A topic of one type has one table: what its current-state table is merged from.
    first = ready[0]
    if current_only:
        ready = []  # no append: the current-state table's merge below is the topic's one write
        _count_current_only(run, work, first.decoded, report)
    # A format that writes a topic as a group of one counts each table's rows as it writes them (see
    # `rows_for_writer`).
    counted_by_writer = run.tables.writes_alone_as_group()
    staged = [_stage(run, work, r, skip_tombstones, offsets, counted_by_writer, report) for r in ready]
    if work.current_table is not None:
        _merge_current(run, work, first.decoded, first.columns, first.shape, offsets, report)
    _account(read, work, current_only, skip_tombstones, report)
    if not report.quarantined:
        return staged, []
    held = {i for t in targets for i in t.schemas.writer_schemas}
    return staged, framed_schema_ids(read_ranges(spark, run.read, work.ranges), held, MAX_ID_LOOKUPS)


def _as_made(made: dict[str, TableState] | None, table: str, state: TableState) -> TableState:
    """What this run did to the table: a pass done again (with event types found by the one before)
    finds unchanged the table the pass before created or evolved, which the report still names."""
    if made is None:
        return state
    if state.action != "unchanged":
        made.setdefault(table, state)
        return state
    return made.get(table, state)


def _ready_targets(
    run: RunContext,
    work: TopicWork,
    targets: list[Target],
    read: CountedRead | None,
    current_only: bool,
    skip_tombstones: bool,
) -> list[_Ready]:
    """Decodes each target's records (the first from the counted read) and makes sure its table can hold
    them; a topic whose current-state table is its only table gets no history table made sure of (the
    merge makes sure of its own table)."""
    spark = run.spark
    ready = []
    for i, target in enumerate(targets):
        if read is None:
            source = spark.createDataFrame([], KAFKA_COLUMNS)
        else:
            source = read.frame if i == 0 else read_ranges(spark, run.read, work.ranges)
        decoded = decode(target.rows_of(source), target.schemas, work.keys)
        columns = table_columns(decoded)
        require_no_clash(user_fields(decoded))
        if current_only:
            ready.append(_Ready(target, decoded, columns, None, None))
            continue
        row_schema = good_rows(decoded, skip_tombstones, columns).schema
        state, shape = ready_table(run, target.table, target.schemas, row_schema)
        ready.append(_Ready(target, decoded, columns, shape, state))
    return ready


def _stage(
    run: RunContext,
    work: TopicWork,
    ready: _Ready,
    skip_tombstones: bool,
    offsets: dict[int, int],
    counted_by_writer: bool,
    report: TopicReport,
) -> StagedTable | None:
    """Stages one target's rows into its table (skipping those the table holds by its own account) and
    counts them into the report."""
    target, decoded, columns, shape = ready.target, ready.decoded, ready.columns, ready.shape
    assert ready.state is not None
    qualified = f"{run.database}.{target.table}"
    held = run.tables.held_offsets(target.table, work.topic, work.topic_id)
    if counted_by_writer and not work.reads_any_of(held):  # the writer counts rows, not rows held already
        rows = rows_for_writer(decoded, skip_tombstones, columns, shape)
        table, rows_written = _append_alone(run, work, target.table, ready.state, rows, report)
        report.tables[qualified] = rows_written
        return table
    written = Observation(f"loader_written_{uuid.uuid4().hex}")  # unique: topics run side by side
    is_held = already_held(held, "partition", "offset") if held else F.lit(False)
    rows = rows_to_write(decoded, written, skip_tombstones, is_held, columns)
    if shape is not None:
        rows = reshape(rows, shape)
    append = Append(
        target.table,
        ready.state,
        rows,
        work.topic,
        work.topic_id,
        offsets,
        staging_directory(run, target.table),
        properties=valid_through_property(report.valid_through),
    )
    staged = run.tables.append(append)
    observed = observed_metrics(written, "rows", "held")
    if observed is None:  # Spark left the observation empty (see `counted_for_writing`)
        observed = counted_for_writing(decoded, skip_tombstones, is_held)
    already = int(observed["held"] or 0)
    report.already_held += already
    report.tables[qualified] = int(observed["rows"]) - already
    return staged


def _account(
    read: CountedRead, work: TopicWork, current_only: bool, skip_tombstones: bool, report: TopicReport
) -> None:
    """The read's counts into the report: windows, tombstones, records without a key, what was loaded
    and what was left over for the quarantine."""
    counts = read.counts()
    report.windows = counts.records
    report.newest_record = counts.newest
    report.tombstones = sum(counts.tombstones.values())
    if work.current_table is not None and counts.keyless:
        report.no_key = counts.keyless
        kept = "" if current_only else " (its history table keeps them)"
        report.notes.append(
            f"{counts.keyless} record(s) not in current-state table {work.current_table}{kept}: {NO_KEY}"
        )
    if skip_tombstones:
        report.skipped_windows = counts.tombstones
    if report.skipped and not work.skip_tombstones:
        report.reason = (
            f"{report.skipped} tombstone(s) not loaded: without a {work.topic}-value subject no table of the "
            "topic is the table of records without a value"
        )
    report.records = sum(report.tables.values())
    report.quarantined = sum(counts.records.values()) - report.records - report.skipped - report.already_held


def _count_current_only(run: RunContext, work: TopicWork, decoded: DataFrame, report: TopicReport) -> None:
    """The counts of a topic whose current-state table is its only table (`current-state-history =
    false`), in one job over its records before the merge: the rows it gets (tombstones included: they
    delete keys), and those its table holds already by its own account (a rerun after a kill)."""
    assert work.current_table is not None
    held = run.tables.held_offsets(work.current_table, work.topic, work.topic_id)
    is_held = already_held(held, "partition", "offset") if held else F.lit(False)
    counted = counted_for_writing(decoded, False, is_held)  # tombstones count: they delete keys
    report.already_held += counted["held"]
    report.tables[f"{run.database}.{work.current_table}"] = counted["rows"] - counted["held"]
    report.table = f"{run.database}.{work.current_table}"


def _merge_current(
    run: RunContext,
    work: TopicWork,
    decoded: DataFrame,
    columns: dict[str, str],
    shape: Shape | None,
    offsets: dict[int, int],
    report: TopicReport,
) -> None:
    """The topic's current-state table, from the rows of its history table, tombstones included (see
    `loader.formats.TableFormat.merge_current`), and the records before them that the table misses when
    it starts behind the plan (`_seed`)."""
    assert work.current_table is not None and work.values is not None
    seed = _seed(run, work, report)
    if seed is not None:
        decoded = decoded.unionByName(seed)
    rows = good_rows(decoded, False, columns)
    if shape is not None:
        rows = reshape(rows, shape)
    merge = CurrentMerge(
        work.current_table,
        rows,
        work.envelope,
        work.topic,
        work.topic_id,
        offsets,
        valid_through_property(report.valid_through),
        work.values.latest_schema,
    )
    run.tables.merge_current(merge)


def _seed(run: RunContext, work: TopicWork, report: TopicReport) -> DataFrame | None:
    """The records, decoded as the run's are, that the topic's current-state table misses before the
    run's planned ranges (see `loader.planning.current_seed`): from Kafka's earliest offsets, for a table
    that holds nothing of the topic yet. None when it misses none (every run but such a table's first).
    Read in full whatever `max-records-per-partition` says: the merge's snapshot can name one offset per
    partition, not a gap. The history table already holds them, so nothing else gets them."""
    assert work.current_table is not None and work.values is not None
    held = run.tables.held_offsets(work.current_table, work.topic, work.topic_id)
    behind = partitions_behind(work.ranges, held)
    if not behind:
        return None
    marks = run.kafka.watermarks([(work.topic, p) for p in behind])
    seeds = seed_ranges(work.ranges, held, {p: m.earliest for (_, p), m in marks.items()})
    if not seeds:
        return None
    report.notes.append(
        f"current-state table {work.current_table} seeded with offsets before this run's, which it did not "
        f"hold: {', '.join(f'[{r.start}, {r.end}) of partition {r.partition}' for r in seeds)}"
    )
    return decode(read_ranges(run.spark, run.read, seeds), work.values, work.keys)


def rows_for_writer(
    decoded: DataFrame, skip_tombstones: bool, columns: dict[str, str], shape: Shape | None
) -> DataFrame:
    """A topic's rows as a group of one (`loader.formats.GROUP_MEMBER`): every record, the member NULL
    for one that is not a row of the table, which the writer leaves out and does not count.

    Nothing is filtered, so nothing stands between the decoding and the write: `rows_to_write` counts the
    rows in an observation, which Spark cannot fuse into the generated code around it, so each decoded
    struct was copied into a row of its own between two code stages and read back (benchmarks/JOURNAL.md,
    "A topic's rows counted by the writer"). A filter without that observation would be pushed below
    the decoding and decode every body twice."""
    row = F.expr(named_struct(columns.items()))
    return decoded.select(
        F.when(is_good(skip_tombstones), F.lit(0)).alias(GROUP_MEMBER),
        F.col("timestamp").alias(GROUP_TIMESTAMP),
        (row if shape is None else reshaped_row(row, shape)).alias(group_rows_column(0)),
    )


def _append_alone(
    run: RunContext, work: TopicWork, table: str, state: TableState, rows: DataFrame, report: TopicReport
) -> tuple[StagedTable | None, int]:
    """Stages (or commits) `rows_for_writer`'s rows of one table; the table staged and the rows written."""
    [appended] = run.tables.append_group(rows, [group_member(run, work, table, state, report)])
    return appended.keep(), appended.rows


def group_member(
    run: RunContext, work: TopicWork, table: str, state: TableState, report: TopicReport
) -> GroupMember:
    """`table`, ready as `state` says, as a member of a group the format writes: the table of the
    topic's records that `work` loads, whose report holds its valid-through."""
    return GroupMember(
        table,
        state,
        work.topic,
        work.topic_id,
        {r.partition: r.end for r in work.ranges},
        staging_directory(run, table),
        records=work.span,
        properties=valid_through_property(report.valid_through),
    )


def require_no_clash(fields: list[str]) -> None:
    clash = sorted(set(METADATA_COLUMNS) & set(fields))
    if clash:
        raise ValueError(f"field(s) {', '.join(clash)} clash with the loader's metadata columns; rename them")


def ready_table(
    run: RunContext, table: str, schemas: SubjectSchemas, row_schema: StructType
) -> tuple[TableState, Shape | None]:
    """Makes sure the table can hold rows of `row_schema` (the subject's latest schema decoded), with the
    Avro docs and defaults as the columns' comments and defaults; the shape rows take in it when a union
    column of the table holds more members than the rows (see `loader.schema.union_columns`)."""
    with run.tables.lock:
        table_schema, shape = fit_unions(run.tables.data_schema(table), row_schema)
        latest = schemas.latest_schema
        data_schema = with_column_metadata(
            table_schema, column_comments(latest), {**existence_defaults(latest), **METADATA_DEFAULTS}
        )
        return run.tables.ensure(table, data_schema, avro_schema=latest), shape


def describe_tables(report: TopicReport, states: list[tuple[str, TableState]], multi: bool) -> None:
    """What happened to the tables: as always for a topic of one type, each named for several."""
    if not multi:
        state = states[0][1]
        report.table_action = state.action
        report.table_changes = [c.describe() for c in state.changes if c.kind != "kept_removed"]
        return
    report.table_action = ", ".join(f"{table} {state.action}" for table, state in states)
    report.table_changes = [
        f"{table}: {c.describe()}"
        for table, state in states
        for c in state.changes
        if c.kind != "kept_removed"
    ]


def _stage_quarantine(
    run: RunContext, work: TopicWork, targets: list[Target], placements: list[Placement]
) -> StagedTable | None:
    """Bad records are rare: the topic's ranges are read and decoded again rather than every topic's rows
    kept for them."""
    raw = read_ranges(run.spark, run.read, work.ranges)
    if targets[0].ids is None:  # a topic of one type, as always
        values = targets[0].schemas
        with run.registry_lock:  # one registry look-up per distinct foreign id, on the driver
            reasons = {
                p.schema_id: describe_foreign_id(run.registry, p.schema_id, values.subject)
                for p in placements
            }
        rows = with_reasons_by_id(bad_rows(decode(raw, values, work.keys)), values, reasons)
    else:
        rows = _multi_type_bad_rows(raw, work, targets, {p.schema_id: p.reason or "" for p in placements})
    rows = rows.withColumn("run_id", F.lit(run.run_id))
    with run.tables.lock:
        state = run.tables.ensure(QUARANTINE_TABLE, rows.schema, "timestamp")
    held = run.tables.held_offsets(QUARANTINE_TABLE, work.topic, work.topic_id)
    if held:
        rows = rows.where(~already_held(held, "partition", "offset"))
    table = f"{run.database}.{QUARANTINE_TABLE}"
    # Staged per topic, so that topics never write into each other's staging.
    directory = f"{run.log.staging_dir(run.run_id)}/{table}/{work.topic}"
    offsets = {r.partition: r.end for r in work.ranges}
    append = Append(QUARANTINE_TABLE, state, rows, work.topic, work.topic_id, offsets, directory, "timestamp")
    return run.tables.append(append)


def _multi_type_bad_rows(
    raw: DataFrame, work: TopicWork, targets: list[Target], reasons: dict[int, str]
) -> DataFrame:
    """Each type's records that do not decode, and the records of no type: not framed, or of a schema id
    no rule places in the topic (with the reason found for the id)."""
    parts = [bad_rows(decode(t.rows_of(raw), t.schemas, work.keys)) for t in targets]
    held = sorted({i for t in targets for i in (t.ids or ())})
    tombstones = any(t.tombstones for t in targets)
    of_no_type = raw.where(~of_schema_ids(held, tombstones) & F.col("value").isNotNull())
    unplaced = bad_rows(decode(of_no_type, targets[0].schemas, work.keys))
    generic = F.concat(
        F.lit("schema id "),
        F.col("schema_id").cast("string"),
        F.lit(f" belongs to no event type of topic {work.topic} (more ids than are looked up)"),
    )
    reason: Column = F.when(F.col("schema_id").isNull(), F.col("reason"))
    for schema_id, text in sorted(reasons.items()):
        reason = reason.when(F.col("schema_id") == schema_id, F.lit(text))
    parts.append(unplaced.withColumn("reason", reason.otherwise(generic)))
    return reduce(DataFrame.unionByName, parts)
