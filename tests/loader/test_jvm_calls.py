"""The driver's Py4J connections with Nagle's algorithm off (`loader.runtime.jvm_calls`), on a real Spark JVM:
the calling thread's connection and every connection a Python thread opens later."""

from __future__ import annotations

import threading

import pytest
from pyspark.sql import SparkSession

from loader.runtime import jvm_calls
from loader.runtime.jvm_calls import answer_without_delay

pytestmark = pytest.mark.integration


def no_delay_of_this_thread(spark: SparkSession) -> bool:
    """Whether the JVM's socket of the calling Python thread's connection has TCP_NODELAY."""
    gateway = spark.sparkContext._gateway
    assert gateway is not None
    connection = gateway.java_gateway_server.getCallbackClient().getPerThreadConnection()
    return bool(connection.getSocket().getTcpNoDelay())


def in_new_thread(spark: SparkSession) -> bool:
    """`no_delay_of_this_thread` in a Python thread of its own: PySpark opens it a connection."""
    found: list[bool] = []
    thread = threading.Thread(target=lambda: found.append(no_delay_of_this_thread(spark)))
    thread.start()
    thread.join()
    return found[0]


def test_this_thread_s_connection_and_every_later_one_answer_at_once(spark: SparkSession) -> None:
    server = spark.sparkContext._gateway.java_gateway_server  # type: ignore[union-attr]
    assert answer_without_delay(spark) is True
    assert no_delay_of_this_thread(spark) is True
    assert in_new_thread(spark) is True
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
