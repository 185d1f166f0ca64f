"""The SQL function a session decodes Avro bodies with.

The loader's own (`loader/jvm/tableloader/FromAvro.java`, registered in the session on first use) is
Spark's `from_avro` with the same options, types and PERMISSIVE results, minus the Hadoop configuration
Spark's builds and parses in every task that evaluates it interpreted, for each writer schema: about 5 ms
per writer schema of every small topic a run loads in a group (benchmarks/README.md, "Avro options
without a Hadoop configuration"). Without the loader's jar on the driver's class path, Spark's own.
"""

from __future__ import annotations

from pyspark.sql import SparkSession

from loader.spark_session import loader_class

SPARK_FROM_AVRO = "from_avro"
DECODER_CLASS = "FromAvro"


def avro_decoder(spark: SparkSession) -> str:
    """The name of the function that decodes `from_avro(body, writer schema, options)` in `spark`'s SQL,
    registered there if it is the loader's (a session's functions are its own, so each session that
    decodes asks)."""
    decoder = loader_class(spark, DECODER_CLASS)
    if decoder is None:
        return SPARK_FROM_AVRO
    return str(decoder.registerIn(spark._jsparkSession))
