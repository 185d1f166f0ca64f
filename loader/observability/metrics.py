"""A run's metrics in Prometheus' text format, from its report alone (and the previous run's metrics).

`run_metrics(report, previous, max_topics)` is a pure function: the report of a run, and the samples its
sink (the textfile or the Pushgateway group) held before it, in; the metric families to write, out. The
previous samples matter for three things a single report cannot say:

- the counters (`_total`) go on from where the previous run left them, so `increase()` over an hour
  counts an hour of runs' records (a counter that starts again at 0, its file deleted, is a reset that
  Prometheus' functions handle);
- `loader_last_success_timestamp_seconds` keeps the last successful run's time through failed runs;
- a topic's freshness (its newest record's time, its valid-through) stays what the last run that loaded
  it said, when this run loaded nothing of it.

Labels are the topic and its table only (the database on every sample): never a partition or a run id,
so there is one series per topic and metric. With more than `max_topics` topics, the failed ones and then
the ones furthest behind (lag in offsets, then in seconds) keep series of their own, and the rest are
summed into one series with `topic="_other"`: sums for records and offsets, the worst for times (the
oldest newest-record and valid-through, the largest lag in seconds).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector, CollectorRegistry

from loader.observability.phases import START
from loader.operations.audit import AuditReport
from loader.outcome.report import EXIT_BAD_RECORDS, EXIT_LOCKED, EXIT_OK, RunReport, TopicReport
from loader.planning.freshness import parse_timestamp

OTHER = "_other"  # the topic label of the topics beyond the `metrics-max-topics` bound, summed
SampleKey = tuple[str, tuple[tuple[str, str], ...]]  # sample name (with `_total`), sorted labels
Samples = dict[SampleKey, float]

TOPIC_LABELS = ("database", "topic", "table")
# Per topic: (metric name, kind, help). Counters are written with `_total`.
TOPIC_COUNTERS = {
    "loader_topic_records_loaded": "Records of the topic committed into its tables.",
    "loader_topic_records_quarantined": "Records of the topic that could not be decoded, committed into the "
    "quarantine table.",
    "loader_topic_records_lost": "Records of the topic deleted by Kafka's retention before a run loaded "
    "them.",
    "loader_topic_tombstones": "Records without a value read from the topic (deletions, or skipped).",
}
TOPIC_GAUGES = {
    "loader_topic_lag_offsets": "Offsets Kafka had past what the tables hold after the last run.",
    "loader_topic_lag_seconds": "Record time between the newest loaded record and the last run's start, "
    "when offsets are left (0 when the run read every partition to its end).",
    "loader_topic_newest_record_timestamp_seconds": "Kafka timestamp of the newest record loaded.",
    "loader_topic_valid_through_timestamp_seconds": "Time through which every partition of the topic is "
    "loaded (the table's loader.valid-through).",
    "loader_topic_failed": "1 when the last run failed the topic, else 0.",
}
TABLE_COUNTER = "loader_table_rows_committed"
OUTCOMES = {EXIT_OK: "success", 1: "failed", EXIT_BAD_RECORDS: "bad_records", EXIT_LOCKED: "locked"}


@dataclass(frozen=True)
class TopicNumbers:
    """What the metrics say of one topic (or of the topics summed into `_other`) after a run."""

    topic: str
    table: str
    failed: bool = False
    loaded: int = 0
    quarantined: int = 0
    lost: int = 0
    tombstones: int = 0
    lag_offsets: int = 0
    lag_seconds: float | None = None
    newest: float | None = None
    valid_through: float | None = None
    rows: dict[str, int] = field(default_factory=dict)  # table -> rows committed this run


def committed(report: RunReport) -> bool:
    """Whether the run's commit point passed (its manifest published, its partitions perhaps not all
    registered yet), or the run finished with nothing to commit: its topics' numbers count."""
    return report.committed or "commit" in report.phases


