"""The registry's settings declared once (registry/config.py): each is a flag of the commands that take it,
a REGISTRY_* variable, bounds checked on every path in, and a row of docs/registry.md."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from declared_settings.fields import Declared, with_tables
from registry.cli import main
from registry.config import DECLARED, RegistryConfig, ServerSettings, manual_tables

REPO = Path(__file__).resolve().parents[2]
SERVE_FLAGS = [setting for setting in DECLARED if "serve" in setting.setting.commands]


def serve_params(args: list[str]) -> dict[str, Any]:
    return dict(main.commands["serve"].make_context("serve", args).params)


def test_every_field_is_declared_but_the_switch_only_tests_use() -> None:
    names = {setting.name for setting in DECLARED}
    every = {f.name for cls in (RegistryConfig, ServerSettings) for f in fields(cls)}
    assert every - names == {"auto_upgrade"}


def test_serve_has_exactly_the_declared_flags_each_with_its_variable() -> None:
    options = {
        param.name: param for param in main.commands["serve"].params if isinstance(param, click.Option)
    }
    assert set(options) - {"help"} == {setting.name for setting in SERVE_FLAGS}
    for setting in SERVE_FLAGS:
        assert options[setting.name].envvar == f"REGISTRY_{setting.name.upper()}"
        assert setting.flag in options[setting.name].opts


@pytest.mark.parametrize("setting", SERVE_FLAGS, ids=lambda s: s.name)
def test_each_setting_is_read_from_its_flag_and_from_its_variable(
    setting: Declared, monkeypatch: pytest.MonkeyPatch
) -> None:
    if setting.kind is bool:
        given, read, args = "true", True, [setting.flag]
    elif setting.choices:
        given = read = setting.choices[-1]
        args = [setting.flag, given]
    elif setting.kind is int:
        given, read, args = "7", 7, [setting.flag, "7"]
    else:
        given = read = "x-value"
        args = [setting.flag, given]
    monkeypatch.delenv(setting.envvar, raising=False)
    assert serve_params(args)[setting.name] == read
    assert serve_params([])[setting.name] is None  # not given: the model's default decides
    monkeypatch.setenv(setting.envvar, given)
    assert serve_params([])[setting.name] == read


def test_the_switches_with_two_flags_set_both_ways() -> None:
    assert serve_params(["--no-auth"])["auth_enabled"] is False
    assert serve_params(["--auth"])["auth_enabled"] is True
    assert serve_params(["--metrics-private"])["metrics_public"] is False


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--trusted-proxy-hops", "11"], "--trusted-proxy-hops"),
        (["--max-body-bytes", "0"], "--max-body-bytes"),
        (["--port", "70000"], "--port"),
        (["--log-format", "xml"], "--log-format"),
    ],
)
def test_a_flag_out_of_bounds_stops_serve_with_exit_2_naming_it(args: list[str], named: str) -> None:
    result = CliRunner().invoke(main, ["serve", *args])
    assert result.exit_code == 2
    assert named in result.output


def test_a_variable_out_of_bounds_is_refused_on_the_workers_path_too() -> None:
    with pytest.raises(ValueError, match="--trusted-proxy-hops must be at most 10, not 12"):
        RegistryConfig.from_env({"REGISTRY_TRUSTED_PROXY_HOPS": "12"})
    with pytest.raises(ValueError, match="REGISTRY_CACHE_SIZE must be a whole number"):
        RegistryConfig.from_env({"REGISTRY_CACHE_SIZE": "lots"})
    with pytest.raises(ValueError, match="--log-format must be one of text, json"):
        RegistryConfig(log_format="xml")  # type: ignore[arg-type]


def test_the_environment_round_trips_to_the_workers() -> None:
    config = RegistryConfig(
        database_url="sqlite:///x.db", auth_enabled=True, trusted_proxy_hops=2, auto_upgrade=False
    )
    assert RegistryConfig.from_env(config.to_env()) == config


def test_the_manual_table_is_the_one_the_declarations_make() -> None:
    manual = (REPO / "docs" / "registry.md").read_text()
    assert "<!-- settings table: registry" in manual
    assert with_tables(manual, manual_tables()) == manual


def test_the_shared_declarations_need_only_click() -> None:
    """`registry check` (the pre-commit hook) installs only the core: click, rich, requests."""
    import ast

    source = ast.parse((REPO / "declared_settings" / "fields.py").read_text())
    imported = {
        (node.module or "").split(".")[0] if isinstance(node, ast.ImportFrom) else alias.name.split(".")[0]
        for node in ast.walk(source)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert imported - {"__future__", "click", "dataclasses", "re", "types", "collections", "typing"} == set()
