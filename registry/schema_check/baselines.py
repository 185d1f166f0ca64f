"""Where the previous versions come from: the registry (the truth) or git (the offline stand-in).

These are the check's only I/O besides reading the file itself; each returns a ``Baseline`` value for the
pure ``checker``.
"""

from __future__ import annotations

from pathlib import Path

from registry.compatibility import CompatibilityLevel
from registry.schema_check.checker import Baseline, PreviousVersion
from registry.schema_check.history import file_at_revision
from registry.schema_check.registry_source import RegistryClient, RegistryUnavailable

__all__ = ["from_git", "from_registry"]


def from_registry(client: RegistryClient, subject: str) -> Baseline:
    """The subject's level (its own, else the global one) and the live versions that level covers.

    Transitive levels need every version (oldest first); the others only the latest, so only that one is
    fetched. Raises ``RegistryUnavailable`` or ``RegistryError`` when the registry cannot answer; the
    caller stops with a usage error then, because passing without the real baseline would defeat the check.
    """
    raw_level = client.compatibility_level(subject)
    try:
        level = CompatibilityLevel(raw_level)
    except ValueError as exc:
        raise RegistryUnavailable(f"the registry reports an unknown level {raw_level!r}") from exc
    numbers = client.version_numbers(subject)
    wanted = numbers if level.transitive else numbers[-1:]
    versions = []
    for number in wanted:
        registered = client.version(subject, number)
        versions.append(
            PreviousVersion(
                number=registered.version,
                text=registered.schema,
                label=f"version {registered.version}",
                schema_type=registered.schema_type,
                has_references=bool(registered.references),
            )
        )
    return Baseline(level=level, versions=tuple(versions), source=f"registry {client.public_url}")


def from_git(path: Path, revision: str, level: CompatibilityLevel) -> Baseline:
    """The file as committed at ``revision``, as the one previous version, under ``level``.

    Git holds no compatibility level, so the caller passes one (``--level``, default BACKWARD). Transitive
    levels compare with that one revision only: it is the version the last commit was checked against.
    """
    text = file_at_revision(path, revision)
    versions = () if text is None else (PreviousVersion(1, text, f"the version at {revision}"),)
    return Baseline(level=level, versions=versions, source=f"git {revision}")
