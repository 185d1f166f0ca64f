"""An Iceberg catalog, described in a few typed fields, and the Spark settings that reach it.

Three kinds, by Iceberg's own names: `hive` (a Hive metastore: the one Spark is given, or the embedded
one), `hadoop` (the tables' metadata in the warehouse alone, committed by renaming a file) and `rest` (an
Iceberg REST catalog: Apache Polaris / Snowflake Open Catalog, Glue's REST endpoint, Lakekeeper, Nessie,
Unity, Gravitino, Iceberg's own server). Tables' files on an S3-compatible store are written through
Iceberg's S3FileIO (its SDK is `iceberg-aws-bundle`, put beside Iceberg's Spark runtime), at an endpoint,
a region and with path-style addressing as the store needs.

The catalog serves Spark's session catalog, so the loader's tables are named `db.table` under every kind,
beside the Hive tables. Secrets (a REST catalog's OAuth2 client credentials or bearer token, an object
store's keys) arrive already read, as `pipeline_client.secret_values.Secret`s from a file or a variable
(`loader.formats.catalog_settings`): none is ever a command-line value, which `ps` shows to every user.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from loader.runtime.spark_session import local_path
from pipeline_client.secret_values import Secret

CatalogKind = Literal["hive", "hadoop", "rest"]
CATALOG_KINDS: tuple[CatalogKind, ...] = ("hive", "hadoop", "rest")
# Iceberg's table format versions the loader makes tables of: 3, the first with columns' default values
# (`initial-default`, read by rows written before a field was added), or 2, which more engines read.
FORMAT_VERSIONS = (2, 3)

# Spark's own catalog, which the loader's tables (`db.table`, beside Hive tables) live in: Iceberg's
# SparkSessionCatalog wraps it. Any other name is a catalog of Iceberg tables alone (SparkCatalog).
SESSION_CATALOG = "spark_catalog"
EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO"
# How long a REST catalog's request may wait for its answer unless the settings say otherwise: long enough
# for a busy catalog's commit, short enough that a catalog that hangs fails a cron run rather than holds it.
DEFAULT_REST_TIMEOUT_S = 120.0
# The REST header asking a catalog to hand out storage credentials with each table it loads.
ACCESS_DELEGATION_HEADER = "header.X-Iceberg-Access-Delegation"


class CatalogSettingError(ValueError):
    """A catalog description that cannot work, with what to change."""


@dataclass(frozen=True)
class ObjectStore:
    """An S3-compatible store for the tables' files. Without keys, the AWS SDK's own chain (its
    variables, profile, instance role) or the keys a REST catalog vends are used."""

    endpoint: str | None = None  # None: AWS S3 itself
    region: str | None = None
    path_style: bool = False  # `http://host/bucket/key` instead of `http://bucket.host/key`
    access_key: Secret | None = None
    secret_key: Secret | None = None

    def __post_init__(self) -> None:
        if (self.access_key is None) != (self.secret_key is None):
            raise CatalogSettingError("an object store's access key and secret key are given together")


@dataclass(frozen=True)
class CatalogAccess:
    """How the loader reaches a REST catalog and the object store its tables' files are on: what the
    settings give beside the catalog's kind (`loader.formats.catalog_settings`)."""

    uri: str | None = None  # the REST catalog's `http(s)://`
    warehouse: str | None = None  # the warehouse the REST catalog serves (a name or a location)
    credential: Secret | None = None  # OAuth2 client credentials, `client_id:client_secret`
    token: Secret | None = None  # a bearer token
    oauth2_server_uri: str | None = None  # the token endpoint, when not the catalog's own
    scope: str | None = None  # the OAuth2 scope asked for (the catalog's default otherwise)
    timeout_s: float | None = None  # a request's wait for its answer (`DEFAULT_REST_TIMEOUT_S` otherwise)
    vended_credentials: bool = False  # ask the catalog for storage credentials with each table
    object_store: ObjectStore | None = None
    # Any other catalog property, in Iceberg's names (a secret only as one read from a file or variable).
    properties: Mapping[str, str | Secret] = field(default_factory=dict)

    def rest_only(self) -> list[str]:
        """The settings given here that only a REST catalog takes."""
        given = {
            "iceberg-rest-uri": self.uri,
            "iceberg-rest-warehouse": self.warehouse,
            "iceberg-rest-credential": self.credential,
            "iceberg-rest-token": self.token,
            "iceberg-rest-oauth2-server-uri": self.oauth2_server_uri,
            "iceberg-rest-scope": self.scope,
            "iceberg-rest-timeout-seconds": self.timeout_s,
            "iceberg-vended-credentials": self.vended_credentials or None,
        }
        return [name for name, value in given.items() if value is not None]


@dataclass(frozen=True)
class IcebergCatalog:
    """One Iceberg catalog as the loader is told of it."""

    kind: CatalogKind
    # The loader's warehouse: the tables' place under the hadoop catalog; a REST catalog has its own.
    warehouse: str = ""
    access: CatalogAccess = field(default_factory=CatalogAccess)
    format_version: int = 3  # of the tables the loader creates (`FORMAT_VERSIONS`)

    @property
    def keeps_locations(self) -> bool:
        """Whether the catalog, not the loader's warehouse, decides where tables live (a REST catalog)."""
        return self.kind == "rest"


