"""The loader's group writer (`loader.formats.hive.many_tables`, its Java class in `jvm/tableloader/`) on its
own, without Kafka: one Spark job writing the rows of tables of different schemas, each file as Spark's
ORC writer would write it for that table alone, with the session's ORC settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow.orc as orc
import pytest
from pyspark.sql import DataFrame, SparkSession

from loader.formats import GROUP_MEMBER, GROUP_TIMESTAMP, group_rows_column
from loader.formats.hive.many_tables import WrittenFile, write_tables

pytestmark = pytest.mark.integration

CODEC = "spark.sql.orc.compression.codec"


@pytest.fixture
def writer_session(spark: SparkSession) -> Iterator[SparkSession]:
    """A session of the test application whose ORC codec is not Spark's default (zstd)."""
    session = spark.newSession()
    session.conf.set(CODEC, "snappy")
    yield session


def group_rows(spark: SparkSession) -> DataFrame:
    """Rows of two members of different schemas, one row of neither (NULL member: not written), in two
    hours of one day."""
    counts = "STRUCT<n: INT, tags: ARRAY<STRING>>"
    return spark.sql(f"""
        SELECT * FROM VALUES
          (0, TIMESTAMP'2026-01-02 03:04:05', named_struct('id', 1L, 'url', '/a'), CAST(NULL AS {counts})),
          (1, TIMESTAMP'2026-01-02 03:10:00', NULL, named_struct('n', 7, 'tags', array('x', 'y'))),
          (0, TIMESTAMP'2026-01-02 04:00:00', named_struct('id', 2L, 'url', '/b'), NULL),
          (NULL, TIMESTAMP'2026-01-02 04:00:00', NULL, NULL)
        AS t({GROUP_MEMBER}, {GROUP_TIMESTAMP}, {group_rows_column(0)}, {group_rows_column(1)})
    """)  # fmt: skip


def read_back(spark: SparkSession, file: WrittenFile) -> list[tuple]:
    return [tuple(r) for r in spark.read.orc(file.path).collect()]


def test_one_job_writes_each_member_s_files_with_the_session_s_orc_settings(
    writer_session: SparkSession, tmp_path: Path
) -> None:
    directories = [str(tmp_path / "views"), str(tmp_path / "counts")]
    written = sorted(write_tables(writer_session, group_rows(writer_session), directories, "hour"), key=str)

    by_member = {m: [f for f in written if f.member == m] for m in (0, 1)}
    assert [(Path(f.path).parent.relative_to(directories[0]).as_posix(), f.rows) for f in by_member[0]] == [
        ("dt=2026-01-02/hour=03", 1),
        ("dt=2026-01-02/hour=04", 1),
    ]
    assert [(Path(f.path).parent.relative_to(directories[1]).as_posix(), f.rows) for f in by_member[1]] == [
        ("dt=2026-01-02/hour=03", 1)
    ]
    assert [read_back(writer_session, f) for f in by_member[0]] == [[(1, "/a")], [(2, "/b")]]
    assert read_back(writer_session, by_member[1][0]) == [(7, ["x", "y"])]
    # Every member's files carry the settings Spark's ORC writer takes from the session (here its
    # codec), although the members share one Hadoop configuration in the job.
    assert {orc.ORCFile(f.path).compression for f in written} == {"SNAPPY"}
    assert {Path(f.path).suffix for f in written} == {".orc"}


def write_both(session: SparkSession, base: Path, records: list[int] | None = None) -> list[WrittenFile]:
    """The group rows written into two new member directories under `base`."""
    return write_tables(
        session, group_rows(session), [str(base / "views"), str(base / "counts")], "hour", records
    )


def buffer_sizes(files: list[WrittenFile]) -> set[int]:
    """The ORC writer buffer sizes the files' footers record."""
    return {orc.ORCFile(f.path).compression_size for f in files}


