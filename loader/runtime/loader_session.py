"""The Spark session of a loader command: `build_spark_session` with what a run needs (the table format's
settings and jars, from `loader.formats.preflight`: Iceberg's catalog and runtime for Iceberg tables only;
the fair scheduler for topics' jobs side by side; the driver JVM's JIT and class archive), from the
settings it names."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from pyspark.sql import SparkSession

from loader.runtime.jvm_calls import answer_without_delay
from loader.runtime.spark_session import (
    DRIVER_JIT,
    SparkSettings,
    build_spark_session,
)


class SessionSettings(Protocol):
    """What the session takes of the loader's settings (`loader.config.LoaderSettings` has it)."""

    @property
    def session_conf(self) -> dict[str, str]: ...
    @property
    def session_jars(self) -> list[str]: ...
    @property
    def warehouse(self) -> str: ...
    @property
    def metastore_uri(self) -> str | None: ...
    @property
    def spark_master(self) -> str | None: ...
    @property
    def driver_jit(self) -> str: ...
    @property
    def driver_class_archive_dir(self) -> str | None: ...


def spark_for(settings: SessionSettings) -> SparkSession:
    spark = build_spark_session(
        SparkSettings(
            warehouse_dir=settings.warehouse,
            metastore_uri=settings.metastore_uri,
            master=settings.spark_master,
            app_name="kafka-table-loader",
            extra_conf={
                # The run prints its own progress and report; Spark's stage bars would garble them.
                "spark.ui.showConsoleProgress": "false",
                # Topics' jobs share the executors fairly (see `loader.run.load`), instead of first come,
                # first served.
                "spark.scheduler.mode": "FAIR",
                **settings.session_conf,  # the table format's (`loader.formats.preflight`)
            },
            extra_jars=tuple(settings.session_jars),
            driver_java_options=DRIVER_JIT[settings.driver_jit],
            class_archive_dir=(
                Path(settings.driver_class_archive_dir) if settings.driver_class_archive_dir else None
            ),
        )
    )
    spark.sparkContext.setLogLevel("ERROR")
    answer_without_delay(spark)
    return spark
