"""Loader settings: flags over environment over the config file, and clear usage errors."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from loader.cli import _settings, main
from loader.config import LoaderSettings, read_config_file


def test_config_file_section_with_dashed_keys(tmp_path: Path) -> None:
    config = tmp_path / "loader.toml"
    config.write_text('[loader]\nbootstrap-servers = "k:9092"\nwarehouse = "/w"\ntask-pool-size = 8\n')
    assert read_config_file(config) == {"bootstrap_servers": "k:9092", "warehouse": "/w", "task_pool_size": 8}


def test_unknown_setting_in_file_is_named(tmp_path: Path) -> None:
    config = tmp_path / "loader.toml"
    config.write_text('[loader]\ntopic-overrides = "page_view"\n')
    with pytest.raises(ValueError, match="unknown setting\\(s\\) topic_overrides"):
        read_config_file(config)


def test_flags_win_over_the_file(tmp_path: Path) -> None:
    config = tmp_path / "loader.toml"
    config.write_text('bootstrap-servers = "file:9092"\nregistry-url = "http://file"\nwarehouse = "/file"\n')
    settings = _settings(config, bootstrap_servers="flag:9092", registry_url=None, warehouse=None)
    assert (settings.bootstrap_servers, settings.registry_url, settings.warehouse) == (
        "flag:9092",
        "http://file",
        "/file",
    )
    assert settings.state_location == "/file/_loader_state/kafka"


def test_environment_fills_what_flags_leave() -> None:
    env = {"LOADER_BOOTSTRAP_SERVERS": "env:9092", "LOADER_REGISTRY_URL": "http://env"}
    result = CliRunner().invoke(main, ["run", "--partition-granularity", "day"], env=env)
    assert result.exit_code == 2
    # Only the warehouse is missing: the other two came from the environment.
    assert "missing --warehouse (or LOADER_* environment variables, or --config)" in result.output


def test_missing_required_settings_are_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["run", "--warehouse", "/w"], env={})
    assert result.exit_code == 2
    assert "missing --bootstrap-servers, --registry-url" in result.output


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"partition_granularity": "minute"}, "partition granularity must be 'day' or 'hour'"),
        ({"task_pool_size": 0}, "at least 1"),
        ({"max_bad_ratio": 2.0}, "max-bad-ratio must be at most 1, not 2.0"),
        ({"max_bad_ratio": -0.5}, "max-bad-ratio must be at least 0, not -0.5"),
        ({"topics_per_query": 0}, "topics-per-query must be at least 1, not 0"),
        ({"table_format": "delta"}, "table format must be 'hive' or 'iceberg'"),
        ({"iceberg_catalog": "glue"}, "Iceberg catalog must be 'hive' or 'hadoop' or 'rest'"),
        (
            {"table_format": "iceberg", "iceberg_catalog": "rest"},
            "REST catalog needs its http:// or https:// URI",
        ),
        ({"iceberg_catalog": "rest"}, "settings are for Iceberg tables"),
        ({"driver_jit": "c2"}, "driver JIT must be 'quick' or 'full'"),
        ({"driver_class_archive_dir": "hdfs://nn/jvm"}, "class archive directory must be a local path"),
        ({"driver_class_archive_dir": "/var/a:b"}, "class archive directory must not contain ':'"),
        ({"current_state_topics": "accounts("}, "current_state_topics is not a regular expression"),
        ({"no_current_state_topics": "*"}, "no_current_state_topics is not a regular expression"),
    ],
)
def test_invalid_values_are_refused(override: dict, message: str) -> None:
    base = {"bootstrap_servers": "k", "registry_url": "http://r", "warehouse": "/w"}
    with pytest.raises(ValueError, match=message):
        LoaderSettings(**{**base, **override}).validate()
    with pytest.raises(click.UsageError, match=message):
        _settings(None, **{**base, **override})


def test_a_rest_catalog_run_keeps_its_state_on_s3_through_s3fileio_or_off_object_stores() -> None:
    base = {"bootstrap_servers": "k", "registry_url": "http://r", "table_format": "iceberg"}
    rest = {**base, "iceberg_catalog": "rest", "iceberg_rest_uri": "http://c"}
    metastore = {"metastore_uri": "thrift://m:9083"}  # a remote warehouse's Spark needs a metastore
    for place in (
        {"warehouse": "s3a://lake/w", **metastore},
        {"warehouse": "/w", "state_dir": "s3://lake/state"},
    ):
        assert _settings(None, **rest, **place).state_files_on_object_store
    for place in ({"warehouse": "gs://lake/w"}, {"warehouse": "/w", "state_dir": "abfss://c@a/state"}):
        with pytest.raises(click.UsageError, match=r"writes its state to only on S3 \(s3://\)"):
            _settings(None, **rest, **place)
    on_hdfs = _settings(None, **rest, **metastore, warehouse="hdfs://nn/w")
    assert on_hdfs.state_location == "hdfs://nn/w/_loader_state/kafka"
    assert not on_hdfs.state_files_on_object_store
    # Under a metastore, a warehouse on S3A keeps its state through Hadoop's file system and its own lock.
    assert not _settings(None, **base, **metastore, warehouse="s3a://lake/w").state_files_on_object_store


@pytest.mark.parametrize("warehouse", ["s3://lake/w", "hdfs://nn/w"])
def test_a_remote_warehouse_without_a_metastore_is_refused_before_spark_starts(warehouse: str) -> None:
    """Spark's embedded metastore lives in the warehouse, on a local disk; under a REST catalog, which
    keeps the tables itself, the message says where the loader's state goes instead."""
    rest = {"table_format": "iceberg", "iceberg_catalog": "rest", "iceberg_rest_uri": "http://c"}
    with pytest.raises(click.UsageError) as refused:
        _settings(None, bootstrap_servers="k", registry_url="http://r", warehouse=warehouse, **rest)
    message = str(refused.value)
    assert f"the warehouse {warehouse} is not a local directory" in message
    assert "pass the metastore URI" in message and 'state-dir = "s3://..."' in message


