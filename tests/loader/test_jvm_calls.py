"""The driver's Py4J connections with Nagle's algorithm off (`loader.runtime.jvm_calls`), on a real Spark JVM:
the calling thread's connection and every connection a Python thread opens later.

A thread's connection is found through the gateway's callback client, which PySpark replaces when it
starts its callback server (a current-state merge starts it, `loader.formats.iceberg_current`); a
connection keeps the client it was opened with. So each check runs in a Python thread of its own, whose
connection is opened after whatever ran before in the test session."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from pyspark.sql import SparkSession

from loader.runtime import jvm_calls
from loader.runtime.jvm_calls import answer_without_delay

pytestmark = pytest.mark.integration

T = TypeVar("T")


def this_thread_s_socket(spark: SparkSession) -> Any:
    """The JVM's socket of the calling Python thread's connection (PySpark opens one per thread)."""
    gateway = spark.sparkContext._gateway
    assert gateway is not None
    connection = gateway.java_gateway_server.getCallbackClient().getPerThreadConnection()
    assert connection is not None, "this thread's connection was opened before the callback client"
    return connection.getSocket()


def in_new_thread(body: Callable[[], T]) -> T:
    """`body` in a Python thread of its own, hence on a connection of its own."""
    found: list[T] = []
    thread = threading.Thread(target=lambda: found.append(body()))
    thread.start()
    thread.join()
    assert found, "the thread failed"
    return found[0]


def test_the_calling_thread_s_connection_and_every_later_one_answer_at_once(spark: SparkSession) -> None:
    server = spark.sparkContext._gateway.java_gateway_server  # type: ignore[union-attr]

    def install_on_a_connection_with_nagle() -> tuple[bool, bool, bool]:
        socket = this_thread_s_socket(spark)
        socket.setTcpNoDelay(False)  # as a connection opened before the listener has it
        before = bool(socket.getTcpNoDelay())
        return before, answer_without_delay(spark), bool(socket.getTcpNoDelay())

    assert in_new_thread(install_on_a_connection_with_nagle) == (False, True, True)
    assert in_new_thread(lambda: bool(this_thread_s_socket(spark).getTcpNoDelay())) is True
    assert answer_without_delay(spark) is True  # again: one listener, not two
    assert sum("NoDelayConnections" in str(listener) for listener in server.getListeners()) == 1

    # A wide answer (more than Py4J's 8 KB buffer) arrives whole.
    wide = spark.sparkContext._jvm.java.lang.StringBuilder("x" * 100_000)  # type: ignore[union-attr]
    assert wide.toString() == "x" * 100_000


def test_without_the_loaders_jar_nothing_is_installed(
    spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jvm_calls, "LISTENER_CLASS", "NoSuchListener")
    assert answer_without_delay(spark) is False
