"""Python values as the Java ones a Py4J call takes where Py4J's own conversion does not: arrays (Py4J
turns a Python list into a `java.util.List`, and a Java method with a `String...` parameter takes an
array) and string maps (a `java.util.Map` parameter, such as Iceberg's properties)."""

from __future__ import annotations

from typing import Any

from pyspark.sql import SparkSession


def java_array(spark: SparkSession, element_type: Any, values: list[Any]) -> Any:
    """A Java array of `element_type` (`spark._jvm.String`, `spark._jvm.int`) holding `values`."""
    gateway = spark.sparkContext._gateway
    assert gateway is not None
    array = gateway.new_array(element_type, len(values))
    for i, value in enumerate(values):
        array[i] = value
    return array


def java_strings(spark: SparkSession, values: list[str]) -> Any:
    return java_array(spark, spark._jvm.String, values)


def java_ints(spark: SparkSession, values: list[int]) -> Any:
    return java_array(spark, spark._jvm.int, values)


def java_string_map(spark: SparkSession, values: dict[str, str]) -> Any:
    """A `java.util.HashMap` holding `values`."""
    java_map = spark._jvm.java.util.HashMap()
    for key, value in values.items():
        java_map.put(key, value)
    return java_map
