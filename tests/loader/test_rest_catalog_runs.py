"""Whole `loader` processes against a real Iceberg REST catalog whose tables' files are on a real
S3-compatible store (`scripts/iceberg-rest`, `scripts/object-store`): the loader's settings reach them
(OAuth2 client credentials from a variable, the store's keys vended by the catalog), runs load exactly
once, `loader status` and `audit` read the tables there, and pyiceberg, a second engine, reads what the
loader wrote through the same catalog."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from threading import Event
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg.exceptions import NoSuchNamespaceError
from pyspark.sql import SparkSession
from rich.console import Console

from loader import job
from loader.formats.catalog_lock import OWNER_PROPERTY
from loader.formats.catalog_settings import CREDENTIAL_VARIABLE, take_catalog
from loader.formats.iceberg import summary_key
from loader.formats.iceberg_catalogs import IcebergCatalog, spark_catalog_conf
from loader.job import QUARANTINE_TABLE
from loader.operations.audit import audit
from loader.operations.status import collect
from loader.outcome.report import EXIT_LOCKED, RunReport, render
from loader.schema.naming import table_name
from tests.fixtures.object_store import BUCKET
from tests.fixtures.ports import free_port
from tests.fixtures.rest_catalog import WAREHOUSE_PREFIX, RestCatalogService
from tests.fixtures.spark import ICEBERG_EXTENSIONS
from tests.loader.harness import Harness, committed_offsets, on_rest_catalog, record_schema
from tests.loader.test_run_process import start_cli
from tests.tiers import FULL

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

EVENT = record_schema("Reading", [{"name": "n", "type": "long"}, {"name": "sensor", "type": "string"}])


def readings(first: int, count: int) -> list[dict[str, Any]]:
    return [{"n": n, "sensor": f"s{n % 3}"} for n in range(first, first + count)]


@pytest.fixture
def rest_harness(cli_harness: Harness, rest_catalog: RestCatalogService) -> Harness:
    return on_rest_catalog(cli_harness, rest_catalog)


def succeeded(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def test_runs_load_into_the_rest_catalog_exactly_once_and_pyiceberg_reads_them(
    rest_harness: Harness, rest_catalog: RestCatalogService, spark: SparkSession, spark_warehouse: Path
) -> None:
    """With the loader's state on the object store too (a state directory on a local disk under a REST
    catalog: the two loaders' test below, each with its own). The first run is a `loader run` process,
    its catalog reached as a cron job's environment says it; the next runs, `status` and `audit` run in
    this worker's application on a session of that catalog, as the process's own is made."""
    on_rest_catalog(rest_harness, rest_catalog, state_on_store=True)
    in_process = rest_harness.in_process(spark_warehouse)
    session = in_process.session(spark)
    reader = rest_catalog.pyiceberg(
        credential="reader:any", **{"oauth2-server-uri": f"{rest_catalog.uri}/v1/oauth/tokens"}
    )
    # The catalog, as managed ones do, creates no table in a namespace it does not have: the loader's
    # first run into a new database creates the namespace there.
    with pytest.raises(NoSuchNamespaceError):
        reader.create_table(f"{rest_harness.database}.stray", schema=pa.schema([("n", pa.int64())]))
    topic = rest_harness.topic(partitions=2)
    rest_harness.produce(topic, EVENT, readings(0, 5))
    succeeded(rest_harness.run_cli())
    assert reader.namespace_exists(rest_harness.database)
    rest_harness.produce(topic, EVENT, readings(5, 4))
    second = in_process.run(session)
    assert (second.exit_code, [t.records for t in second.topics]) == (0, [4]), second.to_json()
    third = in_process.run(session)  # nothing new: nothing loaded again
    assert (third.exit_code, [t.records for t in third.topics]) == (0, [0])

    table = reader.load_table(f"{rest_harness.database}.{table_name(topic)}")
    rows = table.scan().to_arrow().to_pylist()
    assert sorted(r["n"] for r in rows) == list(range(9))
    held = json.loads(table.current_snapshot().summary[summary_key(topic)])
    assert sum(held["offsets"].values()) == 9
    # The table's files are on the store, where the catalog put them.
    assert table.location().startswith(f"s3://{BUCKET}/{WAREHOUSE_PREFIX}/")
    listed = rest_catalog.store.client().list_objects_v2(
        Bucket=BUCKET, Prefix=table.location().removeprefix(f"s3://{BUCKET}/") + "/data/"
    )
    assert [o["Key"] for o in listed.get("Contents", []) if o["Key"].endswith(".parquet")]

    status = collect(in_process.settings(), session)
    assert [(t.topic, t.saved, t.lag) for t in status.topics] == [(topic, 9, 0)], status
    assert table_name(topic) in status.topics[0].tables[0], status
    audited = audit(in_process.settings(), session, QUARANTINE_TABLE)
    windows = audited.windows  # the runs' audit records, read where they are
    assert audited.ok and sum(w.kafka for w in windows) == sum(w.table_rows for w in windows) == 9, windows

    # The state directory: its newest manifest and the runs' audit records, on the store.
    prefix = f"loader-state/{rest_harness.database}/"
    keys = [
        o["Key"].removeprefix(prefix)
        for o in rest_catalog.store.client().list_objects_v2(Bucket=BUCKET, Prefix=prefix)["Contents"]
    ]
    assert "commits/000000000002.json" in keys and "commits/000000000002.applied" in keys, keys
    assert len([k for k in keys if k.startswith("audit/")]) == 2, keys
    assert not [k for k in keys if k.startswith("staging/") or k.endswith(".tmp")], keys
    assert not (rest_harness.warehouse / "_loader_state" / rest_harness.database).exists()


# Two loaders of one state directory on the store race for its lock and the catalog's; with state
# directories of their own only for the catalog's (the full tier's case).
@pytest.mark.parametrize(
    "state",
    [
        pytest.param("state directories of their own", marks=FULL),
        "one state directory on the store",
    ],
)
def test_two_loaders_started_together_never_load_a_record_twice(
    rest_harness: Harness, rest_catalog: RestCatalogService, tmp_path: Path, state: str
) -> None:
    """Two loaders (two hosts' cron) write one database of the catalog, started at the same moment round
    after round, with state directories of their own on local disks, or sharing one on the object store
    (which has no lock of its own there): the catalog's lock lets one load at a time, and what the other
    finds loaded (the snapshot's offsets, or the shared manifest) it does not load again. Two rounds:
    the first into a database with no table yet (both make the namespace and race for the lock), the
    second into the table the first made, after whatever the first round's loser left."""
    on_rest_catalog(rest_harness, rest_catalog, state_on_store=state == "one state directory on the store")
    other = replace(rest_harness, warehouse=tmp_path / "other-warehouse")
    topic = rest_harness.topic(partitions=2)
    produced, outcomes = 0, []
    with ThreadPoolExecutor(2) as pool:
        for round_ in range(2):
            rest_harness.produce(topic, EVENT, readings(produced, 6))
            produced += 6
            runs = [pool.submit(h.run_cli) for h in (rest_harness, other)]
            done = [run.result() for run in runs]
            outcomes.append([d.returncode for d in done])
            for d in done:
                assert d.returncode in (0, 75), d.stdout[-3000:] + d.stderr[-3000:]
                if d.returncode == 75:
                    assert f"{rest_harness.database}._loader_run_lock" in d.stderr, d.stderr[-2000:]
            assert 0 in outcomes[-1], (round_, done[0].stderr[-2000:], done[1].stderr[-2000:])
    succeeded(other.run_cli())  # whatever the last round's loser left

    table = rest_catalog.pyiceberg(
        credential="reader:any", **{"oauth2-server-uri": f"{rest_catalog.uri}/v1/oauth/tokens"}
    ).load_table(f"{rest_harness.database}.{table_name(topic)}")
    rows = table.scan().to_arrow().to_pylist()
    loaded = sorted((r["_kafka_partition"], r["_kafka_offset"]) for r in rows)
    assert len(loaded) == len(set(loaded)) == produced, outcomes
    assert sorted(r["n"] for r in rows) == list(range(produced))
    # Where each loader keeps its state: a directory of its own on its local disk (the manifests of the
    # runs it committed: each round's winner committed one), or the one on the store, and no other.
    local_states = [h.warehouse / "_loader_state" / h.database for h in (rest_harness, other)]
    if rest_harness.state_dir is None:
        assert any(list((state / "commits").glob("*.json")) for state in local_states), local_states
        on_store = rest_catalog.store.client().list_objects_v2(Bucket=BUCKET, Prefix="loader-state/")
        assert not [o for o in on_store.get("Contents", []) if rest_harness.database in o["Key"]]
    else:
        assert not any(state.exists() for state in local_states), local_states
        prefix = rest_harness.state_dir.removeprefix(f"s3://{BUCKET}/") + "/commits/"
        listed = rest_catalog.store.client().list_objects_v2(Bucket=BUCKET, Prefix=prefix)
        assert [o["Key"] for o in listed.get("Contents", []) if o["Key"].endswith(".json")], prefix


def test_a_lock_left_in_the_catalog(
    rest_harness: Harness,
    rest_catalog: RestCatalogService,
    ended_pid: int,
    spark: SparkSession,
    spark_warehouse: Path,
) -> None:
    """A lock whose run was of this host and is gone is taken over; one of another host's run stops the
    run (status 75, naming it) until `loader unlock` (a process) removes it; a catalog that does not
    answer fails the run with status 1, saying so. The runs in this worker's application, on a session of
    the catalog; what they print, as `loader run` prints it."""
    in_process = rest_harness.in_process(spark_warehouse)
    topic = rest_harness.topic()
    rest_harness.produce(topic, EVENT, readings(0, 3))
    client = rest_catalog.pyiceberg(
        credential="test:any", **{"oauth2-server-uri": f"{rest_catalog.uri}/v1/oauth/tokens"}
    )
    client.create_namespace_if_not_exists(rest_harness.database)
    lock_table = f"{rest_harness.database}._loader_run_lock"

    def leave_lock(host: str, pid: int) -> None:
        owner = json.dumps({"host": host, "pid": pid, "since": time.time() - 600})
        client.create_table(lock_table, schema=pa.schema([("owner", pa.string())]),
                            properties={OWNER_PROPERTY: owner})  # fmt: skip

    def run(on: Harness) -> tuple[RunReport, str]:
        """A run and what it prints: its notes, then its report (the CLI's error line among them). Each on
        a session of its own, as each process has: a session's catalog keeps the tables it looked up."""
        out = io.StringIO()
        report = job.run(on.settings(), on.session(spark), Console(file=out, width=200))
        render(report, Console(file=out, width=200))
        return report, " ".join(out.getvalue().split())

    leave_lock(socket.gethostname(), ended_pid)
    taken_over, said = run(in_process)
    assert taken_over.exit_code == 0, said
    assert f"took over the lock {lock_table}" in said
    assert not client.table_exists(lock_table)  # released at the run's end

    leave_lock("another-host", 4242)
    rest_harness.produce(topic, EVENT, readings(3, 2))
    refused, said = run(in_process)
    assert refused.exit_code == EXIT_LOCKED, said
    assert lock_table in refused.error and "another-host" in refused.error  # `not started: <error>`
    unlocked = succeeded(rest_harness.run_cli("--yes", command="unlock"))
    assert f"removed {lock_table}" in unlocked.stderr
    loaded, said = run(in_process)
    assert loaded.exit_code == 0, said
    rows = client.load_table(f"{rest_harness.database}.{table_name(topic)}").scan().to_arrow()
    assert sorted(rows.column("n").to_pylist()) == list(range(5))

    dead = f"http://127.0.0.1:{free_port()}"
    unanswered = replace(
        in_process, catalog_settings={**in_process.catalog_settings, "iceberg_rest_uri": dead}
    )
    gone, said = run(unanswered)
    assert gone.exit_code == 1, said
    assert f"the Iceberg catalog did not take the run lock {lock_table}" in said, said
    assert "Connection refused" in said and "nothing was read or loaded" in said, said


def count_with_spark(session: SparkSession, table: str, stop: Event, counts: list[int]) -> None:
    """Counts a table through the REST catalog as fast as it can until `stop`, each count from the newest
    snapshot (no catalog cache): a Spark application apart from the loader's process (the worker's), its
    catalog named `lake`, as an application that reads the lake beside its own tables would name it."""
    while not stop.is_set():
        if not session.catalog.tableExists(f"lake.{table}"):
            time.sleep(0.1)
            continue
        counts.append(session.sql(f"SELECT count(*) AS c FROM lake.{table}").first()["c"])


def test_spark_and_pyiceberg_read_only_whole_snapshots_while_a_load_runs(
    rest_harness: Harness, rest_catalog: RestCatalogService, spark: SparkSession
) -> None:
    topic = rest_harness.topic(partitions=2)
    for n in range(0, 60, 2):  # a pair at a time: one record in each Kafka partition
        rest_harness.produce(topic, EVENT, readings(n, 2))
    table = f"{rest_harness.database}.{table_name(topic)}"
    reading = take_catalog(dict(rest_harness.catalog_settings), {CREDENTIAL_VARIABLE: "reader:any"})
    lake = spark.newSession()
    for key, value in spark_catalog_conf(IcebergCatalog("rest", "unused", reading), name="lake").items():
        if key != ICEBERG_EXTENSIONS:
            lake.conf.set(key, value)
    lake.conf.set("spark.sql.catalog.lake.cache-enabled", "false")
    client = rest_catalog.pyiceberg(
        credential="pyiceberg:any", **{"oauth2-server-uri": f"{rest_catalog.uri}/v1/oauth/tokens"}
    )
    pyiceberg_counts: list[int] = []
    spark_counts: list[int] = []
    stop = Event()

    def count_with_pyiceberg() -> None:
        while not stop.is_set():
            if client.table_exists(table):
                pyiceberg_counts.append(len(client.load_table(table).scan().to_arrow()))
            time.sleep(0.05)

    with ThreadPoolExecutor(2) as pool:
        counting = pool.submit(count_with_pyiceberg)
        counting_in_spark = pool.submit(count_with_spark, lake, table, stop, spark_counts)
        try:
            # Six runs in one process (5 offsets of each partition at a time), each one Iceberg commit.
            succeeded(rest_harness.run_cli("--max-records-per-partition", "5", "--until-caught-up"))
            deadline = time.monotonic() + 180  # until each reader has counted the last commit
            while not (pyiceberg_counts[-1:] == [60] and spark_counts[-1:] == [60]):
                assert not counting_in_spark.done(), counting_in_spark.exception()
                assert time.monotonic() < deadline, "a reader never counted the last commit"
                time.sleep(0.5)
        finally:
            stop.set()
        counting_in_spark.result(timeout=180)
        counting.result(timeout=60)

    snapshots = client.load_table(table).snapshots()
    totals = {0} | {int(s.summary["total-records"]) for s in snapshots if s.summary is not None}
    assert (
        len([s for s in snapshots if s.summary and summary_key(topic) in s.summary.additional_properties])
        == 6
    )
    for engine, counts in (("Spark", spark_counts), ("pyiceberg", pyiceberg_counts)):
        assert counts and counts[-1] == 60, (engine, counts[-5:])
        assert set(counts) <= totals, (
            f"{engine}: {sorted(set(counts) - totals)} are no commit's total {totals}"
        )
        assert counts == sorted(counts), f"{engine}: a count went back"
    seen_between = {c for c in spark_counts + pyiceberg_counts if 0 < c < 60}
    assert seen_between, "the readers saw no commit but the last: they proved nothing"


def test_a_schema_change_through_the_rest_catalog(
    harness: Harness, rest_catalog: RestCatalogService, spark: SparkSession
) -> None:
    """A field added with a default and a field widened, as under the metastore: the table evolves
    through the catalog, old rows read the default (format version 3). In-process, on a session of the
    catalog (the first test of this file has its runs in a process too)."""
    before = record_schema("Reading", [{"name": "n", "type": "int"}, {"name": "sensor", "type": "string"}])
    after = record_schema("Reading", [
        {"name": "n", "type": "long"}, {"name": "sensor", "type": "string"},
        {"name": "unit", "type": "string", "default": "celsius"},
    ])  # fmt: skip
    rest_harness = on_rest_catalog(harness, rest_catalog)
    session = rest_harness.session(spark)
    topic = rest_harness.topic()
    rest_harness.produce(topic, before, [{"n": i, "sensor": "s"} for i in range(3)])
    first = rest_harness.run(session)
    assert (first.exit_code, [t.table_action for t in first.topics]) == (0, ["created"]), first.to_json()
    rest_harness.produce(topic, after, [{"n": 2**40, "sensor": "s", "unit": "kelvin"}])
    second = rest_harness.run(session)
    assert (second.exit_code, [t.table_action for t in second.topics]) == (0, ["evolved"]), second.to_json()

    table = f"{rest_harness.database}.{table_name(topic)}"
    rows = session.sql(f"SELECT n, unit FROM {table} ORDER BY n").collect()
    columns = session.sql(f"DESCRIBE {table}").collect()
    assert [(r["n"], r["unit"]) for r in rows] == [
        (0, "celsius"),
        (1, "celsius"),
        (2, "celsius"),
        (2**40, "kelvin"),
    ]
    assert {r["col_name"]: r["data_type"] for r in columns}["n"] == "bigint"


def test_a_store_gone_before_the_run_is_named_and_the_next_run_loads_everything(
    rest_harness: Harness, rest_catalog: RestCatalogService, spark: SparkSession, spark_warehouse: Path
) -> None:
    """The object store is down when a run starts: the catalog cannot take the run lock (its server's
    error names the store's endpoint), and the run names the store, not the catalog, in its error line,
    printed as text (its `[/127.0.0.1]` is no markup); once the store is back, the next run loads every
    record. In this worker's application, on a session of the catalog."""
    on_rest_catalog(rest_harness, rest_catalog, state_on_store=True)
    in_process = rest_harness.in_process(spark_warehouse)
    topic = rest_harness.topic()
    rest_harness.produce(topic, EVENT, readings(0, 3))
    store = rest_catalog.store
    store.script("stop")
    try:
        down = in_process.run(in_process.session(spark))
    finally:
        store.script("start")
    assert down.exit_code == 1 and down.error is not None, down.to_json()
    assert down.error.startswith(f"the object store at {store.endpoint}, bucket {BUCKET}: connection refused")
    assert "nothing was committed, no offset moved" in down.error
    printed = io.StringIO()
    render(down, Console(file=printed, width=200))
    assert f"error: {down.error}" in " ".join(printed.getvalue().split())
    back = in_process.run(in_process.session(spark))
    assert (back.exit_code, [t.records for t in back.topics]) == (0, [3]), back.to_json()


def test_a_store_gone_before_the_manifest_loses_nothing_and_loads_nothing_twice(
    rest_harness: Harness,
    rest_catalog: RestCatalogService,
    tmp_path: Path,
    spark: SparkSession,
    spark_warehouse: Path,
) -> None:
    """The object store, which holds the tables' files and the loader's state directory, goes away after
    the run's Iceberg commit and before its manifest: the run fails with status 1 and says so; once the
    store is back, the next run finds in the table's snapshot what the failed run loaded, loads the rest,
    and every record is in the table once. The run the store leaves is a `loader run` process; the runs
    before and after it, and the audit, run in this worker's application."""
    on_rest_catalog(rest_harness, rest_catalog, state_on_store=True)
    in_process = rest_harness.in_process(spark_warehouse)
    session = in_process.session(spark)
    topic = rest_harness.topic(partitions=2)
    rest_harness.produce(topic, EVENT, readings(0, 5))
    first = in_process.run(session)
    assert first.exit_code == 0, first.to_json()
    rest_harness.produce(topic, EVENT, readings(5, 4))

    paused = tmp_path / "paused"
    # The catalog's server waits on the store too: the run's requests give up after 15 s, not 120.
    env = {"LOADER_ICEBERG_REST_TIMEOUT_SECONDS": "15", "LOADER_PAUSED_FILE": str(paused)}
    run = start_cli(rest_harness, {**env, "LOADER_PAUSE_AT": "after_staging:60"})
    store = rest_catalog.store
    try:
        deadline = time.monotonic() + 240
        while not paused.exists():
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "the run never reached its commit"
            time.sleep(0.1)
        store.script("stop")
        paused.unlink()  # the run goes on, without its store
        out, err = run.communicate(timeout=600)
    finally:
        run.kill()
        store.script("start")
    said = " ".join((out + err).split())
    assert run.returncode == 1, said[-4000:]
    (line,) = [line for line in out.splitlines() if line.startswith("error: ")]  # the run's last word
    named = f"error: the object store at {store.endpoint}, bucket {BUCKET}: connection refused"
    assert line.startswith(named), line
    assert line.endswith("check that the object store runs and answers from this host, then run again")
    assert "the loaded tables' own commits stay (each names the offsets it holds)" in said, said[-4000:]
    # The catalog could not drop its lock table either: the run says so, and the next run takes it over.
    assert f"did not remove the run lock {rest_harness.database}._loader_run_lock" in said, said[-4000:]

    rest_harness.produce(topic, EVENT, readings(9, 2))
    after = in_process.run(session)
    assert (after.exit_code, [t.already_held + t.records for t in after.topics]) == (0, [6]), after.to_json()
    assert committed_offsets(rest_harness, topic) == sorted(
        (r["_kafka_partition"], r["_kafka_offset"]) for r in table_rows(rest_harness, rest_catalog, topic)
    )
    assert sorted(r["n"] for r in table_rows(rest_harness, rest_catalog, topic)) == list(range(11))
    audited = audit(in_process.settings(), session, QUARANTINE_TABLE)
    assert audited.ok, audited.to_json()


def table_rows(harness: Harness, catalog: RestCatalogService, topic: str) -> list[dict[str, Any]]:
    reader = catalog.pyiceberg(
        credential="reader:any", **{"oauth2-server-uri": f"{catalog.uri}/v1/oauth/tokens"}
    )
    return reader.load_table(f"{harness.database}.{table_name(topic)}").scan().to_arrow().to_pylist()
