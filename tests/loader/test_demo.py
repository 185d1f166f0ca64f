"""The quickstart's demo (`python -m loader.demo`) on the test's broker and registry, with Iceberg tables,
and the quickstart's refusal of a table format it does not know before it sets anything up."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from loader.demo import EVENTS_PER_VERSION
from tests.fixtures.kafka import KafkaBroker
from tests.loader.harness import REPO_ROOT

DEMO_TOPICS = ("ad_click", "cart_update", "page_view", "profile_edit", "search")


@pytest.mark.integration
def test_the_demo_loads_its_topics_into_iceberg_tables(
    kafka_broker: KafkaBroker, registry_url: str, tmp_path: Path
) -> None:
    warehouse = tmp_path / "warehouse"
    command = [
        sys.executable, "-m", "loader.demo", "--bootstrap-servers", kafka_broker.bootstrap,
        "--registry-url", registry_url, "--warehouse", str(warehouse), "--table-format", "iceberg",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "iceberg tables" in done.stdout
    for topic in DEMO_TOPICS:
        assert f"kafka.{topic}" in done.stdout
        # Iceberg's Hive catalog: the table's directory in the database's, with Iceberg's metadata.
        assert list((warehouse / "kafka.db" / topic / "metadata").glob("*.metadata.json")), topic
    assert done.stdout.count(f"({2 * EVENTS_PER_VERSION} rows in all)") == len(DEMO_TOPICS)


def test_the_quickstart_refuses_an_unknown_table_format_before_setting_up() -> None:
    quickstart = [str(REPO_ROOT / "scripts" / "quickstart"), "--table-format", "delta"]
    done = subprocess.run(quickstart, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "--table-format must be hive or iceberg, not 'delta'" in done.stderr
    assert "==>" not in done.stderr  # nothing was set up or started
