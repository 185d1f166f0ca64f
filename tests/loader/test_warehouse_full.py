"""A warehouse whose file system fills up during a run (a 20 MB tmpfs, nearly full): the run ends with a
line saying no space is left on the warehouse, naming its path, and commits nothing; with space freed, the
next run loads every record exactly once. Mounting needs root: without it the test is skipped, saying so."""

from __future__ import annotations

import os
import random
import string
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from loader.outcome.report import EXIT_FAILED
from loader.schema.naming import table_name
from tests.loader.harness import Harness, committed_offsets, record_schema

pytestmark = [pytest.mark.integration, pytest.mark.scheduled_first]

EVENT = record_schema(
    "Page",
    [
        {"name": "n", "type": "long", "doc": "Sequence number."},
        {"name": "body", "type": "string", "doc": "Text that does not compress."},
    ],
)
LEFT_FREE = 256 * 1024  # what the filler leaves of the file system: less than the run's files


@pytest.fixture
def small_warehouse(tmp_path: Path) -> Iterator[Path]:
    """A 20 MB tmpfs mounted for the test, unmounted after it."""
    directory = tmp_path / "warehouse"
    directory.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs for a full warehouse needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", str(directory)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"this machine does not allow a tmpfs mount: {mounted.stderr.strip()}")
    try:
        yield directory
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=True)


def fill(directory: Path, leave: int) -> Path:
    """A file taking all but `leave` bytes of the file system."""
    stat = os.statvfs(directory)
    free = stat.f_bavail * stat.f_frsize
    filler = directory / "filler"
    with filler.open("wb") as out:
        out.truncate(0)
        chunk = b"\0" * (1 << 20)
        remaining = max(0, free - leave)
        while remaining:
            out.write(chunk[: min(remaining, len(chunk))])
            remaining -= min(remaining, len(chunk))
    return filler


def noise(n: int) -> dict[str, object]:
    text = "".join(random.choices(string.ascii_letters + string.digits, k=1000))
    return {"n": n, "body": text}


def test_a_full_warehouse_is_named_with_no_space_left_and_the_next_run_loads_everything_once(
    cli_harness: Harness, small_warehouse: Path
) -> None:
    cli_harness.warehouse = small_warehouse
    topic = cli_harness.topic()
    cli_harness.produce(topic, EVENT, [noise(i) for i in range(10)])
    first = cli_harness.run_cli()  # the metastore, the table and a first commit, with room to spare
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]

    cli_harness.produce(topic, EVENT, [noise(i) for i in range(10, 3000)])  # about 3 MB, random text
    filler = fill(small_warehouse, LEFT_FREE)
    full = cli_harness.run_cli()

    assert full.returncode == EXIT_FAILED, full.stdout[-3000:] + full.stderr[-3000:]
    line = full.stdout.strip().splitlines()[-1]
    assert line.startswith("error: "), line
    assert f"the warehouse {small_warehouse}: no space left on device" in line, line
    assert "nothing was committed, no offset moved" in line
    assert "free or add space on that file system" in line

    filler.unlink()  # the next run, its table read and audited in one application
    table = f"{cli_harness.database}.{table_name(topic)}"
    again, [rows], audited = cli_harness.run_query_and_audit_cli(
        f"SELECT _kafka_partition AS p, _kafka_offset AS o FROM {table}"
    )
    assert again["exit_code"] == 0, again
    assert sorted((r["p"], r["o"]) for r in rows) == committed_offsets(cli_harness, topic)
    assert audited["ok"], audited
