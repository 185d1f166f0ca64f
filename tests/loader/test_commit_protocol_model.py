"""The commit protocol's pure parts: manifests survive a round trip, staged files get stable final names."""

from __future__ import annotations

from loader.planning.commit_protocol import (
    Manifest,
    StagedTable,
    final_file_name,
    partition_spec,
    relative_to,
)


def test_manifest_round_trip() -> None:
    manifest = Manifest(
        seq=7,
        run_id="20261123T040825-d8f614cb",
        offsets={("page.views", 0): 10, ("page.views", 2): 4, ("clicks", 0): 0},
        tables=[
            StagedTable("kafka.page_views", [("/s/a.orc", "/t/a.orc")], [{"dt": "2026-11-23", "hour": "04"}])
        ],
        extra_files=[("/s/audit.json", "/state/audit/r.json")],
        cluster_id="MkU3OEVBNTcwNTJENDM2Qg",
        topic_ids={"page.views": "aRVr5cXBQzCcTuJ4-5vc0A"},
        table_schemas={"page.views": "value 12, key -, hour"},
        event_types={"shop": {"com.shop.Click": "com.shop.Click", "com.shop.Buy": "shop-com.shop.Buy"}},
        looked_at={"raw": {0: 1000, 3: 17}},
    )
    assert Manifest.from_json(manifest.to_json()) == manifest


def test_manifest_written_before_extra_files_and_kafka_ids_existed_still_reads() -> None:
    old = '{"seq": 1, "run_id": "r", "offsets": {"t": {"0": 3}}, "tables": []}'
    assert Manifest.from_json(old) == Manifest(1, "r", {("t", 0): 3})


def test_final_name_keeps_the_partition_directory_and_prefixes_the_run() -> None:
    staged = (
        "file:/wh/_loader_state/kafka/staging/r1/kafka.t/dt=2026-11-23/hour=04/part-00000-abc.c000.snappy.orc"
    )
    assert final_file_name(
        staged, "/wh/_loader_state/kafka/staging/r1/kafka.t", "file:/wh/kafka.db/t", "r1"
    ) == ("file:/wh/kafka.db/t/dt=2026-11-23/hour=04/r1-part-00000-abc.c000.snappy.orc")


def test_relative_paths_ignore_the_file_scheme() -> None:
    assert relative_to("file:///a/b/c.orc", "/a") == "b/c.orc"
    assert relative_to("hdfs://nn/w/s/dt=1/x.orc", "hdfs://nn/w/s") == "dt=1/x.orc"


def test_partition_spec_from_directory() -> None:
    assert partition_spec("dt=2026-11-23/hour=04") == {"dt": "2026-11-23", "hour": "04"}
    assert partition_spec("dt=2026-11-23") == {"dt": "2026-11-23"}


def test_partition_spec_unescapes_what_spark_escaped_in_directory_names() -> None:
    # Spark's (Hive's) escapePathName: `:` -> %3A, `=` -> %3D, `/` -> %2F, `%` -> %25; `+` stays `+`.
    assert partition_spec("dt=2026-11-23/hour=04%3A00") == {"dt": "2026-11-23", "hour": "04:00"}
    assert partition_spec("k%3Dx=a%2Fb%25c+d") == {"k=x": "a/b%c+d"}
