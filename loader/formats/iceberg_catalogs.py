"""An Iceberg catalog, described in a few typed fields, and the Spark settings that reach it.

Three kinds: `hadoop` (the tables' metadata in the warehouse alone, committed by renaming a file),
`metastore` (a Hive metastore, `thrift://...`, or the embedded one) and `rest` (an Iceberg REST catalog:
Apache Polaris, Glue's REST endpoint, Lakekeeper, Nessie, Unity, Iceberg's own server). Tables' files on an
S3-compatible store are written through Iceberg's S3FileIO (its SDK is `iceberg-aws-bundle`, put beside
Iceberg's Spark runtime), at an endpoint, a region and with path-style addressing as the store needs.

Secrets (a REST catalog's OAuth2 client credentials or bearer token, an object store's keys) are named, never
given: each is a `Secret` read from a file or an environment variable, so that none is ever a command-line
value (which `ps` shows to every user). `spark_catalog_conf` is pure: it takes the secrets' values from the
function it is given; `read_secret` is the one that reads them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

CatalogKind = Literal["hadoop", "metastore", "rest"]
CATALOG_KINDS: tuple[CatalogKind, ...] = ("hadoop", "metastore", "rest")

# Spark's own catalog, which the loader's tables (`db.table`, beside Hive tables) live in: Iceberg's
# SparkSessionCatalog wraps it. Any other name is a catalog of Iceberg tables alone (SparkCatalog).
SESSION_CATALOG = "spark_catalog"
EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO"
# The REST header asking a catalog to hand out storage credentials with each table it loads.
ACCESS_DELEGATION_HEADER = "header.X-Iceberg-Access-Delegation"


class CatalogSettingError(ValueError):
    """A catalog description that cannot work, with what to change."""


@dataclass(frozen=True)
class Secret:
    """Where a secret is read from: a file (its content, surrounding white space stripped) or an
    environment variable. Exactly one of the two."""

    file: Path | None = None
    variable: str | None = None

    def __post_init__(self) -> None:
        if (self.file is None) == (self.variable is None):
            raise CatalogSettingError("a secret is read from either a file or an environment variable")

    def __str__(self) -> str:
        return f"file {self.file}" if self.file is not None else f"variable {self.variable}"


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
class IcebergCatalog:
    """One Iceberg catalog as the loader would be told of it."""

    kind: CatalogKind
    warehouse: str | None = None  # a location (hadoop, metastore) or the REST catalog's warehouse name
    uri: str | None = None  # the metastore's `thrift://...` (none: embedded), the REST catalog's `http(s)://`
    credential: Secret | None = None  # REST: OAuth2 client credentials, `client_id:client_secret`
    token: Secret | None = None  # REST: a bearer token
    oauth2_server_uri: str | None = None  # REST: the token endpoint, when not the catalog's own
    scope: str | None = None  # REST: the OAuth2 scope asked for (a catalog's default otherwise)
    vended_credentials: bool = False  # REST: ask the catalog for storage credentials with each table
    object_store: ObjectStore | None = None


def _check(catalog: IcebergCatalog) -> None:
    if catalog.kind not in CATALOG_KINDS:
        raise CatalogSettingError(f"the Iceberg catalog must be one of {', '.join(CATALOG_KINDS)}")
    rest_only = {
        "credential": catalog.credential,
        "token": catalog.token,
        "oauth2_server_uri": catalog.oauth2_server_uri,
        "scope": catalog.scope,
        "vended_credentials": catalog.vended_credentials or None,
    }
    if catalog.kind != "rest":
        given = [name for name, value in rest_only.items() if value is not None]
        if given:
            raise CatalogSettingError(f"{', '.join(given)}: only a REST catalog takes these")
    if catalog.kind == "rest":
        if not catalog.uri or not catalog.uri.startswith(("http://", "https://")):
            raise CatalogSettingError("a REST catalog needs its http:// or https:// URI")
        if catalog.credential is not None and catalog.token is not None:
            raise CatalogSettingError("a REST catalog takes OAuth2 client credentials or a token, not both")
    if catalog.kind == "metastore" and catalog.uri and not catalog.uri.startswith("thrift://"):
        raise CatalogSettingError("a metastore's URI is thrift://host:port")
    if catalog.kind == "hadoop":
        if not catalog.warehouse:
            raise CatalogSettingError("a Hadoop catalog needs its warehouse location")
        if catalog.object_store is not None or catalog.warehouse.startswith(("s3://", "s3a://", "gs://")):
            raise CatalogSettingError(
                "a Hadoop catalog commits by renaming a file, which an object store does not do atomically: "
                "use a REST catalog or a metastore for tables on an object store"
            )


def spark_catalog_conf(
    catalog: IcebergCatalog, secret_value: Callable[[Secret], str], name: str = SESSION_CATALOG
) -> dict[str, str]:
    """The Spark settings of `catalog` as Spark catalog `name` (the session catalog by default: tables
    named `db.table`). Secrets' values come from `secret_value` (`read_secret` reads them)."""
    _check(catalog)
    prefix = f"spark.sql.catalog.{name}"
    implementation = "SparkSessionCatalog" if name == SESSION_CATALOG else "SparkCatalog"
    conf = {
        "spark.sql.extensions": EXTENSIONS,
        prefix: f"org.apache.iceberg.spark.{implementation}",
        f"{prefix}.type": {"hadoop": "hadoop", "metastore": "hive", "rest": "rest"}[catalog.kind],
    }
    if catalog.warehouse:
        conf[f"{prefix}.warehouse"] = catalog.warehouse
    if catalog.uri:
        conf[f"{prefix}.uri"] = catalog.uri
    if catalog.credential is not None:
        conf[f"{prefix}.credential"] = secret_value(catalog.credential)
    if catalog.token is not None:
        conf[f"{prefix}.token"] = secret_value(catalog.token)
    if catalog.oauth2_server_uri:
        conf[f"{prefix}.oauth2-server-uri"] = catalog.oauth2_server_uri
    if catalog.scope:
        conf[f"{prefix}.scope"] = catalog.scope
    if catalog.vended_credentials:
        conf[f"{prefix}.{ACCESS_DELEGATION_HEADER}"] = "vended-credentials"
    if catalog.object_store is not None:
        conf.update(_object_store_conf(prefix, catalog.object_store, secret_value))
    return conf


def _object_store_conf(
    prefix: str, store: ObjectStore, secret_value: Callable[[Secret], str]
) -> dict[str, str]:
    conf = {f"{prefix}.io-impl": S3_FILE_IO}
    if store.endpoint:
        conf[f"{prefix}.s3.endpoint"] = store.endpoint
    if store.region:
        conf[f"{prefix}.client.region"] = store.region
    if store.path_style:
        conf[f"{prefix}.s3.path-style-access"] = "true"
    if store.access_key is not None and store.secret_key is not None:
        conf[f"{prefix}.s3.access-key-id"] = secret_value(store.access_key)
        conf[f"{prefix}.s3.secret-access-key"] = secret_value(store.secret_key)
    return conf


def read_secret(secret: Secret, environ: Mapping[str, str] = os.environ) -> str:
    """A secret's value, from its file or its variable; a missing or empty one is refused, naming where it
    was looked for (never the value)."""
    if secret.file is not None:
        try:
            value = secret.file.read_text().strip()
        except OSError as unreadable:
            raise CatalogSettingError(f"cannot read the secret in {secret}: {unreadable.strerror}") from None
    else:
        value = environ.get(secret.variable or "", "").strip()
    if not value:
        raise CatalogSettingError(f"the secret in {secret} is empty or missing")
    return value
