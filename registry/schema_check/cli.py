"""``registry check`` and ``registry push``: thin click commands over the schema_check library.

Exit status is part of the interface, because git hooks and CI act on it: 0 all passed, 1 some file is
invalid or incompatible (or refused by ``push``), 2 the check could not be made (bad usage, unreadable
file, registry unreachable, unknown git revision). Only click is imported at module level so that
``registry --help`` stays fast; the work happens in imports inside the commands.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    from registry.schema_check.checker import FileResult
    from registry.schema_check.contract_file import Contract
    from registry.schema_check.layout import SchemaFile
    from registry.schema_check.registry_source import RegistryClient

__all__ = ["check", "push"]

USAGE_ERROR = 2

PATHS = click.argument("paths", nargs=-1, type=click.Path(path_type=Path, dir_okay=False))
SCHEMAS_DIR = click.option(
    "--schemas-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("schemas"),
    show_default=True,
    help="Where to look for schema files (*.avsc, *.proto, *.json; recursively) when no PATHS are given, "
    "and where references between files are also looked up.",
)
REGISTRY_URL = click.option(
    "--registry-url",
    envvar="REGISTRY_URL",
    default=None,
    help="Base URL of a Confluent-compatible registry (env REGISTRY_URL); user:secret@ in it is basic auth.",
)
REGISTRY_PROPERTIES = click.option(
    "--registry-properties",
    type=click.Path(path_type=Path, dir_okay=False),
    envvar="REGISTRY_PROPERTIES",
    default=None,
    help="Credentials and TLS for the registry: a file of Confluent client properties "
    "(basic.auth.user.info, bearer.auth.token, ssl.ca.location, ...). Also REGISTRY_<PROPERTY> variables.",
)
TIMEOUT = click.option(
    "--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True, help="Seconds per request."
)


def _stop(message: str) -> NoReturn:
    """Usage-level failure: the message on stderr, exit status 2 (the check could not be made)."""
    click.echo(f"registry: {message}", err=True)
    sys.exit(USAGE_ERROR)


def _load(paths: tuple[Path, ...], schemas_dir: Path) -> list[tuple[SchemaFile, str]]:
    """The schema files to work on and their text; stops with exit 2 on layout or read errors."""
    from registry.schema_check.contract_file import schema_path_of
    from registry.schema_check.layout import LayoutError, discover, schema_files

    if not paths:
        if not schemas_dir.is_dir():
            _stop(f"no {schemas_dir.as_posix()}/ directory here; give PATHS or --schemas-dir")
        paths = tuple(discover(schemas_dir))
    try:  # a changed contract file (<topic>.meta.json) means its schema is checked (or pushed) again
        files = schema_files(schema_path_of(path) or path for path in paths)
    except LayoutError as exc:
        _stop(str(exc))
    loaded = []
    for file in files:
        try:
            loaded.append((file, file.path.read_text(encoding="utf-8-sig")))
        except (OSError, UnicodeDecodeError) as exc:
            _stop(f"cannot read {file.display}: {exc}")
    return loaded


def _contract(file: SchemaFile) -> Contract | FileResult | None:
    """The file's contract (``None`` without one), or its invalid result; stops when it cannot be read."""
    from registry.schema_check.contract_file import ContractError, read_contract, sidecar_of

    try:
        return read_contract(file.path)
    except ContractError as exc:
        return exc.result(file)
    except (OSError, UnicodeDecodeError) as exc:
        _stop(f"cannot read {sidecar_of(file.path).as_posix()}: {exc}")


def _client(
    registry_url: str | None, properties: Path | None, timeout: float, offline_hint: bool
) -> RegistryClient:
    """A client with the credentials and TLS settings of ``--registry-properties`` and the environment."""
    from pipeline_client.client_settings import RegistrySettingsError, settings_from
    from pipeline_client.secret_values import SecretError
    from registry.schema_check.registry_source import RegistryClient

    try:
        access = settings_from(properties, "REGISTRY_")
        registry_url = registry_url or access.url
        if not registry_url:
            hint = " (or check offline with --against REV)" if offline_hint else ""
            _stop(f"no registry: give --registry-url or set REGISTRY_URL{hint}")
        if access.url and access.url.rstrip("/") != registry_url.rstrip("/"):
            _stop(f"--registry-url and the url in {properties} differ: give one")
        return RegistryClient(registry_url, timeout=timeout, session=access.session(registry_url))
    except (RegistrySettingsError, SecretError) as exc:
        _stop(str(exc))