def check(catalog: IcebergCatalog) -> None:
    """Raises `CatalogSettingError` for a description that cannot work, saying what to change."""
    if catalog.kind not in CATALOG_KINDS:
        raise CatalogSettingError(f"the Iceberg catalog must be one of {', '.join(CATALOG_KINDS)}")
    if catalog.format_version not in FORMAT_VERSIONS:
        raise CatalogSettingError(
            f"the Iceberg format version must be 2 or 3 (iceberg-format-version): {catalog.format_version}"
        )
    access = catalog.access
    if catalog.kind != "rest" and (given := access.rest_only()):
        raise CatalogSettingError(
            f"{', '.join(given)}: only a REST catalog takes these (iceberg-catalog = rest)"
        )
    if catalog.kind == "rest":
        if not access.uri or not access.uri.startswith(("http://", "https://")):
            raise CatalogSettingError("a REST catalog needs its http:// or https:// URI (iceberg-rest-uri)")
        if access.credential is not None and access.token is not None:
            raise CatalogSettingError(
                "a REST catalog takes OAuth2 client credentials or a token, not both "
                "(iceberg-rest-credential, iceberg-rest-token)"
            )
    if catalog.kind == "hadoop" and (
        access.object_store is not None or catalog.warehouse.startswith(("s3://", "s3a://", "gs://", "abfs"))
    ):
        raise CatalogSettingError(
            "a Hadoop catalog commits by renaming a file, which an object store does not do atomically: "
            "use a REST catalog or a metastore for tables on an object store"
        )


def spark_catalog_conf(catalog: IcebergCatalog, name: str = SESSION_CATALOG) -> dict[str, str]:
    """The Spark settings of `catalog` as Spark catalog `name` (the session catalog by default: tables
    named `db.table`, beside the Hive tables)."""
    check(catalog)
    prefix = f"spark.sql.catalog.{name}"
    implementation = "SparkSessionCatalog" if name == SESSION_CATALOG else "SparkCatalog"
    conf = {
        "spark.sql.extensions": EXTENSIONS,
        prefix: f"org.apache.iceberg.spark.{implementation}",
        f"{prefix}.type": catalog.kind,
    }
    if catalog.kind == "hadoop":
        local = local_path(catalog.warehouse)
        conf[f"{prefix}.warehouse"] = str(local.absolute()) if local is not None else catalog.warehouse
    if catalog.kind == "hive":
        conf.update(_metastore_conf(prefix))
    access = catalog.access
    optional = {
        "uri": access.uri,
        "warehouse": access.warehouse,
        "credential": access.credential.reveal() if access.credential else None,
        "token": access.token.reveal() if access.token else None,
        "oauth2-server-uri": access.oauth2_server_uri,
        "scope": access.scope,
        ACCESS_DELEGATION_HEADER: "vended-credentials" if access.vended_credentials else None,
    }
    if catalog.kind == "rest":
        timeout_ms = int((access.timeout_s or DEFAULT_REST_TIMEOUT_S) * 1000)
        optional["rest.client.socket-timeout-ms"] = str(timeout_ms)
        optional["rest.client.connection-timeout-ms"] = str(min(timeout_ms, 30_000))
    conf.update({f"{prefix}.{key}": value for key, value in optional.items() if value is not None})
    if access.object_store is not None:
        conf.update(_object_store_conf(prefix, access.object_store))
    for key, value in access.properties.items():
        conf[f"{prefix}.{key}"] = value.reveal() if isinstance(value, Secret) else value
    return conf


def _metastore_conf(prefix: str) -> dict[str, str]:
    """Iceberg's own metastore client, set as Spark's is: Spark gives it the metastore's address."""
    return {
        # The metastore's own lock needs its transaction tables, which an embedded or plain metastore
        # lacks; Iceberg then commits by the metastore's atomic conditional table update (Hive 2.3.10+).
        f"{prefix}.hadoop.iceberg.engine.hive.lock-enabled": "false",
        # Iceberg's own metastore client pools connections like Spark's (BoneCP is not on the classpath).
        f"{prefix}.hadoop.datanucleus.connectionPoolingType": "DBCP",
        # An embedded metastore that Spark's client made records no schema version; Spark's client does
        # not verify it, and Iceberg's must not either (an external metastore verifies on its own side).
        f"{prefix}.hadoop.hive.metastore.schema.verification": "false",
    }


def _object_store_conf(prefix: str, store: ObjectStore) -> dict[str, str]:
    conf = {f"{prefix}.io-impl": S3_FILE_IO}
    conf.update({f"{prefix}.{key}": value for key, value in file_io_properties(store).items()})
    return conf


def file_io_properties(store: ObjectStore | None) -> dict[str, str]:
    """S3FileIO's properties for `store` (none for AWS S3 reached through the SDK's own chain)."""
    if store is None:
        return {}
    properties = {}
    if store.endpoint:
        properties["s3.endpoint"] = store.endpoint
    if store.region:
        properties["client.region"] = store.region
    if store.path_style:
        properties["s3.path-style-access"] = "true"
    if store.access_key is not None and store.secret_key is not None:
        properties["s3.access-key-id"] = store.access_key.reveal()
        properties["s3.secret-access-key"] = store.secret_key.reveal()
    return properties
