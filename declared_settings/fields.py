"""How a setting of a command line is declared, and what follows from its declaration.

A setting is a field of a dataclass (the loader's `loader.config.LoaderSettings`, the registry's
`registry.config.RegistryConfig`, ...) annotated with a `Setting`: its help text and the commands that take
it. Its type and default are the field's. From that follow its flag (`--records-per-task`), its
environment variable (`LOADER_RECORDS_PER_TASK`, under the program's prefix), its config file key
(`records-per-task`, or `records_per_task`) and its row in the manual's tables. This module imports only
click: each program's declarations import it (`loader.setting_fields`, `registry.config`).
"""

from __future__ import annotations

import dataclasses
import re
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

import click

Command = TypeVar("Command", bound=Callable[..., Any])


@dataclass(frozen=True)
class Setting:
    """What a field's type and default do not say: what the setting means and who takes it."""

    help: str
    commands: tuple[str, ...] = ()  # the commands that take it as a flag (a program's own subclass
    # gives the default: every command it has)
    flag: bool = True  # False: a table of the config file only
    label: str | None = None  # how messages name it (default: its name with spaces)
    shown_default: str | None = None  # the default as the manual says it, when the value alone does not
    choices: tuple[str, ...] = ()  # for a `str`; a `Literal` type gives its own
    case_sensitive: bool = True
    file: bool = False  # a path to a file
    metavar: str | None = None
    flag_name: str | None = None  # the flag without its dashes, when not the field's name (`auth`)
    off_flag: str | None = None  # a `bool`'s flag that says false (`no-auth`); None: only the true one
    hidden: bool = False  # left out of `--help` (a benchmark's switch)
    minimum: float | None = None  # a number's bounds, checked by the flag and by the program's model (a
    maximum: float | None = None  # pydantic model may say them as constraints instead: `Ge(1)`, `Le(10)`

    def check(self, label: str, value: Any) -> None:
        """Raises ValueError naming `label` when `value` is out of the declared bounds."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"{label} must be at least {self.minimum:g}, not {value}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"{label} must be at most {self.maximum:g}, not {value}")


@dataclass(frozen=True)
class Declared:
    """A field with its `Setting`: what its flag, variable and config key are."""

    name: str
    kind: Any  # the field's type without its `None` and annotations
    default: Any  # `dataclasses.MISSING`: required
    setting: Setting
    prefix: str  # of its environment variable (`LOADER_`)
    lowest: float | None = None  # its bounds, inclusive: the Setting's, or its type's constraints
    highest: float | None = None

    @property
    def key(self) -> str:
        return self.name.replace("_", "-")

    @property
    def flag(self) -> str:
        return f"--{self.setting.flag_name or self.key}"

    @property
    def envvar(self) -> str:
        return self.prefix + self.name.upper()

    @property
    def label(self) -> str:
        return self.setting.label or self.name.replace("_", " ")

    @property
    def choices(self) -> tuple[str, ...]:
        return get_args(self.kind) if get_origin(self.kind) is Literal else self.setting.choices

    @property
    def required(self) -> bool:
        return self.default is dataclasses.MISSING

    def shown_default(self) -> str:
        """The default as the manual and `--help` say it."""
        if self.setting.shown_default is not None:
            return self.setting.shown_default
        if self.required:
            return "(required)"
        if self.default is None or self.default == {}:
            return "(none)"
        if isinstance(self.default, bool):
            return str(self.default).lower()
        if isinstance(self.default, float):
            return f"{self.default:g}"
        return f"`{self.default}`" if isinstance(self.default, str) else str(self.default)

    def option(self) -> Callable[[Command], Command]:
        """The click option: `None` when not given, so that a variable or the config file may say it."""
        shown = self.shown_default().replace("`", "")
        text = (
            self.setting.help
            if shown in ("(required)", "(none)")
            else f"{self.setting.help} Default: {shown}."
        )
        shared: dict[str, Any] = {"envvar": self.envvar, "help": text, "hidden": self.setting.hidden}
        if self.kind is bool:
            if self.setting.off_flag:
                both = f"{self.flag}/--{self.setting.off_flag}"
                return click.option(both, self.name, default=None, **shared)
            return click.option(self.flag, self.name, is_flag=True, default=None, **shared)
        kind: Any = self.kind
        if self.choices:
            kind = click.Choice(self.choices, case_sensitive=self.setting.case_sensitive)
        elif self.setting.file:
            kind = click.Path(dir_okay=False)
        elif self.kind is int and (self.lowest is not None or self.highest is not None):
            kind = click.IntRange(_whole(self.lowest), _whole(self.highest))
        elif self.kind is float and (self.lowest is not None or self.highest is not None):
            kind = click.FloatRange(self.lowest, self.highest)
        return click.option(self.flag, self.name, type=kind, metavar=self.setting.metavar, **shared)


def declared(*classes: type, prefix: str) -> list[Declared]:
    """The settings that `classes` declare, in their order, their variables named `<prefix><NAME>`."""
    found = []
    for cls in classes:
        hints = get_type_hints(cls, include_extras=True)
        for field in dataclasses.fields(cls):
            hint = hints[field.name]
            marks = [mark for mark in getattr(hint, "__metadata__", ()) if isinstance(mark, Setting)]
            if not marks:
                continue  # not a user's setting (an object made from some: `kafka_security`)
            default = field.default
            if field.default_factory is not dataclasses.MISSING:
                default = field.default_factory()
            lowest, highest = _bounds(marks[0], hint.__metadata__)
            kind = _without_none(get_args(hint)[0])
            found.append(Declared(field.name, kind, default, marks[0], prefix, lowest, highest))
    return found


def _bounds(setting: Setting, metadata: Iterable[Any]) -> tuple[float | None, float | None]:
    """The lowest and highest value a setting takes: its `Setting`'s, else its constraints' (pydantic's
    `annotated_types.Ge`, `Le`, `Interval`, read by their attributes: this module needs no pydantic)."""
    lowest, highest = setting.minimum, setting.maximum
    for mark in metadata:
        if lowest is None and getattr(mark, "ge", None) is not None:
            lowest = mark.ge
        if highest is None and getattr(mark, "le", None) is not None:
            highest = mark.le
    return lowest, highest


def _whole(bound: float | None) -> int | None:
    return None if bound is None else int(bound)


def _without_none(kind: Any) -> Any:
    if get_origin(kind) in (Union, types.UnionType):
        rest = [arg for arg in get_args(kind) if arg is not type(None)]
        return rest[0] if len(rest) == 1 else kind
    return kind


def options(settings: Iterable[Declared], command: str) -> Callable[[Command], Command]:
    """A decorator adding the flags of the settings that `command` takes, in their declared order."""
    taken = [setting for setting in settings if setting.setting.flag and command in setting.setting.commands]

    def decorate(function: Command) -> Command:
        for setting in reversed(taken):
            function = setting.option()(function)
        return function

    return decorate


def config_keys(settings: Iterable[Declared]) -> set[str]:
    """The keys a config file may have, as field names (the file may write `-` for `_`)."""
    return {setting.name for setting in settings}


def manual_table(settings: Iterable[Declared], every_command: tuple[str, ...], file_table: str = "") -> str:
    """The manual's table of `settings`: one row each (a setting of the config file only as its key in
    the file's `[file_table]`); a setting every command takes says `all`."""
    rows = [
        "| setting | default | commands | meaning |",
        "| --- | --- | --- | --- |",
    ]
    for setting in settings:
        if setting.setting.hidden:
            continue
        if not setting.setting.flag:
            commands = "all (config file only)"
        elif setting.setting.commands == every_command:
            commands = "all"
        else:
            commands = ", ".join(setting.setting.commands)
        key = setting.flag.removeprefix("--") if setting.setting.flag else f"[{file_table}.{setting.key}]"
        cell = f"`{key}`"
        if setting.kind is bool and setting.setting.off_flag:
            cell += f", `{setting.setting.off_flag}`"
        if setting.setting.flag_name:  # its variable is named after the field, not the flag
            cell += f" (`{setting.envvar}`)"
        rows.append(f"| {cell} | {setting.shown_default()} | {commands} | {setting.setting.help} |")
    return "\n".join(rows) + "\n"


_TABLE = re.compile(
    r"(<!-- settings table: ([\w-]+) .*?-->\n)(.*?)(<!-- end of the settings table -->)", re.S
)


def with_tables(text: str, tables: Mapping[str, str]) -> str:
    """`text` with each marked table replaced by its generated one; a name without a table is an error."""

    def table(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in tables:
            raise ValueError(f"no settings table named {name!r} (known: {', '.join(sorted(tables))})")
        return match.group(1) + tables[name] + match.group(4)

    return _TABLE.sub(table, text)
