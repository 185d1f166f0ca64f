"""An Iceberg catalog's description turned into Spark settings: each kind, its secrets read from a file or
a variable by the catalog settings (never given as values), and the descriptions that cannot work refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from loader.formats.catalog_settings import take_catalog
from loader.formats.iceberg_catalogs import (
    CatalogAccess,
    CatalogSettingError,
    IcebergCatalog,
    ObjectStore,
    spark_catalog_conf,
)
from pipeline_client.secret_values import Secret, SecretError

VARIABLES = {
    "LOADER_ICEBERG_REST_CREDENTIAL": "loader:s3cr3t",
    "LOADER_S3_ACCESS_KEY_ID": "AK",
    "LOADER_S3_SECRET_ACCESS_KEY": "SK",
}
STORE = ObjectStore(
    endpoint="http://127.0.0.1:9000",
    region="eu-west-1",
    path_style=True,
    access_key=Secret("AK", "test"),
    secret_key=Secret("SK", "test"),
)


def test_rest_catalog_with_client_credentials_and_an_object_store() -> None:
    values = {
        "iceberg_rest_uri": "https://catalog.example/api/catalog",
        "iceberg_rest_warehouse": "lake",
        "iceberg_rest_scope": "PRINCIPAL_ROLE:ALL",
        "iceberg_vended_credentials": True,
        "s3_endpoint": "http://127.0.0.1:9000",
        "s3_region": "eu-west-1",
        "s3_path_style": True,
        "bootstrap_servers": "k:9092",  # not the catalog's: stays
    }
    access = take_catalog(values, VARIABLES)
    assert values == {"bootstrap_servers": "k:9092"}
    assert spark_catalog_conf(IcebergCatalog("rest", "/w", access)) == {
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.spark_catalog": "org.apache.iceberg.spark.SparkSessionCatalog",
        "spark.sql.catalog.spark_catalog.type": "rest",
        "spark.sql.catalog.spark_catalog.uri": "https://catalog.example/api/catalog",
        "spark.sql.catalog.spark_catalog.warehouse": "lake",
        "spark.sql.catalog.spark_catalog.credential": "loader:s3cr3t",
        "spark.sql.catalog.spark_catalog.scope": "PRINCIPAL_ROLE:ALL",
        "spark.sql.catalog.spark_catalog.header.X-Iceberg-Access-Delegation": "vended-credentials",
        # A catalog that does not answer fails the request after the default wait, not never.
        "spark.sql.catalog.spark_catalog.rest.client.socket-timeout-ms": "120000",
        "spark.sql.catalog.spark_catalog.rest.client.connection-timeout-ms": "30000",
        "spark.sql.catalog.spark_catalog.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "spark.sql.catalog.spark_catalog.s3.endpoint": "http://127.0.0.1:9000",
        "spark.sql.catalog.spark_catalog.client.region": "eu-west-1",
        "spark.sql.catalog.spark_catalog.s3.path-style-access": "true",
        "spark.sql.catalog.spark_catalog.s3.access-key-id": "AK",
        "spark.sql.catalog.spark_catalog.s3.secret-access-key": "SK",
    }
    # The secrets are named by where they came from, never shown.
    assert "s3cr3t" not in repr(access) and "environment variable LOADER_ICEBERG_REST_CREDENTIAL" in repr(
        access
    )


def test_rest_catalog_with_a_token_from_a_file_as_a_named_catalog(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("bearer-value\n")
    values = {
        "iceberg_rest_uri": "http://127.0.0.1:8181",
        "iceberg_rest_token_file": str(token_file),
        "iceberg_rest_oauth2_server_uri": "https://idp.example/oauth/token",
    }
    conf = spark_catalog_conf(IcebergCatalog("rest", "/w", take_catalog(values, {})), name="lake")
    assert conf["spark.sql.catalog.lake"] == "org.apache.iceberg.spark.SparkCatalog"
    assert conf["spark.sql.catalog.lake.token"] == "bearer-value"
    assert conf["spark.sql.catalog.lake.oauth2-server-uri"] == "https://idp.example/oauth/token"
    # No object store named: Iceberg's default FileIO, no S3 setting, no credential.
    assert not [key for key in conf if ".s3." in key or "io-impl" in key or "credential" in key]


def test_metastore_catalog_on_an_object_store_without_keys() -> None:
    access = CatalogAccess(object_store=ObjectStore(region="us-east-1"))
    conf = spark_catalog_conf(IcebergCatalog("hive", "s3://lake/warehouse", access))
    assert conf["spark.sql.catalog.spark_catalog.type"] == "hive"
    # Spark's own metastore settings reach Iceberg's client; the warehouse is the metastore's to say.
    assert conf["spark.sql.catalog.spark_catalog.hadoop.iceberg.engine.hive.lock-enabled"] == "false"
    assert "spark.sql.catalog.spark_catalog.warehouse" not in conf
    assert conf["spark.sql.catalog.spark_catalog.io-impl"] == "org.apache.iceberg.aws.s3.S3FileIO"
    assert conf["spark.sql.catalog.spark_catalog.client.region"] == "us-east-1"
    # The SDK's own chain finds the keys: none is set.
    assert not [key for key in conf if "access-key" in key or "endpoint" in key or "path-style" in key]


def test_hadoop_catalog_on_local_disk(tmp_path: Path) -> None:
    conf = spark_catalog_conf(IcebergCatalog("hadoop", f"file:{tmp_path}"))
    assert conf["spark.sql.catalog.spark_catalog.type"] == "hadoop"
    assert conf["spark.sql.catalog.spark_catalog.warehouse"] == str(tmp_path)
    assert "spark.sql.catalog.spark_catalog.uri" not in conf


@pytest.mark.parametrize(
    ("catalog", "words"),
    [
        (IcebergCatalog("hadoop", "s3://lake/w"), "renaming a file"),
        (IcebergCatalog("hadoop", "/lake", CatalogAccess(object_store=STORE)), "renaming a file"),
        (IcebergCatalog("rest", "/w"), "http:// or https:// URI"),
        (IcebergCatalog("rest", "/w", CatalogAccess(uri="thrift://x:1")), "http:// or https:// URI"),
        (
            IcebergCatalog(
                "rest",
                "/w",
                CatalogAccess(uri="http://c", credential=Secret("a:b", "t"), token=Secret("t", "t")),
            ),
            "not both",
        ),
        (
            IcebergCatalog("hive", "/w", CatalogAccess(token=Secret("t", "t"))),
            "iceberg-rest-token: only a REST",
        ),
        (IcebergCatalog("hive", "/w", CatalogAccess(vended_credentials=True)), "only a REST catalog"),
        (IcebergCatalog("hadoop", "/w", CatalogAccess(uri="http://c")), "iceberg-rest-uri: only a REST"),
    ],
)
def test_descriptions_that_cannot_work_are_refused(catalog: IcebergCatalog, words: str) -> None:
    with pytest.raises(CatalogSettingError, match=words):
        spark_catalog_conf(catalog)


def test_secrets_come_from_one_file_or_one_variable_and_are_never_empty(tmp_path: Path) -> None:
    with pytest.raises(CatalogSettingError, match="given together"):
        ObjectStore(access_key=Secret("AK", "t"))
    with pytest.raises(CatalogSettingError, match="given together"):
        take_catalog({"s3_endpoint": "http://s"}, {"LOADER_S3_ACCESS_KEY_ID": "AK"})
    with pytest.raises(SecretError, match="cannot read the REST catalog's token from"):
        take_catalog({"iceberg_rest_token_file": str(tmp_path / "absent")}, {})
    (tmp_path / "blank").write_text("\n")
    with pytest.raises(SecretError, match="is empty"):
        take_catalog({"s3_secret_key_file": str(tmp_path / "blank")}, {"LOADER_S3_ACCESS_KEY_ID": "AK"})
    (tmp_path / "credential").write_text("id:secret\n")
    with pytest.raises(SecretError, match=r"both as a file .* and in LOADER_ICEBERG_REST_CREDENTIAL"):
        take_catalog({"iceberg_rest_credential_file": str(tmp_path / "credential")}, VARIABLES)
    from_file = {"iceberg_rest_credential_file": str(tmp_path / "credential")}
    assert take_catalog(from_file, {}).credential == Secret("id:secret", f"file {tmp_path / 'credential'}")


def test_any_other_catalog_property_from_the_config_file_table(tmp_path: Path) -> None:
    """Glue's REST endpoint signs with SigV4: properties the loader has no setting of its own for come from
    the `[loader.iceberg]` table, in Iceberg's names; a secret there only from a file or a variable."""
    values = {
        "iceberg_rest_uri": "https://glue.eu-west-1.amazonaws.com/iceberg",
        "iceberg_rest_warehouse": "123456789012",
        "iceberg": {"rest": {"sigv4-enabled": True, "signing-name": "glue", "signing-region": "eu-west-1"}},
    }
    conf = spark_catalog_conf(IcebergCatalog("rest", "/w", take_catalog(values, {})))
    assert conf["spark.sql.catalog.spark_catalog.rest.sigv4-enabled"] == "true"
    assert conf["spark.sql.catalog.spark_catalog.rest.signing-name"] == "glue"
    assert conf["spark.sql.catalog.spark_catalog.rest.signing-region"] == "eu-west-1"
    with pytest.raises(SecretError, match=r"iceberg\.s3\.secret-access-key is a secret"):
        take_catalog({"iceberg": {"s3.secret-access-key": "SK"}}, {})
    secret = {"iceberg": {"s3.session-token": {"env": "SESSION"}}}
    conf = spark_catalog_conf(IcebergCatalog("hive", "/w", take_catalog(secret, {"SESSION": "tok"})))
    assert conf["spark.sql.catalog.spark_catalog.s3.session-token"] == "tok"
