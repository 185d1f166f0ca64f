"""Python values as the Java ones a Py4J call takes where Py4J's own conversion does not: arrays (Py4J
turns a Python list into a `java.util.List`, and a Java method with a `String...` parameter takes an
array) and string maps (a `java.util.Map` parameter, such as Iceberg's properties); and JVM classes by
name (`java_class`), without Py4J's search of the class path for each part of the name."""

from __future__ import annotations

from typing import Any

from py4j.java_gateway import JavaClass
from pyspark.sql import SparkSession


def java_class(spark: SparkSession, name: str) -> JavaClass:
    """The JVM class of the fully qualified `name`, for its static methods and constructors.

    `spark._jvm.org.apache.iceberg.spark.Spark3Util` asks the JVM, for each part of the name, whether it
    is a class: `org`, `org.apache`, ... are not, and each such answer searches every jar of the class path
    (about a millisecond each on the loader's: a quarter of the driver's time in a run of small Iceberg
    topics, benchmarks/JOURNAL.md). A class made from its name asks nothing until it is called."""
    gateway = spark.sparkContext._gateway
    assert gateway is not None
    return JavaClass(name, gateway._gateway_client)


def java_array(spark: SparkSession, element_type: Any, values: list[Any]) -> Any:
    """A Java array of `element_type` (a `java_class`, or `spark._jvm.int`) holding `values`."""
    gateway = spark.sparkContext._gateway
    assert gateway is not None
    array = gateway.new_array(element_type, len(values))
    for i, value in enumerate(values):
        array[i] = value
    return array


def java_strings(spark: SparkSession, values: list[str]) -> Any:
    return java_array(spark, java_class(spark, "java.lang.String"), values)


def java_ints(spark: SparkSession, values: list[int]) -> Any:
    return java_array(spark, spark._jvm.int, values)


def java_string_map(spark: SparkSession, values: dict[str, str]) -> Any:
    """A `java.util.HashMap` holding `values`."""
    java_map = java_class(spark, "java.util.HashMap")()
    for key, value in values.items():
        java_map.put(key, value)
    return java_map