def topic_numbers(report: RunReport, topic: TopicReport, previous: Samples) -> TopicNumbers | None:
    """One topic's numbers; None for a topic the loader does not load (no schema registered)."""
    if topic.status == "skipped":
        return None
    labels = {"database": report.database, "topic": topic.topic, "table": topic.table or ""}
    done = committed(report) and topic.status in ("loaded", "up to date")
    span = sum(end - start for start, end in topic.offsets.values())
    lag = topic.remaining if done else topic.remaining + span
    started = _epoch(report.started)
    newest = _epoch(topic.newest_record) if done else None
    if newest is None:
        newest = previous.get(_key("loader_topic_newest_record_timestamp_seconds", labels))
    through = _epoch(topic.valid_through) if done else None
    if through is None:
        through = previous.get(_key("loader_topic_valid_through_timestamp_seconds", labels))
    if lag == 0:
        lag_seconds: float | None = 0.0
    elif newest is not None and started is not None:
        lag_seconds = max(0.0, started - newest)
    else:
        lag_seconds = None
    return TopicNumbers(
        topic.topic,
        topic.table or "",
        failed=topic.status == "failed",
        loaded=topic.records if done else 0,
        quarantined=topic.quarantined if done else 0,
        lost=topic.lost if done else 0,
        tombstones=topic.tombstones if done else 0,
        lag_offsets=lag,
        lag_seconds=lag_seconds,
        newest=newest,
        valid_through=through,
        rows=dict(topic.tables) if done else {},
    )


def bounded(numbers: list[TopicNumbers], max_topics: int) -> tuple[list[TopicNumbers], int]:
    """At most `max_topics` topics of their own (failed first, then the furthest behind), the rest summed
    into one `_other`; and how many topics were summed."""
    if len(numbers) <= max_topics:
        return sorted(numbers, key=lambda n: n.topic), 0
    worst = sorted(numbers, key=lambda n: (not n.failed, -n.lag_offsets, -(n.lag_seconds or 0.0), n.topic))
    kept, rest = worst[:max_topics], worst[max_topics:]
    other = TopicNumbers(
        OTHER,
        "",
        failed=any(n.failed for n in rest),
        loaded=sum(n.loaded for n in rest),
        quarantined=sum(n.quarantined for n in rest),
        lost=sum(n.lost for n in rest),
        tombstones=sum(n.tombstones for n in rest),
        lag_offsets=sum(n.lag_offsets for n in rest),
        lag_seconds=_worst([n.lag_seconds for n in rest], max),
        newest=_worst([n.newest for n in rest], min),
        valid_through=_worst([n.valid_through for n in rest], min),
        rows={"": sum(sum(n.rows.values()) for n in rest)},
    )
    return [*sorted(kept, key=lambda n: n.topic), other], len(rest)


def run_metrics(report: RunReport, previous: Samples, max_topics: int) -> list[Metric]:
    """The metric families after `report`'s run, given the samples the sink held before it."""
    return [*_run_families(report, previous), *_topic_families(report, previous, max_topics)]