def test_hive_tables_on_an_object_store_are_refused_with_the_way_to_iceberg() -> None:
    base = {"bootstrap_servers": "k", "registry_url": "http://r", "table_format": "hive"}
    for place in ({"warehouse": "s3a://lake/w"}, {"warehouse": "/w", "state_dir": "gs://lake/state"}):
        with pytest.raises(click.UsageError, match=r"Hive tables are not loaded onto an object store.*"
                           r"--table-format iceberg.*--iceberg-catalog rest"):  # fmt: skip
            _settings(None, **base, **place)
    on_hdfs = _settings(None, **base, warehouse="hdfs://nn/w", metastore_uri="thrift://m:9083")
    assert on_hdfs.warehouse == "hdfs://nn/w"


def test_maintenance_settings_come_from_the_file_and_become_the_compaction_policy(tmp_path: Path) -> None:
    config = tmp_path / "loader.toml"
    config.write_text(
        '[loader]\nbootstrap-servers = "k:9092"\nregistry-url = "http://r"\nwarehouse = "/w"\n'
        "maintain-min-files = 4\nmaintain-small-file-mb = 8\nmaintain-target-file-mb = 256\n"
        "maintain-min-age-minutes = 30\nmaintain-grace-minutes = 0\n"
        "maintain-snapshot-retention-minutes = 90\n"
    )
    settings = _settings(config)
    request = settings.maintain_request("maintain-1", datetime(2026, 12, 7, tzinfo=UTC))
    policy = request.compaction
    assert (policy.min_files, policy.small_file_bytes, policy.target_file_bytes) == (4, 8 << 20, 256 << 20)
    assert (policy.min_age.total_seconds(), request.grace.total_seconds()) == (1800, 0)
    assert (request.database, request.snapshot_retention.total_seconds()) == ("kafka", 90 * 60)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "maintain-grace-minutes",
            "-1",
            "maintain-grace-minutes must be at least 0, not -1",
        ),
        (
            "maintain-snapshot-retention-minutes",
            "-1",
            "maintain-snapshot-retention-minutes must be at least 0, not -1",
        ),
        ("maintain-min-age-minutes", "-5", "maintain-min-age-minutes must be at least 0, not -5"),
        (
            "maintain-target-file-mb",
            "0",
            "maintain-target-file-mb must be at least 1, not 0",
        ),
    ],
)
def test_maintenance_settings_out_of_range_are_usage_errors(
    tmp_path: Path, key: str, value: str, message: str
) -> None:
    config = tmp_path / "loader.toml"
    config.write_text(
        f'bootstrap-servers = "k:9092"\nregistry-url = "http://r"\nwarehouse = "/w"\n{key} = {value}\n'
    )
    with pytest.raises(click.UsageError, match=message):
        _settings(config)


