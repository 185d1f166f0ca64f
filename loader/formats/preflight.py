"""What each table format needs and refuses before a run opens it: its name among the choices of
`table-format`, what it refuses of the settings and of this machine, and the Spark settings and jars of its
session. The settings (`loader.config`), their checks (`loader.config_rules`, `loader.config_environment`)
and the session (`loader.runtime.loader_session`) reach a format only through `PREFLIGHTS`, and a run
opens one through `loader.formats.lookup`: a new format is added in `loader/formats/` alone.

Nothing here starts Spark: the settings are checked before any session exists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from loader.formats.iceberg_catalogs import CatalogAccess, IcebergCatalog, spark_catalog_conf
from loader.formats.object_store_files import S3_SCHEMES, kept_on_object_store
from loader.runtime.spark_session import iceberg_jars, installed_spark_version, object_store_jars
from loader.runtime.spark_versions import iceberg_refusal

OBJECT_STORE_SCHEMES = ("s3://", "s3a://", "s3n://", "gs://", "abfs://", "abfss://", "wasb://", "wasbs://")


@dataclass(frozen=True)
class Lake:
    """The settings a format looks at before its session exists: where its tables and the loader's state
    are, and the Iceberg catalog's description (given for every format, used by Iceberg's)."""

    catalog: IcebergCatalog
    catalog_access: CatalogAccess
    warehouse: str
    state_location: str

    @property
    def state_on_object_store(self) -> bool:
        """Whether the state directory is written through Iceberg's S3FileIO (`lookup.open_state`)."""
        return kept_on_object_store(self.state_location, self.catalog)


@dataclass(frozen=True)
class Preflight:
    """One format's needs and refusals; each refusal is None when there is none, else what to change."""

    refuses_settings: Callable[[Lake], str | None]
    refuses_machine: Callable[[Lake], str | None]
    session_conf: Callable[[Lake], dict[str, str]]
    session_jars: Callable[[Lake], list[str]]


def _nothing(_: Lake) -> None:
    return None


def _hive_settings(lake: Lake) -> str | None:
    if lake.catalog.kind == "rest" or lake.catalog_access != CatalogAccess():
        return "the REST catalog and object store settings are for Iceberg tables (table-format = iceberg)"
    if lake.warehouse.startswith(OBJECT_STORE_SCHEMES) or lake.state_location.startswith(
        OBJECT_STORE_SCHEMES
    ):
        return (
            "Hive tables are not loaded onto an object store: a Hive commit moves each file into "
            "place by renaming it, which an object store does as a copy that readers can see half "
            "done, and the run lock there is not atomic. Load Iceberg tables instead (--table-format "
            'iceberg), through a REST catalog (--iceberg-catalog rest; see "Iceberg catalogs and '
            'object stores")'
        )
    return None


def _iceberg_settings(lake: Lake) -> str | None:
    state = lake.state_location
    on_another_store = state.startswith(OBJECT_STORE_SCHEMES) and not state.startswith(S3_SCHEMES)
    if lake.catalog.keeps_locations and on_another_store:
        return (
            f"the loader's state directory {state} is on an object store the loader "
            "writes its state to only on S3 (s3://): give warehouse (or state-dir) on S3, a local disk "
            "or HDFS"
        )
    return None


def _iceberg_machine(lake: Lake) -> str | None:
    if refusal := iceberg_refusal(installed_spark_version()):
        return refusal
    if (lake.catalog_access.object_store or lake.state_on_object_store) and not object_store_jars():
        return (
            "Iceberg tables on an object store need Iceberg's AWS bundle beside its Spark runtime: "
            "scripts/fetch-jars fetches both (or put iceberg-aws-bundle on Spark's class path)"
        )
    return None


PREFLIGHTS: dict[str, Preflight] = {
    # A Hive lake's session loads nothing of Iceberg.
    "hive": Preflight(_hive_settings, _nothing, lambda _: {}, lambda _: []),
    "iceberg": Preflight(
        _iceberg_settings,
        _iceberg_machine,
        lambda lake: spark_catalog_conf(lake.catalog),
        lambda _: iceberg_jars(),
    ),
}
# The table-format setting's choices (its flag's and its manual's); the settings check a value against
# `PREFLIGHTS` itself when they are made.
FORMAT_NAMES = tuple(PREFLIGHTS)
