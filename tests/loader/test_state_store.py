"""The loader's state files through Hadoop's file system API (`loader.planning.state_store`), on a real
Spark JVM: what is read back is what was written."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from loader.formats.iceberg_catalogs import ObjectStore
from loader.formats.object_store_files import ObjectStoreFiles
from loader.planning.state_store import StateFiles, StateStore
from pipeline_client.secret_values import Secret
from tests.fixtures.object_store import BUCKET, REGION, ObjectStoreService

pytestmark = pytest.mark.integration


def test_a_file_reads_back_exactly_as_it_was_written(spark: SparkSession, tmp_path: Path) -> None:
    store = StateStore(spark, f"file://{tmp_path}/state")
    store.mkdirs(store.path("commits"))
    # A manifest's size (a line per topic partition), text beyond ASCII, Windows line ends, and the
    # final line end, which a reader by lines would drop.
    text = "".join(f'  "topic_{i:04d}/0": {i},\n' for i in range(20_000)) + "café ✓\r\nlast\n"
    location = store.path("commits/000000000001.json")
    store.publish(location, text)

    assert store.read_text(location) == text
    assert (tmp_path / "state" / "commits" / "000000000001.json").read_bytes().decode() == text
    store.write_text(store.path("empty"), "")
    assert store.read_text(store.path("empty")) == ""


def test_a_missing_file_is_an_error_that_names_it(spark: SparkSession, tmp_path: Path) -> None:
    store = StateStore(spark, f"file://{tmp_path}/state")
    with pytest.raises(Exception, match=r"000000000009\.json"):
        store.read_text(store.path("commits/000000000009.json"))


@pytest.fixture(params=["hadoop-local", "s3fileio-object-store"])
def state_files(
    request: pytest.FixtureRequest, spark: SparkSession, tmp_path: Path
) -> Iterator[tuple[StateFiles, str]]:
    """The same state files on a local disk through Hadoop's file system and on the session's object
    store through Iceberg's S3FileIO, each under a root of its own."""
    if request.param == "hadoop-local":
        yield StateStore(spark, f"file://{tmp_path}/state"), f"file://{tmp_path}/state"
        return
    store: ObjectStoreService = request.getfixturevalue("object_store")
    root = f"s3://{BUCKET}/state-{uuid.uuid4().hex[:8]}"
    keys = ObjectStore(
        store.endpoint, REGION, True, Secret(store.access_key, "a"), Secret(store.secret_key, "s")
    )
    yield ObjectStoreFiles(spark, root, keys), root


def below(root: str, path: str) -> str:
    """`path` from `root` on (Hadoop names local files `file:/x` whatever `root` said)."""
    name = root.rsplit("/", 1)[1]
    return path[path.index(f"/{name}/") + len(name) + 1 :]


def test_state_files_do_the_same_on_a_local_disk_and_an_object_store(
    state_files: tuple[StateFiles, str],
) -> None:
    files, root = state_files
    assert files.path("commits/1.json") == f"{root}/commits/1.json"
    assert not files.exists(files.path("commits")) and files.list(files.path("commits")) == []
    files.mkdirs(files.path("commits"))
    files.publish(files.path("commits/000000000001.json"), "one ✓\n")
    files.write_text(files.path("commits/000000000001.applied"), "run-1", overwrite=True)
    files.write_text(files.path("staging/run-2/audit.json"), '{"a": 1}')
    files.write_text(files.path("staging/run-2/deep/_hidden"), "x")
    with pytest.raises(Exception):  # noqa: B017  (the JVM's exception: a file that exists is not created)
        files.write_text(files.path("commits/000000000001.applied"), "run-9")
    assert files.read_text(files.path("commits/000000000001.applied")) == "run-1"

    assert files.exists(files.path("commits")) and files.exists(files.path("commits/000000000001.json"))
    assert [p.rsplit("/", 1)[1] for p in files.list(files.path("commits"))] == [
        "000000000001.applied",
        "000000000001.json",
    ]
    assert [below(root, p) for p in files.list(root)] == ["/commits", "/staging"]
    assert [(below(root, p), size) for p, size in files.file_sizes(files.path("staging"))] == [
        ("/staging/run-2/audit.json", 8)
    ]
    written = files.modified_at(files.path("commits/000000000001.json"))
    assert abs((datetime.now(UTC) - written).total_seconds()) < 120

    # A move, and the same move again (a commit completed a second time after a crash).
    audit = files.path("audit/run-2.json")
    assert files.move(files.path("staging/run-2/audit.json"), audit) is True
    assert files.move(files.path("staging/run-2/audit.json"), audit) is False
    assert files.read_text(audit) == '{"a": 1}'
    with pytest.raises(FileNotFoundError, match="a committed file is missing"):
        files.move(files.path("staging/run-3/audit.json"), files.path("audit/run-3.json"))

    files.delete(files.path("staging"))
    files.delete(files.path("commits/000000000001.applied"), recursive=False)
    assert not files.exists(files.path("staging"))
    assert [below(root, p) for p in files.list_files(root)] == [
        "/audit/run-2.json",
        "/commits/000000000001.json",
    ]
    assert files.file_system(audit) == files.file_system(files.path("commits/000000000001.json"))
