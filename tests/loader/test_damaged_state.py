"""A damaged commit manifest (cut in half, emptied, its offsets overwritten in place) stops the run before
it loads anything, with a line naming the file, whether its checksum (the `.crc` file beside it) or its
content is wrong, and what to restore; once it is restored (with its `.crc`, or without one), the next run
loads every record exactly once."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.outcome.report import EXIT_FAILED
from tests.loader.harness import Harness, committed_offsets, record_schema

pytestmark = pytest.mark.integration

EVENT = record_schema("Tick", [{"name": "n", "type": "long", "doc": "Sequence number."}])


def commits_dir(harness: Harness) -> Path:
    return harness.warehouse / "_loader_state" / harness.database / "commits"


def cut_in_half(manifest: Path) -> None:
    data = manifest.read_bytes()
    manifest.write_bytes(data[: len(data) // 2])


def emptied(manifest: Path) -> None:
    manifest.write_bytes(b"")


def offsets_overwritten(manifest: Path) -> None:
    """Every offset of the manifest set to 0 in place, digit for digit: the file stays valid JSON."""
    text = manifest.read_text()
    block = re.search(r'"offsets": \{.*?\n \}', text, re.S)
    assert block is not None
    zeroed = re.sub(r'(": )(\d+)', lambda m: m.group(1) + "0" * len(m.group(2)), block.group(0))
    assert zeroed != block.group(0)
    manifest.write_text(text.replace(block.group(0), zeroed))


def rows_by_offset(spark: SparkSession, table: str) -> list[tuple[int, int]]:
    spark.catalog.refreshTable(table)
    found = spark.sql(f"SELECT _kafka_partition, _kafka_offset FROM {table}").collect()
    return sorted((r[0], r[1]) for r in found)


@pytest.mark.parametrize(
    ("damage", "cause", "keep_crc"),
    [
        (cut_in_half, "checksum mismatch", True),
        (emptied, "unreadable JSON", False),
        (offsets_overwritten, "checksum mismatch", False),
    ],
)
def test_a_damaged_manifest_is_named_and_once_restored_every_record_loads_once(
    harness: Harness,
    spark: SparkSession,
    damage: Callable[[Path], None],
    cause: str,
    keep_crc: bool,
) -> None:
    topic = harness.topic(partitions=2)
    harness.produce(topic, EVENT, [{"n": i} for i in range(6)])
    first = harness.run(spark)
    assert first.exit_code == 0, first.error
    [manifest] = sorted(commits_dir(harness).glob("*.json"))
    crc = manifest.with_name(f".{manifest.name}.crc")
    assert crc.exists()  # Hadoop's checksum file beside it, written with it
    backup, backup_crc = manifest.read_bytes(), crc.read_bytes()

    damage(manifest)
    harness.produce(topic, EVENT, [{"n": i} for i in range(6, 10)])
    refused = harness.run(spark)

    assert refused.exit_code == EXIT_FAILED
    assert refused.error is not None
    part = "checksum" if cause == "checksum mismatch" else "content"
    assert refused.error.startswith(f"the state file {manifest}: {cause} ("), refused.error
    assert "nothing was committed, no offset moved" in refused.error
    assert f"restore {manifest.name} from a backup" in refused.error
    assert f".{manifest.name}.crc" in refused.error
    assert (part == "checksum") == ("its checksum" in refused.error)
    assert sorted(commits_dir(harness).glob("*.json")) == [manifest]  # nothing new committed

    manifest.write_bytes(backup)  # restored from a backup: byte for byte with its .crc, or without one
    if keep_crc:
        crc.write_bytes(backup_crc)
    else:
        crc.unlink(missing_ok=True)
    again = harness.run(spark)

    assert again.exit_code == 0, again.error
    [loaded] = [t for t in again.topics if t.topic == topic]
    assert loaded.records == 4
    assert rows_by_offset(spark, loaded.table or "") == committed_offsets(harness, topic)
