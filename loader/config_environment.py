"""The loader's settings checked against this machine, once, before a command uses them: what the table
format refuses of it (`loader.formats.preflight`: the Spark line's Iceberg runtime, the jars an object
store needs), a warehouse the embedded metastore can use,
the security settings' files; and their local paths made absolute against the directory the loader was
started from, since Spark's JVM runs elsewhere (`loader.runtime.spark_session`) and would read a relative
path against its own. What the values alone must be was checked when the settings were made
(`loader.config`, `loader.config_rules`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from loader.config_rules import is_uri
from loader.formats.preflight import Lake, Preflight
from loader.reading.kafka_security import KafkaSecurity
from loader.runtime.spark_session import local_path, remote_warehouse_refusal
from pipeline_client.client_settings import RegistryClientSettings


class MachineChecked(Protocol):
    """What the checks read of the loader's settings (`loader.config.LoaderSettings`, a dataclass)."""

    __dataclass_fields__: dict[str, Any]

    @property
    def preflight(self) -> Preflight: ...
    @property
    def lake(self) -> Lake: ...
    @property
    def metastore_uri(self) -> str | None: ...
    @property
    def warehouse(self) -> str: ...
    @property
    def state_dir(self) -> str | None: ...
    @property
    def registry_url(self) -> str: ...
    @property
    def kafka_security(self) -> KafkaSecurity: ...
    @property
    def registry_access(self) -> RegistryClientSettings: ...
    @property
    def driver_class_archive_dir(self) -> str | None: ...
    @property
    def metrics_file(self) -> str | None: ...


Settings = TypeVar("Settings", bound=MachineChecked)


def absolute_if_local(location: str) -> str:
    """A local path made absolute; a URI (`hdfs://`, `s3a://`, `file:`) left as it is."""
    return location if is_uri(location) else str(Path(location).absolute())


def checked_on_this_machine(settings: Settings) -> Settings:
    """`settings`, their local paths absolute; ValueError for what this machine cannot run."""
    if refusal := settings.preflight.refuses_machine(settings.lake):
        raise ValueError(refusal)
    if not settings.metastore_uri and local_path(settings.warehouse) is None:
        raise ValueError(remote_warehouse_refusal(settings.warehouse))  # as the session would, later
    settings.kafka_security.validate()
    settings.registry_access.session(settings.registry_url, settings.kafka_security.sasl_login)  # its files
    archive_dir, metrics_file = settings.driver_class_archive_dir, settings.metrics_file
    return replace(
        settings,
        warehouse=absolute_if_local(settings.warehouse),
        state_dir=absolute_if_local(settings.state_dir) if settings.state_dir else None,
        driver_class_archive_dir=str(Path(archive_dir).absolute()) if archive_dir else None,
        metrics_file=str(Path(metrics_file).absolute()) if metrics_file else None,
    )
