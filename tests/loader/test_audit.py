"""The audit: what each committed run read from Kafka, per topic and 10-minute window, against the rows
of the table plus the quarantine."""

from __future__ import annotations

import json
import os

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from loader.formats.metastore import table_location
from loader.job import QUARANTINE_TABLE
from loader.operations.audit import audit, window_of
from loader.planning.state_store import StateStore
from tests.loader.harness import Harness, record_schema

pytestmark = pytest.mark.integration

EVENT = record_schema("Audited", [{"name": "id", "type": "long"}])


def test_clean_load_audits_clean_and_a_deleted_file_is_named(harness: Harness, spark: SparkSession) -> None:
    topic = harness.topic(partitions=2)
    other = harness.topic()
    harness.produce(topic, EVENT, [{"id": i} for i in range(6)])
    harness.produce_raw(topic, [b"\x07not framed"])  # quarantined: counted on the quarantine's side
    harness.produce(other, EVENT, [{"id": 1}])
    first = harness.run(spark)
    harness.produce(topic, EVENT, [{"id": i} for i in range(6, 8)])  # a second run adds to the counts
    second = harness.run(spark)
    assert {first.exit_code, second.exit_code} == {0, 3}  # 3: the bad record (max_bad_ratio 0)
    loaded = next(t for t in first.topics if t.topic == topic)
    assert sum(loaded.windows.values()) == 7

    clean = audit(harness.settings(), spark, QUARANTINE_TABLE)

    ours = [w for w in clean.windows if w.topic in (topic, other)]
    assert ours and not clean.mismatches
    assert sum(w.kafka for w in ours if w.topic == topic) == 9
    assert sum(w.quarantined for w in ours if w.topic == topic) == 1

    # Behind the loader's back: one ORC file of the table disappears.
    store = StateStore(spark, harness.settings().state_location)
    files = [f for f in store.list_files(table_location(spark, loaded.table)) if ".orc" in f]
    victim = files[0]
    lost = spark.read.orc(victim).select(window_of(F.col("_kafka_timestamp")).alias("w")).collect()
    os.remove(victim.removeprefix("file:"))

    broken = audit(harness.settings(), spark, QUARANTINE_TABLE)

    assert broken.mismatches
    assert {(w.topic, w.window) for w in broken.mismatches} == {(topic, r["w"]) for r in lost}
    assert sum(w.kafka - w.table_rows - w.quarantined for w in broken.mismatches) == len(lost)
    assert json.loads(broken.to_json())["ok"] is False
