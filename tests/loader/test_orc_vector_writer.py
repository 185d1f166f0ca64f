"""The loader's ORC writer from Spark's rows straight into ORC's column vectors (`OrcVectorWriter` in
`jvm/tableloader/`, used by `loader.formats.hive.many_tables`): the same file, byte for byte, as Spark's own
ORC writer writes from the same rows, for every type it takes, with nulls at every depth, dates and
timestamps before the Gregorian calendar began, and batches flushed where Spark's flushes them; Spark's
writer for the types it does not take."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow.orc as orc
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from loader.formats import GROUP_MEMBER, GROUP_TIMESTAMP, group_rows_column
from loader.formats.hive.many_tables import VECTOR_WRITER_SETTING, WrittenFile, write_tables

pytestmark = pytest.mark.integration

# `id`, then a column of every type the vector writer takes, each NULL in some rows (`id % 7 = 3`),
# with values from `id`: negative and extreme numbers, non-ASCII and empty strings, dates and timestamps
# from year 1 (the hybrid Julian calendar ORC files hold differs there from Spark's), a decimal past a
# long's range, nested structs, arrays and maps with NULL elements and values, map keys in no order. Rows
# 100 to 102 hold 20,000 array elements each: ORC's record writer flushes a batch before its children
# pass 32,768.
EVERY_TYPE = """
    SELECT
      id,
      id % 2 = 0 AS flag,
      CAST(id % 256 - 128 AS TINYINT) AS tiny,
      CAST(id * 37 % 65536 - 32768 AS SMALLINT) AS small,
      CAST(id * 7919 - 2147483648 AS INT) AS whole,
      id * 922337203685477 - 9223372036854775807 AS big,
      CAST(id AS FLOAT) / 3 AS single,
      CASE WHEN id % 11 = 0 THEN double('NaN') ELSE -id / 7.0D END AS double,
      concat('é', repeat('x', id % 5), CAST(id AS STRING)) AS text,
      CASE WHEN id % 13 = 0 THEN '' ELSE 'ünïcødé' END AS other_text,
      CAST(concat('b', CAST(id AS STRING)) AS BINARY) AS bytes,
      CAST(id / 3 - 400 AS DECIMAL(10, 2)) AS money,
      CAST(concat(CAST(id AS STRING), '12345678901234567890.1234567890') AS DECIMAL(38, 10)) AS huge,
      date_add(DATE'0001-01-01', CAST(id * 251 AS INT)) AS day,
      timestamp_micros(id * 123456789012345 - 62135596800000000 + id) AS moment,
      named_struct(
        'id', id,
        'inner', CASE WHEN id % 5 = 1 THEN NULL ELSE named_struct('name', CAST(id AS STRING), 'n', id % 3) END
      ) AS nested,
      CASE WHEN id BETWEEN 100 AND 102 THEN sequence(1L, 20000L)
           WHEN id % 4 = 0 THEN array()
           ELSE array(id, NULL, id + 1) END AS numbers,
      array(named_struct('k', 'a', 'v', CAST(NULL AS INT)), CAST(NULL AS STRUCT<k: STRING, v: INT>),
            named_struct('k', CAST(id AS STRING), 'v', CAST(id AS INT))) AS pairs,
      map('zeta', CAST(id AS STRING), 'alpha', CAST(NULL AS STRING), 'Émile', 'x', 'Alpha', '') AS tags,
      map(concat('k', CAST(id % 3 AS STRING)), array(CAST(id AS INT), NULL)) AS lists
    FROM range(3000)
"""


@pytest.fixture
def writer_session(spark: SparkSession) -> Iterator[SparkSession]:
    """A session whose ORC codec is not Spark's default, so that both writers must take it."""
    session = spark.newSession()
    session.conf.set("spark.sql.orc.compression.codec", "snappy")
    yield session


def with_nulls(rows: DataFrame) -> DataFrame:
    """Every column but `id` NULL where `id % 7 = 3`."""
    return rows.select(
        "id",
        *[F.when(F.col("id") % 7 == 3, F.lit(None)).otherwise(F.col(c)).alias(c) for c in rows.columns[1:]],
    )


def as_group(rows: DataFrame) -> DataFrame:
    """`rows` as one member's rows of the group writer, all in one hour, in one task."""
    return rows.coalesce(1).select(
        F.lit(0).alias(GROUP_MEMBER),
        F.lit("2026-01-02 03:04:05").cast("timestamp").alias(GROUP_TIMESTAMP),
        F.struct(*rows.columns).alias(group_rows_column(0)),
    )


def write_with(session: SparkSession, rows: DataFrame, directory: Path, vector_writer: bool) -> WrittenFile:
    session.conf.set(VECTOR_WRITER_SETTING, str(vector_writer).lower())
    try:
        (written,) = write_tables(session, as_group(rows), [str(directory)], "hour")
    finally:
        session.conf.unset(VECTOR_WRITER_SETTING)
    return written


