"""Where the embedded metastore lives and how a misplaced database or table is named (no services)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loader.config_environment import absolute_if_local
from loader.runtime.spark_session import EMBEDDED_METASTORE_DIR, embedded_metastore
from loader.warehouse_layout import Locations, layout_problems

EXPECTED = "file:/data/lake-b/kafka.db"


def test_a_database_not_yet_in_the_metastore_is_no_problem() -> None:
    assert layout_problems("kafka", "/data/lake-b", EXPECTED, Locations(None, {})) == []


def test_a_database_and_tables_inside_the_warehouse_are_no_problem() -> None:
    tables = {"orders": f"{EXPECTED}/orders", "views": f"{EXPECTED}/views/"}
    assert layout_problems("kafka", "/data/lake-b", EXPECTED, Locations(EXPECTED + "/", tables)) == []


def test_a_database_in_another_warehouse_names_both_paths_and_the_remedy() -> None:
    found = Locations("file:/data/lake-a/kafka.db", {"orders": "file:/data/lake-a/kafka.db/orders"})
    [problem] = layout_problems("kafka", "/data/lake-b", EXPECTED, found)
    assert "database kafka is at file:/data/lake-a/kafka.db in the metastore" in problem
    assert "this run's warehouse /data/lake-b puts it at file:/data/lake-b/kafka.db" in problem
    assert "Nothing was loaded" in problem
    assert "--warehouse file:/data/lake-a" in problem


def test_a_table_outside_its_database_is_named_with_the_remedy() -> None:
    # A sibling directory whose name starts like the database's must not pass for being inside it.
    tables = {"ok": f"{EXPECTED}/ok", "moved": "file:/elsewhere/moved", "sibling": EXPECTED + "_old/sibling"}
    problems = layout_problems("kafka", "/data/lake-b", EXPECTED, Locations(EXPECTED, tables))
    assert len(problems) == 2
    assert problems[0].startswith("table kafka.moved is at file:/elsewhere/moved, outside its database's")
    assert f"ALTER TABLE kafka.moved SET LOCATION '{EXPECTED}/moved'" in problems[0]
    assert problems[1].startswith(f"table kafka.sibling is at {EXPECTED}_old/sibling")


def test_a_new_warehouse_keeps_its_metastore_inside_even_beside_an_old_shared_one(tmp_path: Path) -> None:
    (tmp_path / "metastore_db").mkdir()  # an older version's metastore, shared by this parent's lakes
    chosen = embedded_metastore(tmp_path / "lake-b")
    assert chosen.home == tmp_path / "lake-b" / EMBEDDED_METASTORE_DIR
    assert not chosen.legacy


def test_a_lake_made_by_an_older_version_keeps_using_its_metastore_until_it_is_moved(tmp_path: Path) -> None:
    (tmp_path / "metastore_db").mkdir()
    (tmp_path / "lake-a" / "_loader_state").mkdir(parents=True)  # a run's lock is taken before Spark starts
    assert not embedded_metastore(tmp_path / "lake-a").legacy
    (tmp_path / "lake-a" / "kafka.db").mkdir()  # a database the old shared metastore made
    chosen = embedded_metastore(tmp_path / "lake-a")
    assert (chosen.home, chosen.database, chosen.legacy) == (tmp_path, tmp_path / "metastore_db", True)

    (tmp_path / "lake-a" / EMBEDDED_METASTORE_DIR / "metastore_db").mkdir(parents=True)  # moved in
    assert embedded_metastore(tmp_path / "lake-a").home == tmp_path / "lake-a" / EMBEDDED_METASTORE_DIR


def test_local_paths_become_absolute_and_uris_stay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert absolute_if_local("lake") == str(tmp_path / "lake")
    for uri in ("hdfs://nn/warehouse", "s3a://bucket/w", "file:/w", "file:///w"):
        assert absolute_if_local(uri) == uri
