"""Which partitions `loader maintain` compacts and what it does with earlier compactions: pure rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from loader.formats.hive.compaction_plan import (
    Cleanup,
    DataFile,
    PartitionListing,
    cleanup_decision,
    is_closed,
    partition_end,
    plan_compactions,
)
from loader.formats.hive.relocation_record import Relocation
from loader.formats.maintenance import CompactionPolicy, closed_before

MB = 1024 * 1024
NOW = datetime(2026, 11, 23, 12, 30, tzinfo=UTC)
POLICY = CompactionPolicy(min_files=3, small_file_bytes=10 * MB, target_file_bytes=100 * MB)


def partition(spec: dict[str, str], sizes: list[int]) -> PartitionListing:
    where = "/w/t/" + "/".join(f"{k}={v}" for k, v in spec.items())
    return PartitionListing(spec, where, [DataFile(f"{where}/f{i}.orc", s) for i, s in enumerate(sizes)])


def test_a_partition_ends_with_its_day_or_hour() -> None:
    assert partition_end({"dt": "2026-11-23"}) == datetime(2026, 11, 24, tzinfo=UTC)
    assert partition_end({"dt": "2026-11-23", "hour": "04"}) == datetime(2026, 11, 23, 5, tzinfo=UTC)
    assert partition_end({"dt": "2026-11-23", "hour": "23"}) == datetime(2026, 11, 24, tzinfo=UTC)


@pytest.mark.parametrize(
    "spec",
    [
        {"dt": "yesterday"},
        {"dt": "2026-11-23", "hour": "24"},
        {"hour": "04"},
        {"dt": "2026-11-23", "hour": "x"},
    ],
)
def test_a_partition_not_named_by_the_loader_has_no_end_and_is_never_closed(spec: dict[str, str]) -> None:
    assert partition_end(spec) is None
    assert not is_closed(spec, NOW, timedelta(0))


def test_a_partition_is_closed_only_min_age_after_its_end() -> None:
    hour = {"dt": "2026-11-23", "hour": "11"}  # ends 12:00
    assert is_closed(hour, NOW, timedelta(minutes=30))
    assert not is_closed(hour, NOW, timedelta(minutes=31))
    assert not is_closed({"dt": "2026-11-23", "hour": "12"}, NOW, timedelta(0)), "still being written"
    assert not is_closed({"dt": "2026-11-23"}, NOW, timedelta(0)), "today is open"


def test_closed_partitions_end_where_the_last_closed_day_or_hour_ends() -> None:
    assert closed_before(NOW, timedelta(minutes=30), hourly=True) == datetime(2026, 11, 23, 12, tzinfo=UTC)
    assert closed_before(NOW, timedelta(minutes=31), hourly=True) == datetime(2026, 11, 23, 11, tzinfo=UTC)
    assert closed_before(NOW, timedelta(hours=1), hourly=False) == datetime(2026, 11, 23, tzinfo=UTC)
    for hour in range(24):  # agrees with the rule for listed partitions
        spec = {"dt": "2026-11-23", "hour": f"{hour:02d}"}
        end = partition_end(spec)
        assert end is not None
        bound = closed_before(NOW, timedelta(minutes=30), hourly=True)
        assert is_closed(spec, NOW, timedelta(minutes=30)) == (end <= bound)


def test_closed_partitions_with_more_than_min_files_small_files_are_compacted() -> None:
    many = partition({"dt": "2026-11-23", "hour": "09"}, [MB] * 4)
    few = partition({"dt": "2026-11-23", "hour": "10"}, [MB] * 3)
    open_one = partition({"dt": "2026-11-23", "hour": "12"}, [MB] * 40)
    planned = plan_compactions([many, few, open_one], POLICY, NOW)
    assert [(c.partition, c.input_files, c.output_files) for c in planned] == [(many, 4, 1)]


def test_big_files_do_not_count_as_small_but_are_rewritten_with_the_rest() -> None:
    mixed = partition({"dt": "2026-11-22"}, [90 * MB, 90 * MB, MB, MB, MB, MB])
    (planned,) = plan_compactions([mixed], POLICY, NOW)
    assert (planned.input_files, planned.output_files) == (6, 2)  # 184 MB in files of about 100 MB

    mostly_big = partition({"dt": "2026-11-21"}, [90 * MB] * 10 + [MB] * 3)
    assert plan_compactions([mostly_big], POLICY, NOW) == []


def test_a_partition_that_would_not_get_fewer_files_is_left_alone() -> None:
    policy = CompactionPolicy(min_files=1, small_file_bytes=10 * MB, target_file_bytes=MB)
    assert plan_compactions([partition({"dt": "2026-11-20"}, [9 * MB, 9 * MB])], policy, NOW) == []


@pytest.mark.parametrize(
    "policy",
    [
        CompactionPolicy(min_files=0),
        CompactionPolicy(small_file_bytes=0),
        CompactionPolicy(target_file_bytes=0),
        CompactionPolicy(min_age=timedelta(minutes=-1)),
    ],
)
def test_settings_out_of_range_are_refused(policy: CompactionPolicy) -> None:
    with pytest.raises(ValueError, match="maintain-"):
        policy.validate()


RELOCATION = Relocation(
    id="r1",
    table="kafka.t",
    spec={"dt": "2026-11-22"},
    old_location="file:/w/t/dt=2026-11-22",
    old_files=["file:/w/t/dt=2026-11-22/a.orc"],
    new_location="file:/w/t/_compacted/r/dt=2026-11-22",
    created_at=NOW - timedelta(hours=2),
)
GRACE = timedelta(hours=1)


def test_an_unconfirmed_relocation_follows_the_metastore() -> None:
    assert cleanup_decision(RELOCATION, RELOCATION.new_location, NOW, GRACE) is Cleanup.CONFIRM_SWITCH
    assert cleanup_decision(RELOCATION, RELOCATION.new_location + "/", NOW, GRACE) is Cleanup.CONFIRM_SWITCH
    assert cleanup_decision(RELOCATION, RELOCATION.old_location, NOW, GRACE) is Cleanup.DROP_NEW
    assert cleanup_decision(RELOCATION, None, NOW, GRACE) is Cleanup.DROP_NEW


def test_old_files_go_only_once_the_grace_period_since_the_switch_has_passed() -> None:
    switched = RELOCATION.switched(NOW - timedelta(minutes=59))
    assert cleanup_decision(switched, switched.new_location, NOW, GRACE) is Cleanup.WAIT
    assert cleanup_decision(switched, switched.new_location, NOW + timedelta(minutes=1), GRACE) is (
        Cleanup.REMOVE_OLD
    )
    # Compacted again since: the old files of this relocation are still nobody's.
    assert cleanup_decision(switched, "file:/w/t/_compacted/s/dt=2026-11-22", NOW + GRACE, GRACE) is (
        Cleanup.REMOVE_OLD
    )


def test_a_partition_pointed_back_to_its_old_files_keeps_them_and_loses_the_new_directory() -> None:
    switched = RELOCATION.switched(NOW - timedelta(days=1))
    assert cleanup_decision(switched, switched.old_location, NOW, GRACE) is Cleanup.DROP_NEW


def test_a_relocation_record_reads_back_as_written_its_confirmation_apart() -> None:
    assert Relocation.from_json(RELOCATION.to_json()) == RELOCATION
    assert Relocation.from_json(RELOCATION.switched(NOW).to_json()) == RELOCATION
