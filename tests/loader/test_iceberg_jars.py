"""Which Iceberg jars a session for Iceberg tables loads: the newest fetched Spark runtime of this pyspark's
line, and Iceberg's AWS bundle of that same Iceberg version (S3FileIO's SDK) when it is fetched."""

from __future__ import annotations

from pathlib import Path

from loader.runtime.spark_session import iceberg_jars, installed_spark_version
from loader.runtime.spark_versions import minor_of


def fetched(jars_dir: Path, name: str, *jars: str, complete: bool = True) -> list[str]:
    directory = jars_dir / name
    directory.mkdir(parents=True)
    for jar in jars:
        (directory / jar).write_bytes(b"")
    if complete:
        (directory / ".complete").touch()
    return [str((directory / jar).resolve()) for jar in jars]


def test_the_runtime_and_the_aws_bundle_of_its_version(tmp_path: Path) -> None:
    minor = minor_of(installed_spark_version())
    fetched(tmp_path, f"iceberg-1.10.0-spark-{minor}", "iceberg-spark-runtime-1.10.0.jar")
    runtime = fetched(tmp_path, f"iceberg-1.11.0-spark-{minor}", "iceberg-spark-runtime-1.11.0.jar")
    fetched(tmp_path, "iceberg-aws-1.10.0", "iceberg-aws-bundle-1.10.0.jar")
    bundle = fetched(tmp_path, "iceberg-aws-1.11.0", "iceberg-aws-bundle-1.11.0.jar")
    fetched(tmp_path, "iceberg-1.11.0-spark-0.9", "iceberg-spark-runtime-0.9.jar")  # another line's
    assert iceberg_jars(tmp_path) == sorted(runtime + bundle)


def test_without_a_finished_aws_bundle_the_runtime_alone(tmp_path: Path) -> None:
    minor = minor_of(installed_spark_version())
    runtime = fetched(tmp_path, f"iceberg-1.11.0-spark-{minor}", "iceberg-spark-runtime-1.11.0.jar")
    fetched(tmp_path, "iceberg-aws-1.11.0", "iceberg-aws-bundle-1.11.0.jar", complete=False)
    assert iceberg_jars(tmp_path) == runtime


def test_no_runtime_no_jars_even_with_a_bundle(tmp_path: Path) -> None:
    fetched(tmp_path, "iceberg-aws-1.11.0", "iceberg-aws-bundle-1.11.0.jar")
    assert iceberg_jars(tmp_path) == []
