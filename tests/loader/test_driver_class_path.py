"""The class path of a driver JVM the loader starts: the most used jars first, nothing of anyone's moved
ahead of the settings' own class path, no class of Spark's taken from a run jar instead."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from loader.runtime.driver_class_archive import spark_home
from loader.runtime.driver_class_path import MOST_USED, artifact, driver_class_path, most_used_first
from loader.runtime.spark_session import connector_jars, iceberg_jars
from tests.loader.harness import run_driver_script


@pytest.mark.parametrize(
    ("jar", "name"),
    [
        ("spark-sql_2.13-4.0.0.jar", "spark-sql"),
        ("/opt/spark/jars/spark-catalyst_2.12-3.5.1.jar", "spark-catalyst"),
        ("log4j-1.2-api-2.24.3.jar", "log4j-1.2-api"),
        ("orc-core-2.1.2-shaded-protobuf.jar", "orc-core"),
        ("netty-transport-4.1.118.Final.jar", "netty-transport"),
        ("hive-exec-2.3.10-core.jar", "hive-exec"),
        ("spark-sql-kafka-0-10_2.13-4.0.0.jar", "spark-sql-kafka-0-10"),
        ("derby-10.16.1.1.jar", "derby"),
        ("guava-33.4.0-jre.jar", "guava"),
        ("zstd-jni-1.5.6-9.jar", "zstd-jni"),
        ("tableloader.jar", None),
    ],
)
def test_a_jar_is_known_by_its_artifact_whatever_its_version(jar: str, name: str | None) -> None:
    assert artifact(jar) == name


def test_the_most_used_jars_come_in_order_and_the_runs_other_jars_after_them() -> None:
    spark = ["/s/zookeeper-3.9.3.jar", "/s/derby-10.16.1.1.jar", "/s/spark-catalyst_2.13-4.0.0.jar"]
    run = ["/r/spark-avro_2.13-4.0.0.jar", "/r/kafka-clients-3.9.0.jar"]
    assert most_used_first(run, spark) == [
        "/s/spark-catalyst_2.13-4.0.0.jar",  # MOST_USED's first
        "/r/kafka-clients-3.9.0.jar",
        "/s/derby-10.16.1.1.jar",
        "/r/spark-avro_2.13-4.0.0.jar",  # not listed, but a run jar: on the class path all the same
    ]  # zookeeper: Spark's, not listed, where the launcher puts it


def test_a_run_jar_of_an_artifact_spark_ships_does_not_go_ahead_of_sparks_copy() -> None:
    spark = ["/s/avro-1.12.0.jar", "/s/lz4-java-1.8.0.jar"]
    run = ["/r/avro-1.11.4.jar", "/r/lz4-java-1.7.1.jar", "/r/kafka-clients-3.9.0.jar"]
    assert most_used_first(run, spark) == [
        "/r/kafka-clients-3.9.0.jar",
        "/s/avro-1.12.0.jar",
        "/s/lz4-java-1.8.0.jar",
    ]


def test_the_settings_class_path_stays_first_and_no_jar_is_listed_twice(tmp_path: Path) -> None:
    spark_jars = tmp_path / "jars"
    spark_jars.mkdir()
    for name in ("spark-core_2.13-4.0.0.jar", "zookeeper-3.9.3.jar", "scala-library-2.13.16.jar"):
        (spark_jars / name).touch()
    scala = str(spark_jars / "scala-library-2.13.16.jar")
    given = os.pathsep.join(["/opt/loader.jar", "/opt/theirs.jar", scala])
    assert driver_class_path(given, ["/r/kafka-clients-3.9.0.jar"], spark_jars).split(os.pathsep) == [
        "/opt/loader.jar",
        "/opt/theirs.jar",
        scala,
        "/r/kafka-clients-3.9.0.jar",
        str(spark_jars / "spark-core_2.13-4.0.0.jar"),
    ]
    assert driver_class_path("", [], tmp_path / "no spark here") == ""


def test_the_list_names_each_artifact_once() -> None:
    assert len(MOST_USED) == len(set(MOST_USED))


DRIVER_CLASS_PATH = """
import json, sys
from loader.config import LoaderSettings
from loader.job import spark_for
spark = spark_for(LoaderSettings("k:9092", "http://r", sys.argv[1]).validate())
jvm = spark._jvm
run_loader = jvm.Thread.currentThread().getContextClassLoader()  # with the run's jars (`spark.jars`)
consumer = jvm.java.lang.Class.forName("org.apache.kafka.clients.consumer.KafkaConsumer", False, run_loader)
application_loader = jvm.ClassLoader.getSystemClassLoader()
print(json.dumps({
    "class_path": jvm.System.getProperty("java.class.path").split(":"),
    "kafka_from_the_application_loader": consumer.getClassLoader().equals(application_loader),
}))
spark.stop()
"""


@pytest.mark.integration
def test_a_driver_jvm_finds_the_most_used_jars_first_and_the_runs_jars_in_its_own_class_loader(
    tmp_path: Path,
) -> None:
    seen, _ = run_driver_script(DRIVER_CLASS_PATH, str(tmp_path / "warehouse"), cwd=tmp_path)
    names = [Path(entry).name for entry in seen["class_path"]]
    assert names[0].startswith("tableloader-")  # the loader's own jar, first as before
    assert [artifact(name) for name in names[1:4]] == list(MOST_USED[:3])
    assert all(Path(entry).exists() for entry in seen["class_path"] if entry.endswith(".jar"))
    assert seen["kafka_from_the_application_loader"]


# Classes that jars of the run and Spark's jars both carry, and that no run loads: Spark's build stub,
# JetBrains' source annotations, which Iceberg's runtime carries in a version of its own, and JTS, the
# geometry library that Iceberg's runtime (1.11 on) and Spark (4.1 on) each carry for geometry types and
# functions, which no Avro type maps to and no run calls.
SHARED_AND_NEVER_LOADED = (
    "org/apache/spark/unused/",
    "org/jetbrains/annotations/",
    "org/intellij/lang/",
    "org/locationtech/jts/",
)


def test_no_class_of_the_runs_jars_is_one_of_sparks_so_none_changes_its_origin() -> None:
    """The run's jars now come ahead of Spark's on the driver's class path: a class both held would now
    come from the run's copy instead of Spark's."""
    run_jars = connector_jars() + iceberg_jars()
    assert any(artifact(jar) == "kafka-clients" for jar in run_jars), "run scripts/fetch-jars first"
    assert any((artifact(jar) or "").startswith("iceberg-spark-runtime-") for jar in run_jars), (
        "fetch the jars"
    )
    spark_classes = {name for jar in (spark_home() / "jars").glob("*.jar") for name in classes_in(jar)}
    shared = {
        (Path(jar).name, name)
        for jar in run_jars
        for name in classes_in(Path(jar)) & spark_classes
        if not name.startswith(SHARED_AND_NEVER_LOADED)
    }
    assert shared == set()


def classes_in(jar: Path) -> set[str]:
    with zipfile.ZipFile(jar) as archive:
        return {n for n in archive.namelist() if n.endswith(".class") and not n.startswith("META-INF/")}
