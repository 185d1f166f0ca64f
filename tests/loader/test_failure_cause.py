"""The failed dependency and its cause, from real exceptions' chains (a refused socket, a registry that
does not answer, a full device, JSON that is not) and from the shapes of Spark's errors: a task's error
carried as text in a job's message, a Java cause chain."""

from __future__ import annotations

import errno
import json
import socket

import pytest
import requests

from loader.outcome.cause import Dependency, Failure, Places, classify, shared_by_every_topic
from loader.outcome.chain import Link, exception_chain, named_in
from loader.outcome.message import Committed, failure_line
from loader.outcome.report import RunReport, TopicReport
from loader.planning.commit_protocol import CompletionPending, DamagedStateFile
from loader.reading.registry_client import RegistryUnavailable
from loader.run.outcome import failed_topics_line
from tests.fixtures.ports import free_port

PLACES = Places(
    bootstrap_servers="kafka1.example:9092,kafka2.example:9092",
    registry_url="http://127.0.0.1:8081",
    metastore_uri="thrift://metastore.example:9083",
    warehouse="/data/warehouse",
    state_location="/data/warehouse/_loader_state/kafka",
)

# What Spark's driver says when a task failed: the task's error, and its causes, only as text.
TASK_FAILED = (
    "Job aborted due to stage failure: Task 0 in stage 3.0 failed 1 times, most recent failure: Lost task "
    "0.0 in stage 3.0 (TID 3) (localhost executor driver): {error}\n"
    "\tat org.apache.orc.impl.PhysicalFsWriter.flush(PhysicalFsWriter.java:123)\n"
    "\tat org.apache.spark.sql.kafka010.KafkaDataConsumer.get(KafkaDataConsumer.scala:77)\n"
    "Caused by: {cause}\n"
    "\tat java.base/sun.nio.ch.FileDispatcherImpl.write0(Native Method)\n"
)


def raised(action: object) -> BaseException:
    with pytest.raises(BaseException) as caught:
        action()  # type: ignore[operator]
    return caught.value


def spark_write_failed(error: str, cause: str) -> list[Link]:
    """The chain of a write whose task failed, as PySpark hands it over: py4j's error, Spark's job
    error (with the task's error in its text), and the Java cause the driver attached."""
    message = TASK_FAILED.format(error=error, cause=cause)
    return [
        Link(
            "py4j.protocol.Py4JJavaError",
            "An error occurred while calling z:tableloader.ManyTablesOrcWriter.write.",
        ),
        Link("org.apache.spark.SparkException", message),
        *named_in(message),
    ]


def test_a_refused_socket_is_connection_refused_of_the_address_it_names() -> None:
    port = free_port()

    def connect() -> None:
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass

    chain = exception_chain(raised(connect))
    places = Places(f"127.0.0.1:{port}", "http://registry.example", None, "/w", "/w/_loader_state/kafka")
    # The bare socket error names no address: the cause is known, its dependency is not guessed.
    assert classify(chain, PLACES) is None
    assert [link.kind for link in chain] == ["ConnectionRefusedError"]
    assert classify([Link("RuntimeError", f"reading from 127.0.0.1:{port}"), *chain], places) == Failure(
        Dependency.KAFKA, "connection refused", "ConnectionRefusedError: [Errno 111] Connection refused"
    )


def test_a_registry_that_does_not_answer_is_named_with_the_cause_under_requests_errors() -> None:
    url = f"http://127.0.0.1:{free_port()}"

    def ask() -> None:
        try:
            requests.get(f"{url}/subjects", timeout=5)
        except requests.RequestException as exc:
            raise RegistryUnavailable(f"schema registry at {url} did not answer") from exc

    failure = classify(exception_chain(raised(ask)), PLACES)

    assert failure is not None
    assert (failure.dependency, failure.cause) == (Dependency.REGISTRY, "connection refused")