def test_each_member_s_files_take_orc_buffers_for_the_rows_it_can_have(
    writer_session: SparkSession, tmp_path: Path
) -> None:
    written = write_both(writer_session, tmp_path, records=[2, 2_000])

    assert {m: buffer_sizes([f for f in written if f.member == m]) for m in (0, 1)} == {
        0: {16 * 1024},
        1: {64 * 1024},
    }
    assert [read_back(writer_session, f) for f in sorted(written, key=str) if f.member == 0] == [
        [(1, "/a")],
        [(2, "/b")],
    ]


def test_without_the_rows_or_past_orc_s_own_the_files_take_orc_s_buffers(
    writer_session: SparkSession, tmp_path: Path
) -> None:
    """ORC's own: 256 KB for schemas this narrow (ORC lowers it for wide ones)."""
    unsized = write_both(writer_session, tmp_path / "unsized")
    big = write_both(writer_session, tmp_path / "big", records=[20_000, 5_000])
    assert buffer_sizes(unsized + big) == {256 * 1024}


def test_a_buffer_size_the_configuration_sets_is_kept(writer_session: SparkSession, tmp_path: Path) -> None:
    hadoop = writer_session.sparkContext._jsc.hadoopConfiguration()
    hadoop.set("orc.compress.size", str(8 * 1024))
    try:
        written = write_both(writer_session, tmp_path, records=[2, 2])
    finally:
        hadoop.unset("orc.compress.size")
    assert buffer_sizes(written) == {8 * 1024}


def hours_in_turn(spark: SparkSession) -> DataFrame:
    """One member's rows in one task, in the order hour 03, 04, 05 and 03 again (a record out of time
    order, or a second Kafka partition read by the same task)."""
    return spark.sql(f"""
        SELECT * FROM VALUES
          (0, TIMESTAMP'2026-01-02 03:00:00', named_struct('id', 1L)),
          (0, TIMESTAMP'2026-01-02 03:30:00', named_struct('id', 2L)),
          (0, TIMESTAMP'2026-01-02 04:00:00', named_struct('id', 3L)),
          (0, TIMESTAMP'2026-01-02 05:00:00', named_struct('id', 4L)),
          (0, TIMESTAMP'2026-01-02 03:45:00', named_struct('id', 5L))
        AS t({GROUP_MEMBER}, {GROUP_TIMESTAMP}, {group_rows_column(0)})
    """).coalesce(1)  # fmt: skip


def files_by_hour(files: list[WrittenFile], base: Path) -> list[tuple[str, str, int]]:
    """(partition directory, the file's counter, rows) of each file."""
    return sorted(
        (Path(f.path).parent.relative_to(base).as_posix(), Path(f.path).name.split(".")[0][-4:], f.rows)
        for f in files
    )


def test_a_task_past_its_open_files_closes_the_one_written_least_recently_and_starts_another(
    writer_session: SparkSession, tmp_path: Path
) -> None:
    base = tmp_path / "views"
    written = write_tables(
        writer_session, hours_in_turn(writer_session), [str(base)], "hour", max_open_files=2
    )

    # Hour 05's file closed hour 03's (the two others were open), and hour 03's last row, which came
    # after, went into a file of its own.
    assert files_by_hour(written, base) == [
        ("dt=2026-01-02/hour=03", "c000", 2),
        ("dt=2026-01-02/hour=03", "c001", 1),
        ("dt=2026-01-02/hour=04", "c000", 1),
        ("dt=2026-01-02/hour=05", "c000", 1),
    ]
    rows = sorted(row for f in written for row in read_back(writer_session, f))
    assert rows == [(1,), (2,), (3,), (4,), (5,)]
    # Nothing under the directory but the files returned (a closed file is not written twice).
    assert sorted(str(p) for p in base.rglob("*.orc")) == sorted(f.path for f in written)


def test_without_a_limit_a_task_keeps_one_file_per_partition(
    writer_session: SparkSession, tmp_path: Path
) -> None:
    base = tmp_path / "views"
    written = write_tables(
        writer_session, hours_in_turn(writer_session), [str(base)], "hour", max_open_files=0
    )
    assert files_by_hour(written, base) == [
        ("dt=2026-01-02/hour=03", "c000", 3),
        ("dt=2026-01-02/hour=04", "c000", 1),
        ("dt=2026-01-02/hour=05", "c000", 1),
    ]