def _run_families(report: RunReport, previous: Samples) -> list[Metric]:
    """The run's own series: when it ended, how long it and its phases took, its outcome."""
    database = report.database
    run_labels = {"database": database}
    families: list[Metric] = []
    ended = (_epoch(report.started) or 0.0) + report.seconds
    families.append(
        _gauge("loader_last_run_timestamp_seconds", "When the last run ended.", run_labels, ended)
    )
    took = report.seconds + report.phases.get(START, 0.0)  # from its process's start
    families.append(
        _gauge(
            "loader_last_run_duration_seconds",
            "How long the last run took, start-up included.",
            run_labels,
            took,
        )
    )
    phases = GaugeMetricFamily(
        "loader_last_run_phase_duration_seconds",
        "How long each phase of the last run took (start, recover, plan, load, commit).",
        labels=["database", "phase"],
    )
    for phase, seconds in report.phases.items():
        phases.add_metric([database, phase], seconds)
    families.append(phases)
    families.append(
        _gauge(
            "loader_last_run_exit_code",
            "Exit status of the last run (0 loaded, 1 failed, 3 bad records over the ratio, 75 locked).",
            run_labels,
            report.exit_code,
        )
    )
    success = previous.get(_key("loader_last_success_timestamp_seconds", run_labels), 0.0)
    if report.exit_code == EXIT_OK:
        success = ended
    families.append(
        _gauge(
            "loader_last_success_timestamp_seconds",
            "When the last run that exited 0 ended (0: none yet).",
            run_labels,
            success,
        )
    )
    runs = CounterMetricFamily(
        "loader_runs",
        "Runs by outcome (success, failed, bad_records, locked).",
        labels=["database", "outcome"],
    )
    outcomes = {
        dict(labels)["outcome"]: value
        for (name, labels), value in previous.items()
        if name == "loader_runs_total" and dict(labels).get("database") == database
    }
    outcome = OUTCOMES.get(report.exit_code, f"exit_{report.exit_code}")
    outcomes[outcome] = outcomes.get(outcome, 0.0) + 1
    for name, value in sorted(outcomes.items()):
        runs.add_metric([database, name], value)
    families.append(runs)
    statuses = GaugeMetricFamily(
        "loader_topics", "Topics of the last run by status.", labels=["database", "status"]
    )
    for status in ("loaded", "up to date", "skipped", "failed"):
        statuses.add_metric([database, status], sum(1 for t in report.topics if t.status == status))
    families.append(statuses)
    return families


def _topic_families(report: RunReport, previous: Samples, max_topics: int) -> list[Metric]:
    """Per topic and table: counts, lag and freshness of at most `max_topics` topics, the rest summed."""
    database = report.database
    run_labels = {"database": database}
    families: list[Metric] = []
    if not report.topics:  # the run stopped before it knew its topics: their series stay as they were
        families.extend(_carried(previous, database))
        families.append(_gauge("loader_topics_summed_into_other", _SUMMED_HELP, run_labels, 0))
        return families
    numbers = [n for t in report.topics if (n := topic_numbers(report, t, previous)) is not None]
    kept, summed = bounded(numbers, max_topics)
    families.append(_gauge("loader_topics_summed_into_other", _SUMMED_HELP, run_labels, summed))
    values = {
        "loader_topic_records_loaded": lambda n: n.loaded,
        "loader_topic_records_quarantined": lambda n: n.quarantined,
        "loader_topic_records_lost": lambda n: n.lost,
        "loader_topic_tombstones": lambda n: n.tombstones,
        "loader_topic_lag_offsets": lambda n: n.lag_offsets,
        "loader_topic_lag_seconds": lambda n: n.lag_seconds,
        "loader_topic_newest_record_timestamp_seconds": lambda n: n.newest,
        "loader_topic_valid_through_timestamp_seconds": lambda n: n.valid_through,
        "loader_topic_failed": lambda n: 1 if n.failed else 0,
    }
    for name, text in TOPIC_COUNTERS.items():
        counter = CounterMetricFamily(name, text, labels=list(TOPIC_LABELS))
        for n in kept:
            labels = {"database": database, "topic": n.topic, "table": n.table}
            before = previous.get(_key(name + "_total", labels), 0.0)
            counter.add_metric(list(labels.values()), before + values[name](n))
        families.append(counter)
    for name, text in TOPIC_GAUGES.items():
        gauge = GaugeMetricFamily(name, text, labels=list(TOPIC_LABELS))
        for n in kept:
            value = values[name](n)
            if value is not None:
                gauge.add_metric([database, n.topic, n.table], value)
        families.append(gauge)
    rows = CounterMetricFamily(TABLE_COUNTER, "Rows committed into the table.", labels=list(TOPIC_LABELS))
    for n in kept:
        for table, count in sorted(n.rows.items()):
            labels = {"database": database, "topic": n.topic, "table": table}
            before = previous.get(_key(TABLE_COUNTER + "_total", labels), 0.0)
            rows.add_metric(list(labels.values()), before + count)
    families.append(rows)
    return families


_SUMMED_HELP = 'Topics of the last run whose series are summed into topic="_other" (metrics-max-topics).'


