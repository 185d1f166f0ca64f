"""scripts/object-store: a real S3-compatible store (s3proxy), reached by a real S3 client (boto3)."""

from __future__ import annotations

import stat
import threading
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

from tests.fixtures.object_store import BUCKET, ObjectStoreService, store_env
from tests.fixtures.ports import free_port

pytestmark = pytest.mark.integration


def error_code(refused: pytest.ExceptionInfo[ClientError]) -> str:
    return str(refused.value.response["Error"]["Code"])


def test_objects_are_written_listed_read_back_and_deleted(object_store: ObjectStoreService) -> None:
    s3 = object_store.client()
    body = bytes(range(256)) * 4096  # 1 MiB, every byte value
    s3.put_object(Bucket=BUCKET, Key="roundtrip/a.bin", Body=body)
    s3.put_object(Bucket=BUCKET, Key="roundtrip/b.txt", Body=b"second")
    listed = s3.list_objects_v2(Bucket=BUCKET, Prefix="roundtrip/")
    assert sorted((o["Key"], o["Size"]) for o in listed["Contents"]) == [
        ("roundtrip/a.bin", len(body)),
        ("roundtrip/b.txt", 6),
    ]
    assert s3.get_object(Bucket=BUCKET, Key="roundtrip/a.bin")["Body"].read() == body
    ranged = s3.get_object(Bucket=BUCKET, Key="roundtrip/a.bin", Range="bytes=256-511")["Body"].read()
    assert ranged == bytes(range(256))
    s3.delete_object(Bucket=BUCKET, Key="roundtrip/b.txt")
    with pytest.raises(ClientError) as missing:
        s3.get_object(Bucket=BUCKET, Key="roundtrip/b.txt")
    assert error_code(missing) == "NoSuchKey"
    # The file-system backend keeps each object as a file under the data dir.
    assert (object_store.data_dir / "data" / BUCKET / "roundtrip" / "a.bin").read_bytes() == body


def test_requests_signed_with_another_secret_are_refused(object_store: ObjectStoreService) -> None:
    import boto3
    from botocore.config import Config

    intruder = boto3.client(
        "s3",
        endpoint_url=object_store.endpoint,
        aws_access_key_id=object_store.access_key,
        aws_secret_access_key="not-the-secret",
        region_name="us-east-1",
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )
    with pytest.raises(ClientError) as refused:
        intruder.put_object(Bucket=BUCKET, Key="intruder", Body=b"x")
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    secret = object_store.keys_dir / "secret-key"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_conditional_put_creates_a_key_only_once(object_store: ObjectStoreService) -> None:
    """`If-None-Match: *` on PUT: the loader's run lock may take a lock object this way."""
    s3 = object_store.client()
    s3.put_object(Bucket=BUCKET, Key="locks/once", Body=b"first", IfNoneMatch="*")
    with pytest.raises(ClientError) as refused:
        s3.put_object(Bucket=BUCKET, Key="locks/once", Body=b"second", IfNoneMatch="*")
    assert error_code(refused) == "PreconditionFailed"
    assert s3.get_object(Bucket=BUCKET, Key="locks/once")["Body"].read() == b"first"
    # If-Match: replaced only while it is the version the writer read.
    etag = s3.head_object(Bucket=BUCKET, Key="locks/once")["ETag"]
    with pytest.raises(ClientError) as stale:
        s3.put_object(Bucket=BUCKET, Key="locks/once", Body=b"third", IfMatch='"0123456789abcdef"')
    assert error_code(stale) == "PreconditionFailed"
    s3.put_object(Bucket=BUCKET, Key="locks/once", Body=b"third", IfMatch=etag)
    assert s3.get_object(Bucket=BUCKET, Key="locks/once")["Body"].read() == b"third"


def race_for(clients: list[Any], key: str) -> list[int]:
    """Every client puts `key` with `If-None-Match: *` at the same moment; the writers that succeeded."""
    winners: list[int] = []
    refusals: list[str] = []
    start = threading.Barrier(len(clients))

    def write(writer: int) -> None:
        start.wait(timeout=30)
        try:
            clients[writer].put_object(Bucket=BUCKET, Key=key, Body=str(writer).encode(), IfNoneMatch="*")
        except ClientError as refused:
            refusals.append(str(refused.response["Error"]["Code"]))
        else:
            winners.append(writer)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert set(refusals) <= {"PreconditionFailed"}, refusals
    return winners


def test_of_writers_racing_for_a_new_key_exactly_one_wins(object_store: ObjectStoreService) -> None:
    clients = [object_store.client() for _ in range(6)]
    winners = [race_for(clients, f"race/{trial}") for trial in range(25)]
    assert [len(w) for w in winners] == [1] * 25
    for trial, (winner,) in enumerate(winners):
        assert (
            clients[0].get_object(Bucket=BUCKET, Key=f"race/{trial}")["Body"].read() == str(winner).encode()
        )


def test_script_starts_reports_stops_and_keeps_the_data(tmp_path: Path) -> None:
    """A store of its own (the session's stays up): start, a second start, status, stop, status, and the
    objects still there after a restart; a client of a stopped store fails at once."""
    port = free_port()
    store = ObjectStoreService(
        endpoint=f"http://127.0.0.1:{port}", data_dir=tmp_path, env=store_env(port, tmp_path)
    )
    try:
        assert store.script("start").splitlines()[-1] == store.endpoint
        again = store.run("start")
        assert again.returncode == 0 and "already running" in again.stderr
        assert again.stdout.strip() == store.endpoint
        running = store.run("status")
        assert running.returncode == 0 and store.endpoint in running.stdout
        store.client().put_object(Bucket=BUCKET, Key="kept", Body=b"across restarts")
        store.script("stop")
        stopped = store.run("status")
        assert stopped.returncode == 3 and "not running" in stopped.stdout
        with pytest.raises(EndpointConnectionError, match=f"127.0.0.1:{port}"):
            store.client().get_object(Bucket=BUCKET, Key="kept")
        store.script("start")
        assert store.client().get_object(Bucket=BUCKET, Key="kept")["Body"].read() == b"across restarts"
    finally:
        store.run("stop")


def test_script_refuses_a_taken_port(object_store: ObjectStoreService, tmp_path: Path) -> None:
    taken = int(object_store.endpoint.rsplit(":", 1)[1])
    done = ObjectStoreService(endpoint="", data_dir=tmp_path, env=store_env(taken, tmp_path)).run("start")
    assert done.returncode != 0
    assert f"port {taken} on 127.0.0.1 is taken" in done.stderr
