"""When `loader unlock` may remove a lock left on HDFS or an object store: decided from the owner record
alone, so it is tested without a file system."""

from __future__ import annotations

import json
import os

from loader.operations.lock import LockOwner, Unlock, unlock_decision

HERE = "loader-host-1"


def test_the_owner_record_a_run_writes_is_read_back() -> None:
    record = json.dumps({"host": HERE, "pid": 4242, "since": 0.0})

    owner = LockOwner.parse(record)

    assert owner == LockOwner(host=HERE, pid=4242, since=0.0)
    assert owner.describe() == f"pid 4242 on {HERE}, since 1970-01-01 00:00:00 UTC"


def test_an_empty_or_foreign_record_has_no_owner() -> None:
    assert LockOwner.parse("") is None
    assert LockOwner.parse('{"host": "a"}') is None
    assert LockOwner.parse('{"host": "a", "pid": "not a pid", "since": 1}') is None
    assert LockOwner.parse("[1, 2]") is None


def test_no_lock_means_nothing_to_do() -> None:
    assert unlock_decision(False, None, HERE) is Unlock.NOTHING_TO_DO


def test_a_lock_of_a_live_process_on_this_host_is_kept() -> None:
    owner = LockOwner(host=HERE, pid=os.getpid(), since=0.0)

    assert owner.alive_here(HERE) is True
    assert unlock_decision(True, owner, HERE) is Unlock.REFUSE


def test_a_lock_of_an_ended_process_on_this_host_is_removed(ended_pid: int) -> None:
    owner = LockOwner(host=HERE, pid=ended_pid, since=0.0)

    assert owner.alive_here(HERE) is False
    assert unlock_decision(True, owner, HERE) is Unlock.REMOVE


def test_a_lock_from_another_host_or_without_a_readable_owner_needs_an_operator(ended_pid: int) -> None:
    elsewhere = LockOwner(host="loader-host-2", pid=ended_pid, since=0.0)

    assert elsewhere.alive_here(HERE) is None
    assert unlock_decision(True, elsewhere, HERE) is Unlock.ASK
    assert unlock_decision(True, None, HERE) is Unlock.ASK
