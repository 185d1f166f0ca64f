"""An Iceberg catalog's description turned into Spark settings: each kind, its secrets read from a file or
a variable (never given as values), and the descriptions that cannot work refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from loader.formats.iceberg_catalogs import (
    CatalogSettingError,
    IcebergCatalog,
    ObjectStore,
    Secret,
    read_secret,
    spark_catalog_conf,
)

VALUES = {"CATALOG_CREDENTIAL": "loader:s3cr3t", "CATALOG_TOKEN": "tok", "KEY": "AK", "SECRET": "SK"}


def from_variables(secret: Secret) -> str:
    return read_secret(secret, VALUES)


STORE = ObjectStore(
    endpoint="http://127.0.0.1:9000",
    region="eu-west-1",
    path_style=True,
    access_key=Secret(variable="KEY"),
    secret_key=Secret(variable="SECRET"),
)


def test_rest_catalog_with_client_credentials_and_an_object_store() -> None:
    catalog = IcebergCatalog(
        kind="rest",
        uri="https://catalog.example/api/catalog",
        warehouse="lake",
        credential=Secret(variable="CATALOG_CREDENTIAL"),
        scope="PRINCIPAL_ROLE:ALL",
        vended_credentials=True,
        object_store=STORE,
    )
    assert spark_catalog_conf(catalog, from_variables) == {
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.spark_catalog": "org.apache.iceberg.spark.SparkSessionCatalog",
        "spark.sql.catalog.spark_catalog.type": "rest",
        "spark.sql.catalog.spark_catalog.uri": "https://catalog.example/api/catalog",
        "spark.sql.catalog.spark_catalog.warehouse": "lake",
        "spark.sql.catalog.spark_catalog.credential": "loader:s3cr3t",
        "spark.sql.catalog.spark_catalog.scope": "PRINCIPAL_ROLE:ALL",
        "spark.sql.catalog.spark_catalog.header.X-Iceberg-Access-Delegation": "vended-credentials",
        "spark.sql.catalog.spark_catalog.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "spark.sql.catalog.spark_catalog.s3.endpoint": "http://127.0.0.1:9000",
        "spark.sql.catalog.spark_catalog.client.region": "eu-west-1",
        "spark.sql.catalog.spark_catalog.s3.path-style-access": "true",
        "spark.sql.catalog.spark_catalog.s3.access-key-id": "AK",
        "spark.sql.catalog.spark_catalog.s3.secret-access-key": "SK",
    }


def test_rest_catalog_with_a_token_from_a_file_as_a_named_catalog(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("bearer-value\n")
    catalog = IcebergCatalog(
        kind="rest",
        uri="http://127.0.0.1:8181",
        token=Secret(file=token_file),
        oauth2_server_uri="https://idp.example/oauth/token",
    )
    conf = spark_catalog_conf(catalog, read_secret, name="lake")
    assert conf["spark.sql.catalog.lake"] == "org.apache.iceberg.spark.SparkCatalog"
    assert conf["spark.sql.catalog.lake.token"] == "bearer-value"
    assert conf["spark.sql.catalog.lake.oauth2-server-uri"] == "https://idp.example/oauth/token"
    # No object store named: Iceberg's default FileIO, no S3 setting, no credential.
    assert not [key for key in conf if ".s3." in key or "io-impl" in key or "credential" in key]


def test_metastore_catalog_on_an_object_store_without_keys() -> None:
    catalog = IcebergCatalog(
        kind="metastore",
        uri="thrift://metastore:9083",
        warehouse="s3://lake/warehouse",
        object_store=ObjectStore(region="us-east-1"),
    )
    conf = spark_catalog_conf(catalog, from_variables)
    assert conf["spark.sql.catalog.spark_catalog.type"] == "hive"
    assert conf["spark.sql.catalog.spark_catalog.uri"] == "thrift://metastore:9083"
    assert conf["spark.sql.catalog.spark_catalog.io-impl"] == "org.apache.iceberg.aws.s3.S3FileIO"
    assert conf["spark.sql.catalog.spark_catalog.client.region"] == "us-east-1"
    # The SDK's own chain finds the keys: none is set.
    assert not [key for key in conf if "access-key" in key or "endpoint" in key or "path-style" in key]


def test_hadoop_catalog_on_local_disk() -> None:
    conf = spark_catalog_conf(IcebergCatalog(kind="hadoop", warehouse="/data/lake"), from_variables)
    assert conf["spark.sql.catalog.spark_catalog.type"] == "hadoop"
    assert conf["spark.sql.catalog.spark_catalog.warehouse"] == "/data/lake"
    assert "spark.sql.catalog.spark_catalog.uri" not in conf


@pytest.mark.parametrize(
    ("catalog", "words"),
    [
        (IcebergCatalog(kind="hadoop", warehouse="s3://lake/w"), "renaming a file"),
        (IcebergCatalog(kind="hadoop", warehouse="/lake", object_store=STORE), "renaming a file"),
        (IcebergCatalog(kind="hadoop"), "needs its warehouse"),
        (IcebergCatalog(kind="rest"), "http:// or https:// URI"),
        (IcebergCatalog(kind="rest", uri="thrift://x:1"), "http:// or https:// URI"),
        (
            IcebergCatalog(
                kind="rest",
                uri="http://c",
                credential=Secret(variable="CATALOG_CREDENTIAL"),
                token=Secret(variable="CATALOG_TOKEN"),
            ),
            "not both",
        ),
        (IcebergCatalog(kind="metastore", token=Secret(variable="CATALOG_TOKEN")), "only a REST catalog"),
        (IcebergCatalog(kind="metastore", vended_credentials=True), "only a REST catalog"),
        (IcebergCatalog(kind="metastore", uri="http://metastore:9083"), "thrift://"),
    ],
)
def test_descriptions_that_cannot_work_are_refused(catalog: IcebergCatalog, words: str) -> None:
    with pytest.raises(CatalogSettingError, match=words):
        spark_catalog_conf(catalog, from_variables)


def test_a_secret_is_a_file_or_a_variable_and_never_empty(tmp_path: Path) -> None:
    with pytest.raises(CatalogSettingError, match="either a file or an environment variable"):
        Secret()
    with pytest.raises(CatalogSettingError, match="either a file or an environment variable"):
        Secret(file=tmp_path / "x", variable="X")
    with pytest.raises(CatalogSettingError, match="given together"):
        ObjectStore(access_key=Secret(variable="KEY"))
    with pytest.raises(CatalogSettingError, match="variable UNSET is empty or missing"):
        read_secret(Secret(variable="UNSET"), {})
    with pytest.raises(CatalogSettingError, match="cannot read the secret in file"):
        read_secret(Secret(file=tmp_path / "absent"))
    (tmp_path / "blank").write_text("  \n")
    with pytest.raises(CatalogSettingError, match="is empty or missing"):
        read_secret(Secret(file=tmp_path / "blank"))