def test_table_format_from_flag_environment_and_file(tmp_path: Path) -> None:
    config = tmp_path / "loader.toml"
    config.write_text('bootstrap-servers = "k"\nregistry-url = "http://r"\nwarehouse = "/w"\n')
    assert _settings(config).table_format == "hive"  # the default
    config.write_text(config.read_text() + 'table-format = "iceberg"\niceberg-catalog = "hadoop"\n')
    settings = _settings(config)
    assert (settings.table_format, settings.iceberg_catalog) == ("iceberg", "hadoop")
    assert _settings(config, table_format="hive").table_format == "hive"
    env = {"LOADER_TABLE_FORMAT": "parquet", "LOADER_CONFIG": str(config)}
    result = CliRunner().invoke(main, ["status"], env=env)
    assert result.exit_code == 2
    assert "'parquet' is not one of 'hive', 'iceberg'" in result.output


def test_iceberg_session_settings_only_for_iceberg(tmp_path: Path) -> None:
    def conf(**values: str) -> dict[str, str]:
        return LoaderSettings("k:9092", "http://r", f"file:{tmp_path}", **values).session_conf

    assert conf() == {}  # Hive tables: nothing of Iceberg in the session
    hive = conf(table_format="iceberg")
    assert hive["spark.sql.catalog.spark_catalog"] == "org.apache.iceberg.spark.SparkSessionCatalog"
    assert hive["spark.sql.catalog.spark_catalog.type"] == "hive"
    assert "spark.sql.catalog.spark_catalog.warehouse" not in hive  # the metastore says where tables are
    hadoop = conf(table_format="iceberg", iceberg_catalog="hadoop")
    assert hadoop["spark.sql.catalog.spark_catalog.warehouse"] == str(tmp_path)


def test_rest_catalog_settings_from_flags_variables_and_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catalog's settings come as any other setting does; its secrets only from a file or a variable."""
    (tmp_path / "keys").write_text("SK\n")
    config = tmp_path / "loader.toml"
    config.write_text(
        'bootstrap-servers = "k"\nregistry-url = "http://r"\nwarehouse = "/w"\ntable-format = "iceberg"\n'
        'iceberg-catalog = "rest"\niceberg-rest-uri = "http://catalog:8181"\n'
        f's3-endpoint = "http://store:9000"\ns3-path-style = true\n'
        f's3-secret-key-file = "{tmp_path / "keys"}"\n'
    )
    for command in ("run", "status", "audit", "maintain"):
        result = CliRunner().invoke(main, [command, "--help"])
        assert "--iceberg-rest-credential-file" in result.output and "--s3-path-style" in result.output
    monkeypatch.setenv("LOADER_S3_ACCESS_KEY_ID", "AK")
    settings = _settings(config, iceberg_rest_warehouse="lake", iceberg_vended_credentials=True)
    conf = settings.session_conf
    assert conf["spark.sql.catalog.spark_catalog.uri"] == "http://catalog:8181"
    assert conf["spark.sql.catalog.spark_catalog.warehouse"] == "lake"
    assert conf["spark.sql.catalog.spark_catalog.s3.access-key-id"] == "AK"
    assert conf["spark.sql.catalog.spark_catalog.s3.secret-access-key"] == "SK"
    assert conf["spark.sql.catalog.spark_catalog.s3.path-style-access"] == "true"
    assert conf["spark.sql.catalog.spark_catalog.header.X-Iceberg-Access-Delegation"] == "vended-credentials"
    # A secret given as a value in the file is not a setting at all.
    config.write_text(config.read_text() + 'iceberg-rest-credential = "id:secret"\n')
    with pytest.raises(ValueError, match=r"unknown setting.*iceberg_rest_credential"):
        _settings(config)