def audit_metrics(report: AuditReport, audited_at: datetime) -> list[Metric]:
    """`loader audit`'s families: how many windows it compared, how many did not match, the tables it
    could not read, and when it ran."""
    labels = {"database": report.database}
    return [
        _gauge("loader_audit_windows", "Topic windows the last audit compared.", labels, len(report.windows)),
        _gauge(
            "loader_audit_mismatched_windows",
            "Topic windows whose table rows, quarantined and skipped records differ from Kafka's count.",
            labels,
            len(report.mismatches),
        ),
        _gauge(
            "loader_audit_difference_records",
            "Sum over the mismatched windows of |table rows + quarantined + skipped - Kafka's records|.",
            labels,
            sum(abs(w.difference) for w in report.mismatches),
        ),
        _gauge(
            "loader_audit_unreadable_tables",
            "Tables the last audit could not read.",
            labels,
            len(report.unreadable),
        ),
        _gauge(
            "loader_last_audit_timestamp_seconds", "When the last audit ran.", labels, audited_at.timestamp()
        ),
    ]


def exposition(families: Iterable[Metric]) -> bytes:
    """The families in Prometheus' text format."""
    from prometheus_client.exposition import generate_latest

    return generate_latest(registry(families))


def registry(families: Iterable[Metric]) -> CollectorRegistry:
    """A registry holding exactly `families` (for `generate_latest` and `push_to_gateway`)."""
    fixed = list(families)

    class Fixed(Collector):
        def collect(self) -> Iterator[Metric]:
            return iter(fixed)

    held = CollectorRegistry(auto_describe=False)
    held.register(Fixed())
    return held


def parse_samples(text: str, drop: Iterable[str] = (), only: dict[str, str] | None = None) -> Samples:
    """The samples of a text exposition: name and labels -> value; labels in `drop` removed (the
    Pushgateway's job and instance), samples whose labels disagree with `only` left out."""
    dropped = set(drop)
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if only and any(sample.labels.get(k) != v for k, v in only.items()):
                continue
            labels = {k: v for k, v in sample.labels.items() if k not in dropped}
            found[_key(sample.name, labels)] = float(sample.value)
    return found


def _carried(previous: Samples, database: str) -> list[Metric]:
    """The previous samples of every per-topic and per-table metric, unchanged."""
    families: list[Metric] = []
    for name, text in TOPIC_COUNTERS.items():
        counter = CounterMetricFamily(name, text, labels=list(TOPIC_LABELS))
        families.append(_copied(counter, previous, name + "_total", database))
    for name, text in TOPIC_GAUGES.items():
        gauge = GaugeMetricFamily(name, text, labels=list(TOPIC_LABELS))
        families.append(_copied(gauge, previous, name, database))
    rows = CounterMetricFamily(TABLE_COUNTER, "Rows committed into the table.", labels=list(TOPIC_LABELS))
    families.append(_copied(rows, previous, TABLE_COUNTER + "_total", database))
    return families


def _copied(family: Metric, previous: Samples, sample_name: str, database: str) -> Metric:
    for (name, labels), value in sorted(previous.items()):
        found = dict(labels)
        if name == sample_name and found.get("database") == database:
            family.add_metric([found.get(label, "") for label in TOPIC_LABELS], value)  # type: ignore[attr-defined]
    return family


def _gauge(name: str, text: str, labels: dict[str, str], value: float) -> GaugeMetricFamily:
    gauge = GaugeMetricFamily(name, text, labels=list(labels))
    gauge.add_metric(list(labels.values()), value)
    return gauge


def _key(name: str, labels: dict[str, str]) -> SampleKey:
    return name, tuple(sorted(labels.items()))


def _epoch(text: str | None) -> float | None:
    moment = parse_timestamp(text)
    return moment.timestamp() if moment is not None else None


def _worst(values: list[float | None], pick: Callable[[list[float]], float]) -> float | None:
    known = [v for v in values if v is not None]
    return pick(known) if known else None


def samples_of(families: Iterable[Metric]) -> Samples:
    """The samples of `families`, as `parse_samples` reads them back from their exposition."""
    return {_key(s.name, dict(s.labels)): float(s.value) for family in families for s in family.samples}
