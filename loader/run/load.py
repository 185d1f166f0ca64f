"""The run's third step: the topics' passes, several at a time, each thread in a scheduler pool of its
own so that small topics' jobs run beside a big topic's instead of queueing behind it. Small topics go in
groups, one query each (see `loader.run.topic_group_pass`), when the table format can write a group's
tables in one job; the topics loaded alone (the big ones) start first."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from rich.console import Console
from rich.progress import Progress

from loader import printed
from loader.outcome.report import TopicReport
from loader.outcome.signals import STOP
from loader.planning.commit_protocol import StagedTable
from loader.planning.topic_groups import topic_groups
from loader.run.current_state import with_current_state
from loader.run.topic_group_pass import load_group
from loader.run.topic_pass import load_topic
from loader.run.work import RunContext, TopicWork


@dataclass(frozen=True)
class Pacing:
    """How many passes run at once, and which topics share a query."""

    topic_threads: int
    small_topic_records: int  # topics with at most this many new offsets share a query...
    topics_per_query: int  # ...this many at a time (1: every topic its own)


def load(
    context: RunContext,
    work: list[TopicWork],
    reports: dict[str, TopicReport],
    pacing: Pacing,
    console: Console,
) -> list[StagedTable]:
    """Every pass's staged tables (none for a format whose appends commit themselves)."""
    spark = context.spark
    work = with_current_state(context, work, reports, console)
    per_query = pacing.topics_per_query if context.tables.appends_groups() else 1
    planned = topic_groups(work, pacing.small_topic_records, per_query)
    if per_query == 1 < pacing.topics_per_query and (hint := context.tables.groups_hint()):
        printed.note(console, f"{hint}: every small topic is loaded in a query of its own")
    with (
        Progress(console=console, transient=True) as progress,
        ThreadPoolExecutor(pacing.topic_threads, "loader-topic") as pool,
    ):
        task = progress.add_task(f"loading {len(work)} topic(s)", total=len(work))

        def load_items(items: list[TopicWork]) -> list[StagedTable]:
            if STOP.signum is not None:  # asked to stop: no new pass starts (the run stops before committing)
                progress.advance(task, len(items))
                return []
            spark.sparkContext.setLocalProperty("spark.scheduler.pool", threading.current_thread().name)
            try:
                if len(items) == 1:
                    return load_topic(context, items[0], reports[items[0].topic])
                return load_group(context, items, reports)
            finally:
                progress.advance(task, len(items))

        results = pool.map(load_items, [[w] for w in planned.alone] + planned.groups)
        return [staged for result in results for staged in result]