def test_driver_jit_from_flag_environment_and_file(tmp_path: Path) -> None:
    config = tmp_path / "loader.toml"
    config.write_text('bootstrap-servers = "k"\nregistry-url = "http://r"\nwarehouse = "/w"\n')
    assert _settings(config).driver_jit == "quick"  # the default
    config.write_text(config.read_text() + 'driver-jit = "full"\n')
    assert _settings(config).driver_jit == "full"
    assert _settings(config, driver_jit="quick").driver_jit == "quick"
    result = CliRunner().invoke(
        main, ["status"], env={"LOADER_DRIVER_JIT": "c2", "LOADER_CONFIG": str(config)}
    )
    assert result.exit_code == 2
    assert "'c2' is not one of 'quick', 'full'" in result.output


def test_driver_class_archive_dir_is_off_by_default_and_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "loader.toml"
    config.write_text('bootstrap-servers = "k"\nregistry-url = "http://r"\nwarehouse = "/w"\n')
    assert _settings(config).driver_class_archive_dir is None  # nothing written unless asked
    monkeypatch.chdir(tmp_path)
    config.write_text(config.read_text() + 'driver-class-archive-dir = "jvm"\n')
    assert _settings(config).driver_class_archive_dir == str(tmp_path / "jvm")
    result = CliRunner().invoke(
        main,
        ["status"],
        env={"LOADER_DRIVER_CLASS_ARCHIVE_DIR": "s3a://bucket/jvm", "LOADER_CONFIG": str(config)},
    )
    assert result.exit_code == 2
    assert "class archive directory must be a local path, not 's3a://bucket/jvm'" in result.output


def test_current_state_settings_from_file_and_flags(tmp_path: Path) -> None:
    config = tmp_path / "loader.toml"
    config.write_text('bootstrap-servers = "k"\nregistry-url = "http://r"\nwarehouse = "/w"\n')
    default = _settings(config)
    assert (default.current_state_topics, default.no_current_state_topics) == (None, None)
    assert default.current_state_history is True  # the history table is kept unless turned off
    config.write_text(
        config.read_text() + "current-state-topics = 'flags\\..*'\ncurrent-state-history = false\n"
    )
    settings = _settings(config, no_current_state_topics="flags\\.old")
    assert settings.current_state_topics == "flags\\..*"
    assert settings.no_current_state_topics == "flags\\.old"
    assert settings.current_state_history is False


def test_the_iceberg_format_version_is_2_or_3() -> None:
    base = {
        "bootstrap_servers": "k",
        "registry_url": "http://r",
        "warehouse": "/w",
        "table_format": "iceberg",
    }
    assert _settings(None, **base).iceberg.format_version == 3
    assert _settings(None, **base, iceberg_format_version=2).iceberg.format_version == 2
    with pytest.raises(click.UsageError, match="Iceberg format version must be 2 or 3"):
        _settings(None, **base, iceberg_format_version=4)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--records-per-task", "0"], "--records-per-task"),
        (["--max-bad-ratio", "1.5"], "--max-bad-ratio"),
        (["--small-topic-records", "-1"], "--small-topic-records"),
    ],
)
def test_a_flag_out_of_its_declared_bounds_is_refused_before_anything_runs(
    args: list[str], named: str
) -> None:
    """The bounds the model checks (its constraints) are the flag's range too."""
    base = ["--bootstrap-servers", "k", "--registry-url", "http://r", "--warehouse", "/w"]
    result = CliRunner().invoke(main, ["run", *base, *args], env={})
    assert result.exit_code == 2
    assert f"Invalid value for '{named}'" in result.output