@click.command(short_help="Validate schema files and check their compatibility (the pre-commit check).")
@PATHS
@REGISTRY_URL
@click.option(
    "--against",
    "revision",
    is_flag=False,
    flag_value="HEAD",
    default=None,
    metavar="[REV]",
    help="Offline: compare with each file as committed at git revision REV (HEAD if no REV is given).",
)
@click.option(
    "--level",
    default="BACKWARD",
    show_default=True,
    help="Compatibility level for --against: NONE, BACKWARD, FORWARD or FULL, each also _TRANSITIVE "
    "(the registry's own level is used otherwise).",
)
@click.option(
    "--compatibility-group",
    "group",
    default=None,
    metavar="PROPERTY",
    help="For --against: compare only when the metadata property PROPERTY (in <topic>.meta.json) has the "
    "same value in both versions (the registry's own compatibilityGroup is used otherwise).",
)
@click.option("--require-docs", is_flag=True, help="Policy: every field has a doc.")
@click.option(
    "--require-defaults", is_flag=True, help="Policy: every added field has a default, at any level."
)
@SCHEMAS_DIR
@TIMEOUT
@REGISTRY_PROPERTIES
def check(
    paths: tuple[Path, ...],
    registry_url: str | None,
    revision: str | None,
    level: str,
    group: str | None,
    require_docs: bool,
    require_defaults: bool,
    schemas_dir: Path,
    timeout: float,
    registry_properties: Path | None,
) -> None:
    """Check schema files (default: schemas/**/*.avsc, *.proto, *.json) against their subjects' versions.

    Each file is validated, then checked at its subject's compatibility level against the versions in
    the registry, or with --against against its committed version. Exit 0: all passed; 1: some file is
    invalid or incompatible; 2: the check could not be made.
    """
    from registry.compatibility import CompatibilityLevel
    from registry.schema_check import baselines
    from registry.schema_check.checker import Baseline, FileResult, Policies, check_file
    from registry.schema_check.history import GitError
    from registry.schema_check.references import FileSchemas, ReferenceProblem, at_revision, in_work_tree
    from registry.schema_check.registry_source import RegistryError, RegistryUnavailable
    from registry.schema_check.report import format_result, format_summary

    try:
        offline_level = CompatibilityLevel(level.upper())
    except ValueError:
        known = ", ".join(known_level.value for known_level in CompatibilityLevel)
        raise click.BadParameter(f"{level!r} is not one of {known}", param_hint="--level") from None
    loaded = _load(paths, schemas_dir)
    client = None if revision else _client(registry_url, registry_properties, timeout, offline_hint=True)
    rules = Policies(require_docs=require_docs, require_defaults=require_defaults)
    files = FileSchemas(in_work_tree, schemas_dir)
    committed = FileSchemas(at_revision(revision), schemas_dir) if revision else None
    results = []
    for file, text in loaded:
        contract = _contract(file)
        if isinstance(contract, FileResult):  # an invalid contract file fails like an invalid schema
            results.append(contract)
            click.echo("\n".join(format_result(contract)))
            continue
        try:
            references = files.references(file, text)
        except ReferenceProblem as exc:  # a referenced file is invalid: its own check says where
            results.append(exc.result(file))
            click.echo("\n".join(format_result(results[-1])))
            continue
        except (OSError, UnicodeDecodeError) as exc:
            _stop(f"cannot read a file {file.display} refers to: {exc}")
        try:
            baseline: Baseline
            if revision:
                baseline = baselines.from_git(file.path, revision, offline_level, group, contract, committed)
            else:
                baseline = baselines.from_registry(client, file.subject, contract)
        except (GitError, RegistryUnavailable, RegistryError) as exc:
            _stop(f"cannot check {file.display}: {exc}")
        result = check_file(file, text, baseline, rules, file.schema_type, references)
        results.append(result)
        for line in format_result(result):
            click.echo(line)
    click.echo(format_summary(results))
    sys.exit(1 if any(result.failed for result in results) else 0)


@click.command(short_help="Register schema files as their subjects' next versions (after merge).")
@PATHS
@REGISTRY_URL
@SCHEMAS_DIR
@TIMEOUT
@REGISTRY_PROPERTIES
def push(
    paths: tuple[Path, ...],
    registry_url: str | None,
    schemas_dir: Path,
    timeout: float,
    registry_properties: Path | None,
) -> None:
    """Register schema files (default: schemas/**/*.avsc, *.proto, *.json) as their subjects' next versions.

    Files another file refers to (a Protobuf import, a JSON Schema $ref) are pushed first, and the
    referring file with references to the versions they have. Per subject: "unchanged", "registered
    version N (id M)", or the refusal with its reasons. Exit 0: all registered or unchanged; 1: some
    refused; 2: could not push (usage, unreadable file, registry down).
    """
    from registry.schema_check.checker import FileResult
    from registry.schema_check.push import format_push, push_referring
    from registry.schema_check.references import FileSchemas, in_work_tree
    from registry.schema_check.registry_source import RegistryError, RegistryUnavailable
    from registry.schema_check.report import format_result

    loaded = _load(paths, schemas_dir)
    client = _client(registry_url, registry_properties, timeout, offline_hint=False)
    files = FileSchemas(in_work_tree, schemas_dir)
    try:
        ordered = files.closure(loaded)  # referenced files first, those not named included
    except (OSError, UnicodeDecodeError) as exc:
        _stop(f"cannot read a referenced file: {exc}")
    versions: dict[str, int] = {}
    failed = False
    for file, text in ordered:
        contract = _contract(file)
        if isinstance(contract, FileResult):
            click.echo("\n".join(format_result(contract)))
            failed = True
            continue
        try:
            result = push_referring(client, files, file, text, contract, versions)
        except (RegistryUnavailable, RegistryError) as exc:
            _stop(f"cannot push {file.display}: {exc}")
        failed = failed or result.failed
        for line in format_push(result):
            click.echo(line)
    sys.exit(1 if failed else 0)
