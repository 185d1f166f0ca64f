"""The tests' free ports: each xdist worker from a block of its own, below the kernel's ephemeral range, so
two workers (or an outgoing connection) never get the same port between its choice and its bind."""

from __future__ import annotations

import itertools
import re
import socket

import pytest

from tests.fixtures.cluster import PORT_NAMES, REPO_ROOT
from tests.fixtures.ports import FIRST_PORT, PORTS_PER_WORKER, free_port, worker_index, worker_ports


def ephemeral_range() -> range:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as limits:
        low, high = (int(v) for v in limits.read().split())
    return range(low, high + 1)


def test_workers_take_ports_from_disjoint_blocks_outside_the_ephemeral_range() -> None:
    blocks = [set(itertools.islice(worker_ports(worker_index(w)), PORTS_PER_WORKER)) for w in ("gw0", "gw1")]
    assert len(blocks[0]) == len(blocks[1]) == PORTS_PER_WORKER
    assert not blocks[0] & blocks[1]
    ephemeral = ephemeral_range()
    assert not any(port in ephemeral for block in blocks for port in block)
    assert worker_index(None) == 0  # no xdist: the first block


def test_a_worker_never_hands_out_a_port_twice_in_a_row_of_its_block() -> None:
    ports = worker_ports(5)
    handed = [free_port(ports) for _ in range(20)]
    assert len(set(handed)) == 20
    assert all(FIRST_PORT + 5 * PORTS_PER_WORKER <= p < FIRST_PORT + 6 * PORTS_PER_WORKER for p in handed)


def test_a_port_something_listens_on_is_skipped() -> None:
    # Two ports of this worker's own block: no other worker of this run hands them out, and this worker
    # hands out neither again until its block has gone round (a fixed block's port may be another
    # worker's, already held by a service it started).
    held, next_free = free_port(), free_port()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", held))
        taken.listen()
        assert free_port(iter([held, next_free])) == next_free


def test_more_workers_than_blocks_is_refused() -> None:
    with pytest.raises(RuntimeError, match="at most 24 test workers"):
        worker_index("gw24")


def test_the_cluster_fixture_gives_the_cluster_script_every_port_it_would_choose() -> None:
    """A port the cluster script chose itself would come from the ephemeral range."""
    script = (REPO_ROOT / "scripts" / "cluster").read_text()
    found = re.search(r"^PORT_NAMES=\(([^)]*)\)", script, re.MULTILINE)
    assert found, "scripts/cluster no longer declares PORT_NAMES"
    assert sorted(found.group(1).split()) == sorted(PORT_NAMES)


def test_two_runs_start_their_blocks_at_places_of_their_own_and_one_run_s_workers_stay_apart() -> None:
    from tests.fixtures.ports import MAX_WORKERS, run_offset

    offsets = {run_offset(f"run-{i}") for i in range(20)}
    assert len(offsets) > 5 and all(0 <= o < MAX_WORKERS for o in offsets)
    assert run_offset("same") == run_offset("same")
    first, second = ((w + run_offset("r")) % MAX_WORKERS for w in (0, 1))
    assert first != second
