"""One table format per database: a run refuses tables of the other format, loads nothing and keeps its
offsets, so that switching `--table-format` on a lake never loses or doubles rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loader.formats.one_format import MixedTableFormats, format_of_metastore_table, raise_mixed_formats
from loader.report import EXIT_FAILED
from loader.schema.naming import table_name
from tests.loader.harness import Harness, record_schema

EVENT = record_schema("Event", [{"name": "n", "type": "long"}])


@pytest.mark.parametrize(
    ("table_type", "expected"), [("ICEBERG", "iceberg"), ("iceberg", "iceberg"), (None, "hive"), ("", "hive")]
)
def test_iceberg_tables_are_known_by_their_metastore_table_type(
    table_type: str | None, expected: str
) -> None:
    assert format_of_metastore_table(table_type) == expected


def test_tables_of_the_run_format_pass_and_others_are_named() -> None:
    raise_mixed_formats("lake", "hive", {"a": "hive", "b": "hive"})
    with pytest.raises(MixedTableFormats, match=r"lake\.b, lake\.c are Iceberg tables\. Nothing was loaded"):
        raise_mixed_formats("lake", "hive", {"a": "hive", "c": "iceberg", "b": "iceberg"})
    with pytest.raises(MixedTableFormats, match=r"format is iceberg, but lake\.a is a Hive table\."):
        raise_mixed_formats("lake", "iceberg", {"a": "hive"})


def _records(report: Path) -> int:
    data = json.loads(report.read_text())
    return sum(t["records"] for r in data.get("runs", [data]) for t in r["topics"])


@pytest.mark.integration
def test_a_hive_run_refuses_iceberg_tables_and_the_next_iceberg_run_loads_what_it_left(
    cli_harness: Harness, tmp_path: Path
) -> None:
    topic = cli_harness.topic()
    cli_harness.produce(topic, EVENT, [{"n": i} for i in range(3)])
    cli_harness.table_format = "iceberg"
    first = cli_harness.run_cli()
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]

    cli_harness.produce(topic, EVENT, [{"n": i} for i in range(3, 5)])
    cli_harness.table_format = "hive"
    refused = cli_harness.run_cli()
    table = f"{cli_harness.database}.{table_name(topic)}"
    assert refused.returncode == EXIT_FAILED
    said = " ".join(refused.stdout.split())  # as printed, wrapped to the terminal's width
    assert f"{table} is an Iceberg table. Nothing was loaded" in said

    cli_harness.table_format = "iceberg"
    report = tmp_path / "report.json"
    again = cli_harness.run_cli("--report-json", str(report))
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert _records(report) == 2  # exactly what the refused run left: nothing lost, nothing twice