def test_a_full_device_is_no_space_left_in_the_warehouse_it_was_written_to() -> None:
    def write() -> None:
        with open("/dev/full", "w") as full:
            full.write("x")

    error = raised(write)
    assert isinstance(error, OSError) and error.errno == errno.ENOSPC
    failure = classify(exception_chain(error), PLACES)
    assert failure == Failure(
        Dependency.WAREHOUSE, "no space left on device", "OSError: [Errno 28] No space left on device"
    )


def test_a_task_that_filled_the_disk_is_the_warehouse_s_not_kafka_s_whose_frames_it_passed() -> None:
    path = "file:/data/warehouse/_loader_state/kafka/staging/r1/t/dt=2026-11-28/part-0.orc"
    chain = spark_write_failed(
        "java.io.IOException: No space left on device", "java.io.IOException: No space left on device"
    )
    failure = classify(chain, Places(**{**PLACES.__dict__, "state_location": "/srv/state"}))
    assert failure == Failure(
        Dependency.WAREHOUSE, "no space left on device", "IOException: No space left on device"
    )

    # Named with the file it was writing, in the state directory (where runs stage their files): the
    # warehouse's file system when the state directory is inside it, as by default, else its own.
    named = [*chain, Link("java.io.IOException", f"No space left on device writing {path}")]
    failure = classify(named, PLACES)
    assert failure is not None and failure.dependency is Dependency.WAREHOUSE and failure.path == path
    elsewhere = Places(**{**PLACES.__dict__, "warehouse": "/lake"})
    failure = classify(named, elsewhere)
    assert failure is not None and failure.dependency is Dependency.STATE


def test_a_broker_that_went_away_during_the_read_is_kafka_timed_out() -> None:
    error = (
        "org.apache.kafka.common.errors.TimeoutException: Timeout of 30000ms expired before the position "
        "for partition events-0 could be determined"
    )
    failure = classify(spark_write_failed(error, error), PLACES)
    assert failure is not None
    assert (failure.dependency, failure.cause) == (Dependency.KAFKA, "timed out")
    assert failure.detail.startswith("TimeoutException: Timeout of 30000ms expired")


def test_a_metastore_that_went_away_is_the_metastore_connection_refused() -> None:
    refused = "java.net.ConnectException: Connection refused"
    chain = [
        Link(
            "org.apache.spark.sql.AnalysisException",
            "org.apache.hadoop.hive.ql.metadata.HiveException: java.lang.RuntimeException: Unable to "
            "instantiate org.apache.hadoop.hive.metastore.HiveMetaStoreClient",
        ),
        Link(
            "org.apache.hadoop.hive.ql.metadata.HiveException",
            "Could not connect to meta store using any of the URIs provided. Most recent failure: "
            f"org.apache.thrift.transport.TTransportException: {refused}",
        ),
        Link("org.apache.thrift.transport.TTransportException", refused),
        Link("java.net.ConnectException", "Connection refused"),
    ]
    assert classify(chain, PLACES) == Failure(
        Dependency.METASTORE, "connection refused", "ConnectException: Connection refused"
    )


def test_a_manifest_whose_checksum_does_not_match_is_its_state_file() -> None:
    path = "file:/data/warehouse/_loader_state/kafka/commits/000000000007.json"
    checksum = f"Checksum error: {path} at 0 exp: 1871533413 got: -1387542497"
    error = DamagedStateFile(path, "checksum", f"ChecksumException: {checksum}")
    chain = [
        *exception_chain(error),
        Link("py4j.protocol.Py4JJavaError", "An error occurred while calling o109.readAllBytes."),
        Link("org.apache.hadoop.fs.ChecksumException", checksum),
    ]
    assert classify(chain, PLACES) == Failure(
        Dependency.STATE, "checksum mismatch", f"ChecksumException: {checksum}", path
    )


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        ("", "unreadable JSON"),
        ('{"seq": 7, "run_id"', "unreadable JSON"),
        ("{}", "content not a loader manifest"),
    ],
)
def test_a_manifest_that_is_not_one_is_its_content(text: str, cause: str) -> None:
    path = "/data/warehouse/_loader_state/kafka/commits/000000000007.json"

    def parse() -> None:
        try:
            data = json.loads(text)
            int(data["seq"])
        except (ValueError, KeyError) as exc:
            raise DamagedStateFile(path, "content", str(exc)) from exc

    failure = classify(exception_chain(raised(parse)), PLACES)
    assert failure is not None
    assert (failure.dependency, failure.cause, failure.path) == (Dependency.STATE, cause, path)


