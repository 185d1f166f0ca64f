"""The ORC buffers of a small topic's files (`loader.formats.hive.many_tables.orc_buffer_size`): sized for
the rows a file can hold, never above ORC's own."""

from __future__ import annotations

import pytest

from loader.formats.hive.many_tables import ORC_BUFFER_BYTES, orc_buffer_size


@pytest.mark.parametrize(
    ("records", "size"),
    [
        (1, 16 * 1024),  # the least: a chunk holds a small stream whole
        (499, 16 * 1024),  # 32 bytes x 499 = 15,968
        (513, 32 * 1024),  # 16,416 bytes: the next power of two
        (2_000, 64 * 1024),
        (4_000, 128 * 1024),
        (4_096, 128 * 1024),  # 131,072 exactly
        (4_097, 0),  # 256 KB is ORC's own
        (20_000, 0),
    ],
)
def test_a_file_s_buffers_hold_its_column_streams_in_one_chunk_up_to_orc_s_own(
    records: int, size: int
) -> None:
    assert orc_buffer_size(records) == size


def test_every_size_given_is_a_power_of_two_below_orc_s_own() -> None:
    sizes = {orc_buffer_size(n) for n in range(1, 10_000, 7)} - {0}
    assert sizes == {16 * 1024, 32 * 1024, 64 * 1024, 128 * 1024}
    assert all(s < ORC_BUFFER_BYTES for s in sizes)
