"""The loader's state files through Hadoop's file system API (`loader.planning.state_store`), on a real
Spark JVM: what is read back is what was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.planning.state_store import StateStore

pytestmark = pytest.mark.integration


def test_a_file_reads_back_exactly_as_it_was_written(spark: SparkSession, tmp_path: Path) -> None:
    store = StateStore(spark, f"file://{tmp_path}/state")
    store.mkdirs(store.path("commits"))
    # A manifest's size (a line per topic partition), text beyond ASCII, Windows line ends, and the
    # final line end, which a reader by lines would drop.
    text = "".join(f'  "topic_{i:04d}/0": {i},\n' for i in range(20_000)) + "café ✓\r\nlast\n"
    location = store.path("commits/000000000001.json")
    store.publish(location, text)

    assert store.read_text(location) == text
    assert (tmp_path / "state" / "commits" / "000000000001.json").read_bytes().decode() == text
    store.write_text(store.path("empty"), "")
    assert store.read_text(store.path("empty")) == ""


def test_a_missing_file_is_an_error_that_names_it(spark: SparkSession, tmp_path: Path) -> None:
    store = StateStore(spark, f"file://{tmp_path}/state")
    with pytest.raises(Exception, match=r"000000000009\.json"):
        store.read_text(store.path("commits/000000000009.json"))
