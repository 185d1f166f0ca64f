"""The loader's settings declared once: each field of `LoaderSettings` (and of the security settings) is
its flag, its environment variable, its config file key and its row of the manual's tables."""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path
from typing import Any

import click
import pytest

from loader.cli import _settings, main
from loader.config import DECLARED, LoaderSettings, manual_tables, read_config_file, with_manual_tables
from loader.setting_fields import COMMANDS, Declared, with_tables

REPO = Path(__file__).resolve().parents[2]
FLAGS = [setting for setting in DECLARED if setting.setting.flag]


def sample(setting: Declared) -> tuple[str, Any]:
    """A value other than the default, as a flag or variable gives it, and as the command reads it."""
    if setting.kind is bool:
        return "1", True
    if setting.choices:
        choice = next(c for c in reversed(setting.choices) if c != setting.default)
        return choice.lower() if not setting.setting.case_sensitive else choice, choice
    if setting.kind is int:
        return "7", 7
    if setting.kind is float:
        return "0.5", 0.5
    return "x-value", "x-value"


def parsed(command: str, args: list[str]) -> dict[str, Any]:
    """What `command` gives `_settings` for `args` and the environment (`--config` aside)."""
    params = dict(main.commands[command].make_context(command, args).params)
    params.pop("config")
    return params


def test_every_field_is_declared_except_the_objects_made_from_the_security_and_catalog_settings() -> None:
    names = {setting.name for setting in DECLARED}
    made = {"kafka_security", "registry_access", "catalog_access"}
    assert {field.name for field in fields(LoaderSettings)} - names == made


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_exactly_the_flags_of_the_settings_it_takes(command: str) -> None:
    options = {opt: param for param in main.commands[command].params for opt in param.opts}
    for setting in DECLARED:
        takes = setting.setting.flag and command in setting.setting.commands
        assert (setting.flag in options) == takes, (command, setting.name)
        if takes:
            assert options[setting.flag].envvar == f"LOADER_{setting.name.upper()}"
            assert options[setting.flag].name == setting.name


@pytest.mark.parametrize("setting", FLAGS, ids=lambda setting: setting.name)
def test_each_setting_is_read_from_its_flag_and_from_its_variable(
    setting: Declared, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = setting.setting.commands[0]
    given, read = sample(setting)
    args = [setting.flag] if setting.kind is bool else [setting.flag, given]
    monkeypatch.delenv(setting.envvar, raising=False)  # as the test session may set it
    assert parsed(command, args)[setting.name] == read
    assert parsed(command, [])[setting.name] is None  # not given: the config file or the default decides
    monkeypatch.setenv(setting.envvar, given)
    assert parsed(command, [])[setting.name] == read


def test_a_generated_flag_wins_over_its_variable_which_wins_over_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "loader.toml"
    config.write_text(
        'bootstrap-servers = "k"\nregistry-url = "http://r"\nwarehouse = "/w"\nmaintain-min-files = 4\n'
    )
    assert _settings(config, **parsed("maintain", [])).maintain_min_files == 4
    monkeypatch.setenv("LOADER_MAINTAIN_MIN_FILES", "5")
    assert _settings(config, **parsed("maintain", [])).maintain_min_files == 5
    assert _settings(config, **parsed("maintain", ["--maintain-min-files", "6"])).maintain_min_files == 6


def test_every_declared_setting_is_a_config_file_key(tmp_path: Path) -> None:
    config = tmp_path / "loader.toml"
    config.write_text("\n".join(f'{setting.key} = "x"' for setting in DECLARED))
    assert set(read_config_file(config)) == {setting.name for setting in DECLARED}


def test_a_value_of_the_wrong_type_in_the_file_is_a_usage_error_naming_the_setting(tmp_path: Path) -> None:
    config = tmp_path / "loader.toml"
    config.write_text(
        'bootstrap-servers = "k"\nregistry-url = "http://r"\nwarehouse = "/w"\ntopic-threads = "many"\n'
    )
    with pytest.raises(click.UsageError) as raised:
        _settings(config)
    assert (
        raised.value.message
        == "topic-threads: Input should be a valid integer, unable to parse string as an integer"
    )


def test_help_says_each_default() -> None:
    run = {param.name: param for param in main.commands["run"].params}
    assert run["records_per_task"].help.endswith("Default: 500000.")
    assert run["max_bad_ratio"].help.endswith("Default: 0.")
    assert run["state_dir"].help.endswith("Default: <warehouse>/_loader_state/<database>.")
    assert "Default" not in run["bootstrap_servers"].help  # required
    assert "Default" not in run["audit_topic"].help  # off unless given


def test_the_manual_s_settings_tables_are_the_generated_ones() -> None:
    """After changing a setting, `python -m loader.config docs/loader.md` writes them anew."""
    manual = (REPO / "docs" / "loader.md").read_text()
    for name in manual_tables():
        assert f"<!-- settings table: {name} " in manual
    assert with_manual_tables(manual) == manual
    for setting in FLAGS:
        assert f"| `{setting.key}` |" in manual


def test_a_marker_of_an_unknown_table_is_an_error_and_a_changed_table_is_rewritten() -> None:
    text = "a\n<!-- settings table: t (generated) -->\n| old |\n<!-- end of the settings table -->\nb\n"
    assert with_tables(text, {"t": "| new |\n"}) == text.replace("| old |", "| new |")
    with pytest.raises(ValueError, match="no settings table named 't'"):
        with_tables(text, {"u": ""})


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_the_settings_import_nothing_above_them() -> None:
    """The settings are read by the run, the operations and the readers: none of those is imported back."""
    assert not {
        m for m in imported_modules(REPO / "loader" / "config.py") if m.startswith("loader.operations")
    }
    setting_fields = imported_modules(REPO / "loader" / "setting_fields.py")
    assert not {m for m in setting_fields if m.startswith("loader")}
    for module in (REPO / "loader" / "reading").glob("*.py"):
        assert "loader.config" not in imported_modules(module), module.name
