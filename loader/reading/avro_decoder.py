"""The SQL function a session decodes Avro bodies with.

The loader's own (`loader/jvm/tableloader/FromAvro.java`, registered in the session on first use) is
Spark's `from_avro` with the same options, types and PERMISSIVE results, minus the Hadoop configuration
Spark's builds and parses in every task that evaluates it interpreted, for each writer schema: about 5 ms
per writer schema of every small topic a run loads in a group (benchmarks/README.md, "Avro options
without a Hadoop configuration"). Without the loader's jar on the driver's class path, Spark's own.
"""

from __future__ import annotations

from py4j.java_gateway import JavaClass
from pyspark.sql import SparkSession

SPARK_FROM_AVRO = "from_avro"
DECODER_CLASS = ("tableloader", "FromAvro")


def avro_decoder(spark: SparkSession) -> str:
    """The name of the function that decodes `from_avro(body, writer schema, options)` in `spark`'s SQL,
    registered there if it is the loader's (a session's functions are its own, so each session that
    decodes asks)."""
    package, name = DECODER_CLASS
    decoder = getattr(getattr(spark._jvm, package), name)
    if not isinstance(decoder, JavaClass):
        return SPARK_FROM_AVRO
    return str(decoder.registerIn(spark._jsparkSession))
