"""Where the previous versions come from: the registry (the truth) or git (the offline stand-in).

These are the check's only I/O besides reading the files themselves; each returns a ``Baseline`` value
for the pure ``checker``. With a compatibility group (a metadata property, set in the registry's config or
given with ``--compatibility-group`` offline), only the versions whose value of that property equals the
new version's are compared, as the registry compares them; the new version's value comes from its
contract file, else from the previous version's contract, as a registration carries it forward.

A previous version that refers to other schemas is parsed with them: the registry's referenced subject
versions, or the files it names as committed at the revision.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from registry.compatibility import CompatibilityLevel, InvalidSchemaError
from registry.schema_check.checker import Baseline, PreviousVersion
from registry.schema_check.contract_file import Contract, parse_contract, sidecar_of
from registry.schema_check.history import file_at_revision
from registry.schema_check.layout import schema_file
from registry.schema_check.references import FileSchemas, ReferenceProblem
from registry.schema_check.registry_source import (
    RegisteredVersion,
    RegistryClient,
    RegistryError,
    RegistryUnavailable,
)
from registry.schema_types import Parsed, Reference, UnknownSchemaType, schema_type
from registry.service.contract_config import ContractConfig, group_value, in_group, registration_contract
from registry.service.contracts import Metadata, parse_metadata
from registry.service.errors import RegistryError as ContractRefused

__all__ = ["from_git", "from_registry"]


def _previous(registered: RegisteredVersion, resolved: Resolved | None = None) -> PreviousVersion:
    references: tuple[Reference, ...] = ()
    unresolved = ""
    if registered.references:
        try:
            references = (resolved or Resolved(None)).references(registered.references)
        except (InvalidSchemaError, UnknownSchemaType, RegistryError, KeyError, TypeError, ValueError) as exc:
            reason = " ".join(str(exc).split())
            unresolved = f"uses schema references this check cannot resolve ({reason})"
    return PreviousVersion(
        number=registered.version,
        text=registered.schema,
        label=f"version {registered.version}",
        schema_type=registered.schema_type,
        references=references,
        unresolved=unresolved,
    )


class Resolved:
    """The subject versions previous versions refer to, fetched and parsed once each (with theirs)."""

    def __init__(self, client: RegistryClient | None) -> None:
        self._client = client
        self._parsed: dict[tuple[str, int], Parsed] = {}

    def references(self, references: Sequence[dict[str, object]]) -> tuple[Reference, ...]:
        """The references as the API answers them (name, subject, version), parsed."""
        if self._client is None:
            raise ValueError("no registry to fetch them from")
        out = []
        for reference in references:
            key = (str(reference["subject"]), int(str(reference["version"])))
            if key not in self._parsed:
                registered = self._client.version(*key)
                theirs = self.references(registered.references)
                self._parsed[key] = schema_type(registered.schema_type).parse(registered.schema, theirs)
            out.append(Reference(str(reference["name"]), self._parsed[key]))
        return tuple(out)


def _scope_config(config: dict[str, object]) -> ContractConfig:
    """The defaults and overrides a registration would get, from the registry's config answer."""
    try:
        return ContractConfig(
            default_metadata=parse_metadata(config.get("defaultMetadata")),
            override_metadata=parse_metadata(config.get("overrideMetadata")),
        )
    except ContractRefused as exc:
        raise RegistryUnavailable(
            f"the registry answered a config this check cannot read: {exc.message}"
        ) from exc


def _group_label(group: str, value: str | None) -> str:
    return (
        f"compatibility group {group}={value}"
        if value is not None
        else f"compatibility group without {group}"
    )


def from_registry(client: RegistryClient, subject: str, contract: Contract | None = None) -> Baseline:
    """The subject's level (its own, else the global one) and the live versions that level covers.

    Transitive levels need every version (oldest first); the others only the latest, so only that one is
    fetched, unless a compatibility group is configured (then every version's metadata is needed).
    Raises ``RegistryUnavailable`` or ``RegistryError`` when the registry cannot answer; the caller
    stops with a usage error then, because passing without the real baseline would defeat the check.
    """
    config = client.config(subject)
    raw_level = client.level_of(config)
    try:
        level = CompatibilityLevel(raw_level)
    except ValueError as exc:
        raise RegistryUnavailable(f"the registry reports an unknown level {raw_level!r}") from exc
    numbers = client.version_numbers(subject)
    source = f"registry {client.public_url}"
    group = config.get("compatibilityGroup")
    resolved = Resolved(client)
    if not isinstance(group, str) or not group or not numbers:
        wanted = numbers if level.transitive else numbers[-1:]
        versions = [_previous(client.version(subject, number), resolved) for number in wanted]
        return Baseline(level=level, versions=tuple(versions), source=source)
    history = [client.version(subject, number) for number in numbers]
    mine = registration_contract(
        _scope_config(config), contract.metadata if contract else None, None, (history[-1].metadata, None)
    )[0]
    return _grouped(level, history, group, group_value(mine, group), source, resolved)


def _grouped(
    level: CompatibilityLevel,
    history: Sequence[RegisteredVersion],
    group: str,
    value: str | None,
    source: str,
    resolved: Resolved | None = None,
) -> Baseline:
    versions = in_group(history, lambda version: version.metadata, group, value, level.transitive)
    return Baseline(
        level=level,
        versions=tuple(_previous(v, resolved) for v in versions),
        source=source,
        group=_group_label(group, value),
    )


def from_git(
    path: Path,
    revision: str,
    level: CompatibilityLevel,
    group: str | None = None,
    contract: Contract | None = None,
    committed: FileSchemas | None = None,
) -> Baseline:
    """The file as committed at ``revision``, as the one previous version, under ``level``; the files it
    refers to are read from ``committed`` (the schema files at that revision).

    Git holds no compatibility level, so the caller passes one (``--level``, default BACKWARD), and the
    compatibility group (``--compatibility-group``). Transitive levels compare with that one revision only:
    it is the version the last commit was checked against.
    """
    text = file_at_revision(path, revision)
    versions = () if text is None else (_committed_version(path, text, revision, committed),)
    source = f"git {revision}"
    if group is None or text is None:
        return Baseline(level=level, versions=versions, source=source)
    committed_metadata = _committed_metadata(sidecar_of(path), revision)
    mine = contract.metadata if contract is not None and contract.metadata is not None else committed_metadata
    previous = RegisteredVersion("", 1, 0, text, metadata=committed_metadata)
    baseline = _grouped(level, [previous], group, group_value(mine, group), source)
    return Baseline(baseline.level, versions if baseline.versions else (), source, baseline.group)


def _committed_version(
    path: Path, text: str, revision: str, committed: FileSchemas | None
) -> PreviousVersion:
    file = schema_file(path)
    references: tuple[Reference, ...] = ()
    unresolved = ""
    if committed is not None:
        try:
            references = committed.references(file, text)
        except ReferenceProblem as exc:
            unresolved = f"refers to a file that cannot be used ({exc})"
    label = f"the version at {revision}"
    return PreviousVersion(1, text, label, file.schema_type, references, unresolved)


def _committed_metadata(sidecar: Path, revision: str) -> Metadata | None:
    """The metadata of the contract file as committed (none when there was no file, or it was invalid)."""
    text = file_at_revision(sidecar, revision)
    if text is None:
        return None
    try:
        return parse_contract(text, sidecar).metadata
    except ValueError:
        return None
