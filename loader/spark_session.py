"""Builds the SparkSession the loader (and the tests) run on.

Embedded defaults need nothing but a directory: local Spark, a Derby metastore and the warehouse beside
each other. A cluster passes its own master, metastore URI and warehouse (HDFS/S3) instead, by
configuration only. The Kafka source and Avro functions come either from spark-submit (`--packages`,
`--jars`) or, locally, from the jar cache that `scripts/fetch-jars` fills.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pyspark.sql import SparkSession

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class SparkSettings:
    """Where Spark runs and where its tables live."""

    warehouse_dir: str
    metastore_uri: str | None = None
    master: str | None = None
    app_name: str = "kafka-table-loader"
    jars_dir: Path | None = None
    extra_conf: Mapping[str, str] = field(default_factory=dict)


def connector_jars(jars_dir: Path | None = None) -> list[str]:
    """The Spark Kafka/Avro connector jars matching this pyspark, from the local cache if it is there."""
    import pyspark

    base = jars_dir or Path(os.environ.get("PIPELINE_JARS_DIR", REPO_ROOT / ".cache" / "jars"))
    directory = base / f"spark-{pyspark.__version__}"
    if not (directory / ".complete").exists():
        return []
    return sorted(str(jar) for jar in directory.glob("*.jar"))


def _local_path(uri: str) -> Path | None:
    """The local directory behind a warehouse URI, or None when it lives on a remote file system."""
    if "://" not in uri:
        return Path(uri)
    if uri.startswith("file://"):
        return Path(uri.removeprefix("file://"))
    return None


def build_spark_session(settings: SparkSettings) -> SparkSession:
    """A Hive-enabled SparkSession for the given settings (re-uses an active one with the same JVM)."""
    builder = SparkSession.builder.appName(settings.app_name)
    master = settings.master
    if not master and "SPARK_MASTER" not in os.environ and not os.environ.get("PYSPARK_SUBMIT_ARGS"):
        master = "local[2]"
    if master:
        builder = builder.master(master)

    conf: dict[str, str] = {
        "spark.sql.warehouse.dir": settings.warehouse_dir,
        # Tables evolve with their schemas (int -> long, a field added inside a struct): the metastore
        # must accept the new column types. An external metastore needs the same setting on its side.
        "spark.hadoop.hive.metastore.disallow.incompatible.col.type.changes": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
        "spark.sql.hive.convertMetastoreParquet": "true",
    }
    if master and master.startswith("local"):
        # A local driver talks only to itself: keep it on loopback whatever the host name resolves to.
        conf["spark.driver.host"] = "127.0.0.1"
        conf["spark.driver.bindAddress"] = "127.0.0.1"
    jars = connector_jars(settings.jars_dir)
    if jars:
        conf["spark.jars"] = ",".join(jars)
    if settings.metastore_uri:
        conf["spark.hadoop.hive.metastore.uris"] = settings.metastore_uri
    else:
        local = _local_path(settings.warehouse_dir)
        if local is None:
            raise ValueError(
                "an embedded Derby metastore needs a local warehouse directory; "
                "with a remote warehouse, pass the metastore URI (thrift://...)"
            )
        metastore_dir = local.resolve().parent / "metastore_db"
        conf["spark.hadoop.javax.jdo.option.ConnectionURL"] = (
            f"jdbc:derby:;databaseName={metastore_dir};create=true"
        )
        conf["spark.driver.extraJavaOptions"] = f"-Dderby.system.home={local.resolve().parent}"
    conf.update(settings.extra_conf)
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.enableHiveSupport().getOrCreate()
