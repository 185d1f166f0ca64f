"""SQL text for a topic's query: names and literals read back as exactly what they were, whatever
characters a schema, a subject or a field holds."""

from __future__ import annotations

import json

import pytest
from pyspark.sql import SparkSession

from loader.reading.decoding import decode
from loader.reading.registry_client import SubjectSchemas
from loader.reading.sql_text import (
    binary_literal,
    case_when,
    identifier,
    named_struct,
    string_literal,
    string_map,
)
from loader.runtime.spark_session import (
    ESCAPED_STRING_LITERALS,
    _session_conf,
    read_string_escapes_as_spark_does,
)
from tests.loader.harness import record_schema
from tests.loader.test_decoding import framed, kafka_rows

AWKWARD = [
    "plain",
    "it's",
    "back\\slash",
    "\\'",
    "a\\u0041 unicode escape written out",
    "new\nline and tab\t",
    "\\%_ like-pattern escapes",
    "ünïcödé ✓",
    "",
]


@pytest.mark.parametrize("text", AWKWARD)
def test_a_string_literal_escapes_only_what_the_parser_reads_as_escapes(text: str) -> None:
    literal = string_literal(text)
    assert literal.startswith("'") and literal.endswith("'")
    inner = literal[1:-1]
    # Every quote and backslash inside is escaped by a backslash: none ends the literal early.
    unescaped = inner.replace("\\\\", "").replace("\\'", "")
    assert "'" not in unescaped and "\\" not in unescaped


def test_identifiers_are_quoted_and_a_backtick_is_doubled() -> None:
    assert identifier("partition") == "`partition`"
    assert identifier("odd`name") == "`odd``name`"


def test_composed_expressions_read_as_written() -> None:
    assert binary_literal(b"\x00\xff") == "X'00ff'"
    assert case_when([("a", "1"), ("b", "2")]) == "CASE WHEN a THEN 1 WHEN b THEN 2 END"
    assert case_when([("a", "1")], "0") == "CASE WHEN a THEN 1 ELSE 0 END"
    assert named_struct([("x", "1"), ("y", "`c`")]) == "named_struct('x', 1, 'y', `c`)"
    assert string_map({"k": "v"}) == "map('k', 'v')"
    with pytest.raises(AssertionError):
        case_when([])


@pytest.mark.integration
def test_spark_reads_each_literal_and_name_back_as_it_was(spark: SparkSession) -> None:
    columns = [f"{string_literal(text)} AS {identifier(f'c{i}`{text}')}" for i, text in enumerate(AWKWARD)]
    columns.append(f"{binary_literal(bytes(range(256)))} AS b")
    row = spark.range(1).selectExpr(*columns).first()
    assert row is not None
    assert list(row)[:-1] == AWKWARD
    assert row.b == bytes(range(256))
    assert row.__fields__[:-1] == [f"c{i}`{text}" for i, text in enumerate(AWKWARD)]


@pytest.mark.integration
def test_a_session_whose_cluster_turned_escapes_off_reads_literals_with_them_and_none_other_is_told(
    spark: SparkSession,
) -> None:
    """Spark 4 deprecates the setting and warns each time it is set: the loader sets it only where a
    cluster's defaults turned escapes off (a session starts from the application's settings)."""
    assert ESCAPED_STRING_LITERALS not in _session_conf("/warehouse")
    clusters = spark.newSession()
    clusters.conf.set(ESCAPED_STRING_LITERALS, "true")
    backslash = next(text for text in AWKWARD if "\\" in text)
    assert clusters.sql(f"SELECT {string_literal(backslash)} AS t").first()["t"] != backslash
    read_string_escapes_as_spark_does(clusters)
    assert clusters.conf.get(ESCAPED_STRING_LITERALS) == "false"
    assert [clusters.sql(f"SELECT {string_literal(t)} AS t").first()["t"] for t in AWKWARD] == AWKWARD


@pytest.mark.integration
def test_a_schema_whose_docs_and_defaults_hold_quotes_and_backslashes_decodes(spark: SparkSession) -> None:
    """The writer and reader schemas travel as literals inside the query's text."""
    doc = "the reading's unit, e.g. 'C' or \\u00b0F \\ degrees\nsecond line"
    v1 = record_schema("Odd", [{"name": "n", "type": "long", "doc": doc}])
    v2 = record_schema(
        "Odd",
        [
            {"name": "n", "type": "long", "doc": doc},
            {"name": "unit", "type": "string", "default": "it's \\ 'C' ✓", "doc": doc},
        ],
    )
    subject = "odd's-\\topic-value"
    values = SubjectSchemas(
        subject, 2, json.dumps(v2), {1: json.dumps(v1), 2: json.dumps(v2, ensure_ascii=False)}
    )
    raw = kafka_rows(
        spark, [framed(1, v1, {"n": 1}), framed(2, v2, {"n": 2, "unit": "K"}), framed(9, v1, {"n": 3})]
    )
    rows = decode(raw, values).orderBy("offset").collect()
    assert [(r.event.n, r.event.unit) for r in rows[:2]] == [(1, "it's \\ 'C' ✓"), (2, "K")]
    assert rows[2].bad_reason == f"schema id 9 is not a version of subject {subject}"
