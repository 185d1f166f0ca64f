"""Small topics loaded in one query and one write job (`loader.run.topic_group_pass`): a real broker, the
registry over HTTP, Spark with a Hive metastore. What each topic's table gets must be what its own pass
would give it, and a topic's trouble must stay its own."""

from __future__ import annotations

import re
import struct
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pyarrow.orc as orc
import pytest
from confluent_kafka import Producer
from confluent_kafka.serialization import MessageField
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from loader.formats.hive import many_tables
from loader.job import QUARANTINE_TABLE
from loader.operations.audit import audit
from loader.outcome.report import EXIT_BAD_RECORDS, EXIT_FAILED, RunReport
from loader.run import topic_group_pass
from loader.runtime.spark_session import interpreted_session
from loader.schema.naming import table_name
from tests.loader.harness import Harness, record_schema

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

VIEW = record_schema("View", [{"name": "member_id", "type": "int"}, {"name": "url", "type": "string"}])
ORDER = record_schema("Order", [
    {"name": "order_id", "type": "long"},
    {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
        {"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
    {"name": "note", "type": ["null", "string"], "default": None},
])  # fmt: skip
ORDER_V2 = record_schema("Order", [
    *ORDER["fields"],
    {"name": "channel", "type": "string", "default": "web"},
])  # fmt: skip
CLASHING = record_schema("Clash", [{"name": "_kafka_offset", "type": "long"}])
ACCOUNT_KEY = record_schema("AccountKey", [{"name": "account", "type": "long"}])


def spark_jobs(spark: SparkSession) -> int:
    """How many Spark jobs this application has started so far."""
    return max(spark.sparkContext.statusTracker().getJobIdsForGroup(), default=-1) + 1


def rows(spark: SparkSession, table: str, columns: str) -> list[tuple]:
    spark.catalog.refreshTable(table)
    found = spark.sql(f"SELECT {columns} FROM {table} ORDER BY _kafka_partition, _kafka_offset").collect()
    return [tuple(r) for r in found]


def topic_reports(report: RunReport) -> dict[str, object]:
    return {t.topic: t for t in report.topics}


def generated_classes(spark: SparkSession) -> int:
    """Java classes Spark has generated and compiled in this JVM so far."""
    metrics = spark._jvm.org.apache.spark.metrics.source.CodegenMetrics
    return int(metrics.METRIC_SOURCE_CODE_SIZE().getCount())


def read_through_kafka_source(spark: SparkSession, harness: Harness, topic: str) -> None:
    """Spark's Kafka source (a V1 relation) turns the records it reads into `Row` objects and back, with
    code it generates once per JVM for its fixed columns: generated here, before a run is measured."""
    source = spark.read.format("kafka").option("kafka.bootstrap.servers", harness.kafka.bootstrap)
    frame = source.option("subscribe", topic).option("includeHeaders", "true").load()
    frame.write.format("noop").mode("overwrite").save()


def wide_query(spark: SparkSession) -> DataFrame:
    """More fields than one whole-stage function takes, as a group's query has, and new code each time
    (Spark caches compiled code by its text)."""
    salt = uuid.uuid4().int % 10**9
    return spark.range(3).select(*[(F.col("id") * F.lit(salt) + F.lit(i)).alias(f"c{i}") for i in range(120)])


def test_small_topics_queries_generate_no_code_and_the_other_passes_still_do(spark: SparkSession) -> None:
    """Small topics' queries run interpreted (`interpreted_session`); the session a busy topic's pass
    uses keeps generating code, and both compute the same rows."""
    small_topics = interpreted_session(spark)
    before = generated_classes(spark)
    interpreted = sorted(tuple(r) for r in wide_query(small_topics).collect())
    assert generated_classes(spark) == before
    assert len(interpreted) == 3 and interpreted[1][5] == interpreted[1][0] + 5
    wide_query(spark).collect()
    assert generated_classes(spark) > before
    assert small_topics.catalog.listDatabases() == spark.catalog.listDatabases()  # one catalog
    # The run's settings hold there too: a record's hour partition is read in UTC.
    assert small_topics.conf.get("spark.sql.session.timeZone") == spark.conf.get("spark.sql.session.timeZone")


def test_small_topics_load_in_one_write_job_what_each_own_pass_loads(
    harness: Harness, spark: SparkSession
) -> None:
    views, orders, more_views = harness.topic(partitions=2), harness.topic(), harness.topic()
    harness.produce(views, VIEW, [{"member_id": i, "url": f"/p/{i}"} for i in range(5)])
    line = {"sku": "a", "qty": 2}
    harness.produce(orders, ORDER, [{"order_id": 1, "lines": [line], "note": None}])
    harness.produce(orders, ORDER_V2, [{"order_id": 2, "lines": [], "note": "gift", "channel": "app"}])
    harness.produce_raw(orders, [None])  # a tombstone: a deletion row
    harness.produce(more_views, VIEW, [{"member_id": 9, "url": "/q"}])

    read_through_kafka_source(spark, harness, views)
    before, classes = spark_jobs(spark), generated_classes(spark)
    report = harness.run(spark)
    grouped_jobs = spark_jobs(spark) - before
    assert report.exit_code == 0, report
    # The group's query ran interpreted, and the loader's writer took its rows as the query gave them,
    # not as `Row` objects (whose conversions Spark generates code for, for every group's row type).
    assert generated_classes(spark) - classes == 0
    loaded = {t.topic: t for t in report.topics}
    assert {t: (r.records, r.table_action) for t, r in loaded.items()} == {
        views: (5, "created"),
        orders: (3, "created"),
        more_views: (1, "created"),
    }
    assert loaded[orders].tombstones == 1
    assert rows(spark, loaded[orders].table, "order_id, lines, note, channel, _kafka_deleted") == [
        (1, [(("a", 2))], None, "web", False),
        (2, [], "gift", "app", False),
        (None, None, None, None, True),
    ]
    assert sorted(rows(spark, loaded[views].table, "member_id, url, _kafka_partition")) == [
        (i, f"/p/{i}", i % 2) for i in range(5)
    ]
    assert rows(spark, loaded[more_views].table, "member_id, _kafka_offset") == [(9, 0)]
    assert audit(harness.settings(), spark, QUARANTINE_TABLE).ok
    # Each table's files have ORC buffers sized for the few records its topic had (`orc_buffer_size`).
    files = [f for t in loaded.values() for f in spark.table(t.table).inputFiles()]
    assert len(files) >= 3
    assert {orc.ORCFile(urlparse(f).path).compression_size for f in files} == {16 * 1024}

    # The same topics, each in a query of its own: a write job per topic instead of one for all.
    for topic in (views, more_views):
        harness.produce(topic, VIEW, [{"member_id": 10, "url": "/r"}])
    harness.produce(orders, ORDER_V2, [{"order_id": 3, "lines": [], "note": None, "channel": "shop"}])
    before = spark_jobs(spark)
    alone = harness.run(spark, topics_per_query=1)
    assert spark_jobs(spark) - before > grouped_jobs
    assert [t.records for t in alone.topics] == [1, 1, 1]
    assert rows(spark, loaded[orders].table, "order_id")[-1] == (3,)
    assert audit(harness.settings(), spark, QUARANTINE_TABLE).ok


def test_a_group_over_more_hours_than_a_task_keeps_open_loads_every_record_once(
    harness: Harness, spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first run over days of a quiet topic's retention is small, so grouped, yet spans many hours: a
    group's task keeps no more files open than a topic's own pass does (each open ORC file holds its
    buffers). Two topics of records over four hours in Kafka's order, then two late ones of the first
    hour, in one task that may keep two files open: each first hour's file was closed by a later hour's,
    so the late records start a second file there; every record is in its table once."""
    monkeypatch.setattr(many_tables, "MAX_OPEN_FILES_PER_TASK", 2)
    topics = [harness.topic(), harness.topic()]
    # Hours ago, not a fixed date: records older than the topic's retention are deleted by the broker.
    first_hour = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=6)
    for topic in topics:
        for h in range(4):
            at = first_hour + timedelta(hours=h)
            harness.produce(topic, VIEW, [{"member_id": 2 * h + m, "url": "/"} for m in (0, 1)], at=at)
        late = [{"member_id": 8 + m, "url": "/late"} for m in (0, 1)]
        harness.produce(topic, VIEW, late, at=first_hour + timedelta(minutes=30))

    report = harness.run(spark, partition_granularity="hour")

    assert report.exit_code == 0 and [t.records for t in report.topics] == [10, 10]
    tasks = set()
    for loaded in report.topics:
        assert [r[0] for r in rows(spark, loaded.table, "member_id")] == list(range(10))
        files = spark.sql(f"""
            SELECT dt, hour, count(*) AS n, count(DISTINCT file) AS files
            FROM (SELECT dt, hour, input_file_name() AS file FROM {loaded.table}) GROUP BY dt, hour
        """).collect()
        assert [(r.n, r.files) for r in sorted(files, key=lambda r: (r.dt, r.hour))] == [
            (4, 2),
            (2, 1),
            (2, 1),
            (2, 1),
        ]
        for file in spark.table(loaded.table).inputFiles():
            tasks.add(re.sub(r"-c\d{3}\..*$", "", Path(urlparse(file).path).name))
    assert len(tasks) == 1  # both tables' files came from one task: the topics were loaded as a group


def test_a_group_reads_each_topic_s_key_and_verdicts_by_its_own_subjects(
    harness: Harness, spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A group's query holds one key-text and one verdict column for all its topics, each record's by
    its own topic's subjects: a topic with a key schema and one without load in the group itself."""
    keyed, texted = harness.topic(), harness.topic()
    keys = harness.serializer(keyed, ACCOUNT_KEY, MessageField.KEY)
    producer = Producer({"bootstrap.servers": harness.kafka.bootstrap})
    producer.produce(
        keyed, key=keys({"account": 7}), value=harness.serializer(keyed, VIEW)({"member_id": 1, "url": "/k"})
    )
    texted_values = harness.serializer(texted, ORDER)
    producer.produce(texted, key=b"user-1", value=texted_values({"order_id": 1, "lines": [], "note": None}))
    producer.produce(texted, key=None, value=texted_values({"order_id": 2, "lines": [], "note": "n"}))
    assert producer.flush(30) == 0
    grouped: list[str] = []
    alone: list[str] = []
    group_append, own_pass = topic_group_pass._group_append, topic_group_pass._alone

    def written_together(run: Any, rows: Any, read: Any, members: Any, reports: Any) -> Any:
        grouped.extend(m.work.topic for m in members)
        return group_append(run, rows, read, members, reports)

    def done_again(run: Any, work: Any, reports: Any) -> Any:
        alone.append(work.topic)
        return own_pass(run, work, reports)

    monkeypatch.setattr(topic_group_pass, "_group_append", written_together)
    monkeypatch.setattr(topic_group_pass, "_alone", done_again)

    report = harness.run(spark)
    assert report.exit_code == 0, report
    assert sorted(grouped) == sorted([keyed, texted])  # both written by the group's job...
    assert alone == []  # ...and neither done again in a pass of its own
    loaded = {t.topic: t for t in report.topics}
    assert rows(spark, loaded[keyed].table, "member_id, _kafka_key_avro, _kafka_key_string") == [
        (1, (7,), None)
    ]
    assert rows(spark, loaded[texted].table, "order_id, _kafka_key_string") == [(1, "user-1"), (2, None)]


def test_a_grouped_topic_with_bad_records_is_quarantined_by_its_own_pass(
    harness: Harness, spark: SparkSession
) -> None:
    good, mixed = harness.topic(), harness.topic()
    harness.produce(good, VIEW, [{"member_id": 1, "url": "/a"}])
    harness.produce(mixed, VIEW, [{"member_id": 2, "url": "/b"}])
    harness.produce_raw(mixed, [b"\x01" + struct.pack(">I", 1) + b"\x02"])
    harness.produce(mixed, VIEW, [{"member_id": 3, "url": "/c"}])

    report = harness.run(spark)
    loaded = {t.topic: t for t in report.topics}
    assert report.exit_code == EXIT_BAD_RECORDS
    assert (loaded[good].records, loaded[good].quarantined) == (1, 0)
    assert (loaded[mixed].records, loaded[mixed].quarantined) == (2, 1)
    assert loaded[mixed].table_action == "created"  # the group made its table, its own pass loaded it
    assert rows(spark, loaded[mixed].table, "member_id") == [(2,), (3,)]
    quarantined = spark.sql(
        f"SELECT offset, reason FROM {harness.database}.{QUARANTINE_TABLE} WHERE topic = '{mixed}'"
    ).collect()
    assert [tuple(r) for r in quarantined] == [(1, "wrong magic byte 1 (expected 0)")]
    assert audit(harness.settings(), spark, QUARANTINE_TABLE).ok


def test_a_grouped_topic_its_table_cannot_take_fails_alone(harness: Harness, spark: SparkSession) -> None:
    good, clashing = harness.topic(), harness.topic()
    harness.produce(good, VIEW, [{"member_id": 1, "url": "/a"}])
    harness.produce(clashing, CLASHING, [{"_kafka_offset": 7}])

    report = harness.run(spark)
    loaded = {t.topic: t for t in report.topics}
    assert report.exit_code == EXIT_FAILED
    assert loaded[clashing].status == "failed"
    assert "clash with the loader's metadata columns" in (loaded[clashing].reason or "")
    assert (loaded[good].status, loaded[good].records) == ("loaded", 1)
    assert rows(spark, loaded[good].table, "member_id") == [(1,)]

    # The failed topic kept its offsets; the loaded one is not loaded again.
    again = {t.topic: t for t in harness.run(spark).topics}
    assert again[good].status == "up to date"
    assert again[clashing].offsets == {0: (0, 1)}


def test_a_row_held_as_one_struct_takes_its_table_s_shape_as_the_rows_of_a_topic_s_own_pass(
    spark: SparkSession,
) -> None:
    """A union column split in the table (`ref`, `ref_long`): the group writes each row as one struct,
    reshaped like a topic's own rows."""
    from pyspark.sql import functions as F

    from loader.schema.union_columns import fit_unions, reshape, reshaped_row

    decoded = spark.createDataFrame(
        [(1, ("a", None), [("s", (None, 7))]), (2, (None, 5), [])],
        "id long, ref struct<member_string: string, member_long: long>, "
        "items array<struct<sku: string, ref: struct<member_string: string, member_long: long>>>",
    )
    table = StructType.fromDDL("id long, ref string, items array<struct<sku: string, ref: string>>")
    _, shape = fit_unions(table, decoded.schema)
    assert shape is not None
    as_struct = decoded.select(reshaped_row(F.struct(*decoded.columns), shape).alias("row")).select("row.*")
    assert as_struct.schema == reshape(decoded, shape).schema
    assert as_struct.collect() == reshape(decoded, shape).collect()
    assert as_struct.collect()[0]["items"][0]["ref_long"] == 7


def test_a_group_whose_query_fails_is_loaded_topic_by_topic(
    harness: Harness, spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records of one topic deleted (retention) after the plan, while the group's tables are made ready:
    the group's read fails as a whole; each topic is then loaded alone, and only that one fails."""
    import threading
    import time

    from confluent_kafka import TopicPartition

    steady, trimmed = harness.topic(), harness.topic()
    for topic in (steady, trimmed):
        harness.produce(topic, VIEW, [{"member_id": i, "url": f"/{i}"} for i in range(3)])
    monkeypatch.setenv("LOADER_PAUSE_AT", "after_table_ready:4")
    result: dict[str, RunReport] = {}
    running = threading.Thread(target=lambda: result.update(report=harness.run(spark)))
    running.start()
    table = f"{harness.database}.{table_name(trimmed)}"
    deadline = time.monotonic() + 120
    while not spark.catalog.tableExists(table):  # made ready by the group, which now pauses
        assert running.is_alive() and time.monotonic() < deadline, result
        time.sleep(0.2)
    admin = harness.kafka.admin()  # must outlive its futures
    for future in admin.delete_records([TopicPartition(trimmed, 0, 2)]).values():
        future.result(timeout=30)
    running.join(300)

    loaded = {t.topic: t for t in result["report"].topics}
    assert result["report"].exit_code == EXIT_FAILED
    assert (loaded[steady].status, loaded[steady].records) == ("loaded", 3)
    assert rows(spark, loaded[steady].table, "member_id") == [(0,), (1,), (2,)]
    assert loaded[trimmed].status == "failed"
    assert (loaded[trimmed].reason or "").startswith(f"{trimmed}: ")
    monkeypatch.delenv("LOADER_PAUSE_AT")
    # The failed topic committed nothing: the next run starts it where Kafka's records now start.
    again = {t.topic: t for t in harness.run(spark).topics}
    assert (again[trimmed].status, again[trimmed].offsets, again[trimmed].records) == (
        "loaded",
        {0: (2, 3)},
        1,
    )
    assert again[steady].status == "up to date"


def test_without_the_loader_s_writer_jar_a_run_says_so_and_loads_every_topic_alone(
    cli_harness: Harness, tmp_path: Path
) -> None:
    """A deployment whose `--jars` left out the loader's writer: nothing lost, each topic in its own
    query, and a note that says what to add."""
    from loader.runtime.spark_session import connector_jars

    connectors = Path(next(j for j in connector_jars() if "tableloader" not in Path(j).name)).parent
    without_writer = tmp_path / "jars"
    without_writer.mkdir()
    (without_writer / connectors.name).symlink_to(connectors)
    first, second = cli_harness.topic(), cli_harness.topic()
    for topic in (first, second):
        cli_harness.produce(topic, VIEW, [{"member_id": i, "url": f"/{i}"} for i in range(3)])

    done = cli_harness.run_cli(env={"PIPELINE_JARS_DIR": str(without_writer)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "the loader's writer jar is not on Spark's classpath" in done.stderr
    assert "every small topic is loaded in a query of its own" in done.stderr

    # With the writer, the same run says nothing of it: the counts before it, the run (its notes, which
    # `loader run` prints on its stderr, on a console of its own) and the counts after, in one process.
    for topic in (first, second):
        cli_harness.produce(topic, VIEW, [{"member_id": 3, "url": "/3"}])
    tables = [f"{cli_harness.database}.{table_name(topic)}" for topic in (first, second)]
    loaded, notes, counted, after = cli_harness.in_loader_application(
        f"""
        import io
        from loader import job
        def counted():
            for table in {tables!r}:
                spark.catalog.refreshTable(table)  # as a new process would read it
            return [spark.sql(f"SELECT count(*) AS n FROM {{table}}").first()["n"] for table in {tables!r}]
        before = counted()
        notes = io.StringIO()
        report = job.run(settings, spark, Console(file=notes, width=200))
        assert report.exit_code == 0, report.to_json()
        results = [{{t.topic: t.records for t in report.topics}}, notes.getvalue(), before, counted()]
        """
    )
    assert counted == [3, 3], "the run without the writer lost nothing"
    assert loaded == {first: 1, second: 1}
    assert "writer jar" not in notes, notes
    assert after == [4, 4]