def comparable(rows: DataFrame) -> DataFrame:
    """`rows` with each map as its entries in key order (Spark compares no maps)."""
    return rows.select(
        *[
            F.array_sort(F.map_entries(c)).alias(c) if c in ("tags", "lists") else F.col(c)
            for c in rows.columns
        ]
    )


def vector_writer_takes(session: SparkSession, schema: StructType) -> bool:
    jvm = session._jvm
    assert jvm is not None
    jtype = jvm.org.apache.spark.sql.types.DataType.fromJson(schema.json())
    return bool(jvm.tableloader.OrcVectorWriter.writes(jtype))


def test_the_vector_writer_writes_spark_s_file_byte_for_byte_for_every_type(
    writer_session: SparkSession, tmp_path: Path
) -> None:
    rows = with_nulls(writer_session.sql(EVERY_TYPE))
    assert vector_writer_takes(writer_session, rows.schema)

    spark_s = write_with(writer_session, rows, tmp_path / "spark", vector_writer=False)
    vectors = write_with(writer_session, rows, tmp_path / "vectors", vector_writer=True)

    assert spark_s.rows == vectors.rows == 3000
    assert Path(vectors.path).read_bytes() == Path(spark_s.path).read_bytes()
    # And what both hold is the rows: read back by Spark (which undoes the calendar rebasing) and by
    # Arrow's ORC reader (which does not share Spark's code).
    written = comparable(writer_session.read.orc(vectors.path))
    assert written.exceptAll(comparable(rows)).count() == 0
    assert comparable(rows).exceptAll(written).count() == 0
    arrow = orc.ORCFile(vectors.path)
    assert arrow.compression == "SNAPPY"
    assert arrow.read(columns=["text"]).column(0).to_pylist()[:3] == ["é0", "éx1", "éxx2"]


def test_a_map_s_entries_are_written_in_key_order_as_spark_s_writer_writes_them(
    writer_session: SparkSession, tmp_path: Path
) -> None:
    rows = writer_session.sql("SELECT map('b', 1, 'a', 2, 'é', 3, 'B', 4) AS m")

    vectors = write_with(writer_session, rows, tmp_path / "vectors", vector_writer=True)

    (entries,) = orc.ORCFile(vectors.path).read().column("m").to_pylist()
    assert [key for key, _ in entries] == ["B", "a", "b", "é"]


def entries_in_key_order(session: SparkSession, keys: list[str]) -> list[int]:
    """The entries the vector writer writes of a map with `keys`, by their index in the map."""
    jvm, gateway = session._jvm, session.sparkContext._gateway
    assert jvm is not None and gateway is not None
    values = gateway.new_array(jvm.java.lang.Object, len(keys))
    for i, key in enumerate(keys):
        values[i] = jvm.org.apache.spark.unsafe.types.UTF8String.fromString(key)
    array = jvm.org.apache.spark.sql.catalyst.util.GenericArrayData(values)
    return list(jvm.tableloader.OrcVectorWriter.entriesInKeyOrder(array, len(keys)))


def test_a_map_with_a_key_twice_keeps_the_value_put_last_as_spark_s_tree_map_does(
    spark: SparkSession,
) -> None:
    # Spark SQL and Avro's reader make no such map (Avro's reads into a hash map), but Spark's writer
    # would write one through a TreeMap: one entry per key, in key order, the value put last.
    assert entries_in_key_order(spark, ["b", "a", "b", "c", "a", "b"]) == [4, 5, 3]
    assert entries_in_key_order(spark, ["z", "é", "Z", ""]) == [3, 2, 0, 1]
    assert entries_in_key_order(spark, []) == []


@pytest.mark.parametrize(
    ("column", "why"),
    [
        ("TIMESTAMP_NTZ'2026-01-02 03:04:05' AS local", "a timestamp without a time zone"),
        ("map(1, 'a') AS by_number", "a map whose keys are not strings"),
        ("INTERVAL '3' DAY AS waited", "an interval"),
    ],
)
def test_a_type_the_vector_writer_does_not_take_is_written_by_spark_s_writer(
    writer_session: SparkSession, tmp_path: Path, column: str, why: str
) -> None:
    rows = writer_session.sql(f"SELECT 1L AS id, {column}")
    assert not vector_writer_takes(writer_session, rows.schema), why

    written = write_with(writer_session, rows, tmp_path / "table", vector_writer=True)
    spark_s = write_with(writer_session, rows, tmp_path / "spark", vector_writer=False)

    assert Path(written.path).read_bytes() == Path(spark_s.path).read_bytes()
    assert writer_session.read.orc(written.path).collect() == rows.collect()