def test_an_error_of_no_known_cause_is_not_given_one() -> None:
    chain = exception_chain(raised(lambda: {}["missing"]))
    assert classify(chain, PLACES) is None
    assert classify([Link("org.apache.spark.SparkException", "Job 3 cancelled")], PLACES) is None


def test_stack_frames_are_not_exceptions() -> None:
    text = "\tat org.apache.kafka.clients.consumer.KafkaConsumerException.poll(KafkaConsumer.java:1)"
    assert named_in(text) == []
    assert named_in("Caused by: java.net.ConnectException: Connection refused") == [
        Link("java.net.ConnectException", "Connection refused")
    ]


def test_the_line_names_dependency_address_cause_commit_and_what_to_do() -> None:
    failure = Failure(Dependency.METASTORE, "connection refused", "ConnectException: Connection refused")
    pending = failure_line(failure, PLACES, Committed(unregistered=2))
    assert pending == (
        "the Hive metastore at thrift://metastore.example:9083: connection refused "
        "(ConnectException: Connection refused); committed; 2 partition(s) not yet registered; the next run "
        "registers them; check that the metastore service runs and answers from this host, then run again"
    )
    full = Failure(Dependency.WAREHOUSE, "no space left on device", "IOException: No space left on device")
    assert failure_line(full, PLACES, Committed()).startswith(
        "the warehouse /data/warehouse: no space left on device (IOException: No space left on device); "
        "nothing was committed, no offset moved; free or add space"
    )


def test_a_damaged_manifest_s_line_says_which_file_to_restore_with_its_crc() -> None:
    path = "/data/warehouse/_loader_state/kafka/commits/000000000007.json"
    failure = Failure(Dependency.STATE, "checksum mismatch", "ChecksumException: Checksum error", path)
    line = failure_line(failure, PLACES, Committed())
    assert line.startswith(f"the state file {path}: checksum mismatch")
    assert "restore 000000000007.json from a backup with its .000000000007.json.crc, or without one" in line


def test_completion_pending_counts_what_is_left_to_register() -> None:
    assert str(CompletionPending(7, 3)) == "commit 7 is not complete: 3 partition(s) not yet registered"
    # An Iceberg run's commit has no partition to register: no Hive words for it.
    assert str(CompletionPending(8, 0)) == "commit 8 is not complete: its last steps not done"
    assert Committed(unregistered=0).describe() == (
        "committed; the commit's last steps did not finish; the next run finishes them"
    )


def test_a_service_gone_or_a_full_disk_is_every_topic_s_and_a_table_s_own_file_is_not() -> None:
    assert shared_by_every_topic(Failure(Dependency.KAFKA, "timed out", "TimeoutException"))
    assert shared_by_every_topic(Failure(Dependency.WAREHOUSE, "no space left on device", "IOException"))
    own = Failure(Dependency.WAREHOUSE, "permission denied", "AccessControlException")
    assert not shared_by_every_topic(own)


STORE_PLACES = Places(
    bootstrap_servers="kafka1.example:9092",
    registry_url="http://127.0.0.1:8081",
    metastore_uri=None,
    warehouse="/data/warehouse",
    state_location="s3://lake/loader-state/kafka",
    object_store="http://127.0.0.1:9000",
    bucket="lake",
)
S3_REFUSED = "(Service: S3, Status Code: 403, Request ID: 17E2B, Extended Request ID: dd9025b)"


