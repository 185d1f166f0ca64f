"""The loader's part of how a setting is declared (`declared_settings.fields`): its commands, which a
setting takes unless it says otherwise, and its variables' prefix (`LOADER_`). This module imports nothing
of the loader: the declarations import it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from declared_settings import fields
from declared_settings.fields import Command, Declared, config_keys, options, with_tables

COMMANDS = ("run", "status", "audit", "maintain", "unlock")
RUN = ("run",)
METRICS = ("run", "audit")
MAINTAIN = ("maintain",)
ENV_PREFIX = "LOADER_"

__all__ = [
    "COMMANDS",
    "ENV_PREFIX",
    "MAINTAIN",
    "METRICS",
    "RUN",
    "Command",
    "Declared",
    "Setting",
    "config_keys",
    "declared",
    "manual_table",
    "options",
    "with_tables",
]


@dataclass(frozen=True)
class Setting(fields.Setting):
    """A loader setting: every command takes it unless `commands` says which."""

    commands: tuple[str, ...] = COMMANDS


def declared(*classes: type) -> list[Declared]:
    """The loader settings that `classes` declare, in their order."""
    return fields.declared(*classes, prefix=ENV_PREFIX)


def manual_table(settings: Iterable[Declared]) -> str:
    """docs/loader.md's table of `settings` (config-file-only ones under `[loader]`)."""
    return fields.manual_table(settings, COMMANDS, "loader")
