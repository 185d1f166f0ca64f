"""The driver's calls from Python into its JVM (Py4J), answered without a fixed 40 ms wait.

Py4J, as pyspark 4.0 brings it, leaves Nagle's algorithm on for its sockets: an answer of more than
8 KB leaves the JVM in two writes, and the second waits for Python's delayed acknowledgement of the
first, about 40 ms on Linux, where the call itself takes well under a millisecond on loopback. A run
makes such calls for every wide schema it reads (three per group of small topics) and for its manifest.
The loader's jar has a listener of the Py4J server that turns the option on for every connection
(`NoDelayConnections` in `jvm/tableloader`); measured in benchmarks/JOURNAL.md ("Py4J answers
without Nagle's algorithm").
"""

from __future__ import annotations

from pyspark.sql import SparkSession

from loader.runtime.spark_session import loader_class

LISTENER_CLASS = "NoDelayConnections"


def answer_without_delay(spark: SparkSession) -> bool:
    """Turns Nagle's algorithm off on the driver's Py4J connections, this thread's and every later one;
    False when the loader's jar is not on the driver's class path (calls then keep the wait)."""
    listener = loader_class(spark, LISTENER_CLASS)
    if listener is None:
        return False
    gateway = spark.sparkContext._gateway
    assert gateway is not None
    listener.install(gateway.java_gateway_server)
    return True