@pytest.mark.parametrize(
    ("chain", "cause", "remedy"),
    [
        (  # the store stopped: the HTTP client under Iceberg's S3FileIO, then the SDK's own words
            [
                Link(
                    "org.apache.iceberg.exceptions.RuntimeIOException", "Failed to create file: s3://lake/t/x"
                ),
                Link(
                    "software.amazon.awssdk.core.exception.SdkClientException",
                    "Unable to execute HTTP request: Connect to 127.0.0.1:9000 [/127.0.0.1] failed: "
                    "Connection refused",
                ),
                Link(
                    "org.apache.http.conn.HttpHostConnectException",
                    "Connect to http://127.0.0.1:9000 failed: Connection refused",
                ),
            ],
            "connection refused",
            "check that the object store runs and answers from this host, then run again",
        ),
        (
            [
                Link(
                    "software.amazon.awssdk.services.s3.model.NoSuchBucketException",
                    "The specified bucket does not exist (Service: S3, Status Code: 404, Request ID: 17E2C)",
                )
            ],
            "bucket not found",
            "check the bucket in the settings (state-dir, the catalog's warehouse) and on the store, "
            "then run again",
        ),
        (
            [
                Link(
                    "software.amazon.awssdk.services.s3.model.S3Exception",
                    f"The AWS Access Key Id you provided does not exist in our records. {S3_REFUSED}",
                )
            ],
            "credentials refused",
            "check the store's keys (s3-access-key-file and s3-secret-key-file, or those the catalog vends), "
            "then run again",
        ),
        (
            [Link("software.amazon.awssdk.services.s3.model.S3Exception", f"Access Denied {S3_REFUSED}")],
            "permission denied",
            "give the loader's user access to it, then run again",
        ),
    ],
    ids=["stopped", "no bucket", "unknown key", "access denied"],
)
def test_an_object_store_s_failure_is_named_with_its_endpoint_and_bucket(
    chain: list[Link], cause: str, remedy: str
) -> None:
    failure = classify(chain, STORE_PLACES)
    assert failure is not None and (failure.dependency, failure.cause) == (Dependency.OBJECT_STORE, cause)
    assert shared_by_every_topic(failure)
    line = failure_line(failure, STORE_PLACES, Committed(in_tables=True))
    assert line.startswith(f"the object store at http://127.0.0.1:9000, bucket lake: {cause} (")
    assert line.endswith(remedy)
    # Without an object store in the settings, the same chain names no store.
    without = Places(**{**STORE_PLACES.__dict__, "object_store": None, "bucket": None})
    found = classify(chain, without)
    assert found is None or found.dependency is not Dependency.OBJECT_STORE


def test_a_store_lost_while_a_topic_s_files_are_written_fails_the_topic_with_the_store_s_line() -> None:
    """Spark's append fails in its task: the SDK's error is a cause inside the job's text alone."""
    chain = spark_write_failed(
        "org.apache.iceberg.exceptions.RuntimeIOException: Failed to close the data file",
        "software.amazon.awssdk.core.exception.SdkClientException: Unable to execute HTTP request: "
        "Connect to 127.0.0.1:9000 [/127.0.0.1] failed: Connection refused",
    )
    failure = classify(chain, STORE_PLACES)
    assert failure is not None and (failure.dependency, failure.cause) == (
        Dependency.OBJECT_STORE,
        "connection refused",
    )
    topic = TopicReport(
        "orders", "failed", table="lake.orders", reason="orders: append failed", failure=failure
    )
    other = TopicReport("payments", "loaded", table="lake.payments", records=3)
    report = RunReport("r1", "2026-12-06T10:00:00+00:00", "lake", [topic, other], committed=True)
    line = failed_topics_line(report, STORE_PLACES)
    assert line is not None and line.startswith(
        "1 topic(s) failed: the object store at http://127.0.0.1:9000, bucket lake: connection refused ("
    )
    assert "the other topics were committed; the failed topics' offsets did not move" in line
