"""The class path of a driver JVM the loader starts: the jars a run loads most of its classes from, first.

A JVM finds an application class by asking each entry of its class path in turn. Spark's launcher puts
the driver's extra class path first and then every jar of Spark's `jars/` directory, about 280 of them
in the directory's order; the connectors a run adds (`spark.jars`: Kafka's client, Spark's Kafka and
Avro sources, Iceberg's runtime) sit in a class loader below, asked only after all of those have missed.
A `loader run` loads about 24,000 classes, nearly all from a few dozen jars, so most look-ups walked
past a hundred jars or more first. Listing those jars ahead of the rest (the launcher's copies later on
the path are skipped as duplicates) takes about 0.9 s of class loading off every driver JVM's start
(benchmarks/JOURNAL.md, "The most used jars first on the driver's class path").

The order changes no class's origin: a class that two jars of Spark's directory both hold already comes
from whichever the file system lists first, and the settings' own class path still comes first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

# Artifacts by how many classes a `loader run` of a few small topics loaded from each (the JVM's
# `-Xlog:class+load`, each with at least 30), most first. Names without their version or Scala suffix,
# so that a pyspark or connector upgrade keeps its jars here.
MOST_USED = (
    "spark-catalyst", "kafka-clients", "spark-core", "scala-library", "scala-reflect", "derby",
    "spark-sql-api", "log4j-core", "datanucleus-core", "spark-sql", "hive-metastore", "jackson-databind",
    "hadoop-client-api", "janino", "datanucleus-rdbms", "hadoop-client-runtime", "netty-common",
    "spark-network-common", "ivy", "avro", "spark-common-utils", "netty-transport", "antlr4-runtime",
    "jackson-module-scala", "orc-core", "guava", "orc-mapreduce", "jackson-core", "orc-format",
    "log4j-api", "netty-buffer", "icu4j", "jdo-api", "log4j-1.2-api", "py4j", "spark-hive",
    "jackson-annotations", "json4s-core", "json4s-ast", "hive-common", "hive-exec", "spark-sql-kafka-0-10",
    "libthrift", "datanucleus-api-jdo", "jakarta.servlet-api", "lz4-java", "spark-unsafe", "metrics-core",
    "commons-pool2",
)  # fmt: skip
_RANK = {name: rank for rank, name in enumerate(MOST_USED)}

# `<artifact>[_<scala version>]-<version>[-<classifier>].jar`, e.g. `spark-sql_2.13-4.0.0.jar`,
# `log4j-1.2-api-2.24.3.jar`, `orc-core-2.1.2-shaded-protobuf.jar`, `zstd-jni-1.5.6-9.jar`.
_JAR_NAME = re.compile(r"(?P<artifact>.+?)(?:_2\.1\d)?(?:-\d[^-_]*)+(?:-[A-Za-z][A-Za-z0-9_]*)*\.jar")


def artifact(jar: str) -> str | None:
    """The artifact a jar file is of (`spark-sql_2.13-4.0.0.jar` -> `spark-sql`); None for a name
    that does not end in a version."""
    found = _JAR_NAME.fullmatch(Path(jar).name)
    return found.group("artifact") if found else None


def most_used_first(run_jars: Iterable[str], spark_jars: Iterable[str]) -> list[str]:
    """What goes on the driver's class path after the settings' own: the run's jars and the jars of
    Spark's directory that `MOST_USED` lists, in its order, then the run's other jars, so that the
    application's class loader finds every class of the run's jars. A run jar of an artifact that
    Spark's directory holds too is left out: Spark's copy keeps coming first, as before."""
    spark_jars = list(spark_jars)
    spark_artifacts = {artifact(jar) for jar in spark_jars}
    run_jars = [jar for jar in run_jars if artifact(jar) is None or artifact(jar) not in spark_artifacts]
    listed = [jar for jar in [*run_jars, *spark_jars] if artifact(jar) in _RANK]
    listed.sort(key=lambda jar: _RANK[artifact(jar) or ""])
    return [*listed, *(jar for jar in run_jars if jar not in listed)]


def driver_class_path(class_path: str, run_jars: Iterable[str], spark_jars_dir: Path) -> str:
    """`class_path` (the settings' own and the loader's jar), then `most_used_first` of the run's jars
    and of `spark_jars_dir` (Spark's `jars/`), each jar once."""
    spark_jars = sorted(str(jar) for jar in spark_jars_dir.glob("*.jar"))
    given = set(class_path.split(os.pathsep))
    ordered = [jar for jar in most_used_first(run_jars, spark_jars) if jar not in given]
    return os.pathsep.join(filter(None, [class_path, *ordered]))
