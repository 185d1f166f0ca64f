"""``registry push``: register the merged schema files, one subject at a time, and say what happened.

Run after merge (CI on the main branch), so the registry follows the repository. Each file ends in one of
three outcomes a person can read at a glance: unchanged (already the registered schema of its subject),
registered as version N with id M, or refused. The registry decides compatibility (it is the authority);
on a refusal the local checker is asked as well, so the refusal comes with ``file:line:column`` lines.
A file that refers to others (a Protobuf import, a JSON Schema ``$ref``) is pushed after them, with
references to the versions they were registered as (or found unchanged) in the same push.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from registry.schema_check.baselines import from_registry
from registry.schema_check.checker import Finding, check_file
from registry.schema_check.contract_file import Contract
from registry.schema_check.layout import SchemaFile
from registry.schema_check.references import FileSchemas, ReferenceProblem
from registry.schema_check.registry_source import RegistryClient, RegistryError, schema_body
from registry.schema_check.report import format_findings
from registry.schema_types import Reference

__all__ = ["Outcome", "PushResult", "format_push", "push_file", "push_referring"]


class Outcome(str, Enum):
    UNCHANGED = "unchanged"
    REGISTERED = "registered"
    REFUSED = "refused"


@dataclass(frozen=True)
class PushResult:
    """What happened to one file; ``version``/``schema_id`` are known unless it was refused."""

    file: SchemaFile
    outcome: Outcome
    version: int | None = None
    schema_id: int | None = None
    reason: str = ""
    findings: tuple[Finding, ...] = ()

    @property
    def failed(self) -> bool:
        return self.outcome is Outcome.REFUSED


def _explain(
    client: RegistryClient,
    file: SchemaFile,
    text: str,
    contract: Contract | None,
    references: Sequence[Reference],
) -> tuple[Finding, ...]:
    """The local checker's line-numbered reasons for a refusal (empty if it sees none, or cannot ask)."""
    try:
        baseline = from_registry(client, file.subject, contract)
        return check_file(file, text, baseline, None, file.schema_type, references).findings
    except RegistryError:
        return ()


def push_file(
    client: RegistryClient,
    file: SchemaFile,
    text: str,
    contract: Contract | None = None,
    references: Sequence[Reference] = (),
    registered_references: Sequence[dict[str, Any]] = (),
) -> PushResult:
    """Registers ``text`` (with its contract file's metadata and rules, and ``registered_references``:
    the subject versions its ``references`` are registered as) under the file's subject unless it is
    already its registered schema; a changed contract alone makes a new version, as in the registry.

    A schema that does not validate locally is refused without asking the registry: the local message has
    line numbers, and a half-valid schema must not reach production by a lenient registry.
    ``RegistryUnavailable`` propagates: an unreachable registry is the caller's usage error, not a refusal.
    """
    validated = check_file(file, text, None, None, file.schema_type, references)
    if validated.failed:
        return PushResult(file, Outcome.REFUSED, reason="invalid schema", findings=validated.findings)
    extra = schema_body(file.schema_type, registered_references, contract.body() if contract else None)
    existing = client.lookup(file.subject, text, extra)
    if existing is not None:
        return PushResult(file, Outcome.UNCHANGED, existing.version, existing.id)
    try:
        schema_id = client.register(file.subject, text, extra)
    except RegistryError as exc:
        findings = _explain(client, file, text, contract, references) if exc.status == 409 else ()
        # With local findings the registry's own (long, pointer-based) text would only repeat them.
        reason = "incompatible with the registered versions (HTTP 409)" if findings else exc.message
        return PushResult(file, Outcome.REFUSED, reason=reason, findings=findings)
    registered = client.lookup(file.subject, text, extra)
    version = registered.version if registered is not None else None
    return PushResult(file, Outcome.REGISTERED, version, schema_id)


def push_referring(
    client: RegistryClient,
    schemas: FileSchemas,
    file: SchemaFile,
    text: str,
    contract: Contract | None,
    versions: dict[str, int],
) -> PushResult:
    """Pushes ``file``, whose referenced files were pushed before it in this push (``versions``: the
    version each subject was registered as or found at); records its own version there. A file whose
    reference was refused, or cannot be used, is refused without asking the registry."""
    referenced = schemas.referenced_files(file, text)
    for ref in referenced:
        if ref.file.subject not in versions:
            reason = f'its reference "{ref.name}" ({ref.file.display}) was not registered'
            return PushResult(file, Outcome.REFUSED, reason=reason)
    try:
        references = schemas.references(file, text)
    except ReferenceProblem as exc:
        return PushResult(file, Outcome.REFUSED, reason=str(exc))
    registered = [
        {"name": ref.name, "subject": ref.file.subject, "version": versions[ref.file.subject]}
        for ref in referenced
    ]
    result = push_file(client, file, text, contract, references, registered)
    if result.version is not None and not result.failed:
        versions[file.subject] = result.version
    return result


def format_push(result: PushResult) -> list[str]:
    """``<file>: <subject> registered version N (id M)`` / ``unchanged`` / ``refused: ...`` and reasons."""
    head = f"{result.file.display}: {result.file.subject}"
    if result.outcome is Outcome.UNCHANGED:
        return [f"{head} unchanged (version {result.version}, id {result.schema_id})"]
    if result.outcome is Outcome.REGISTERED:
        version = "?" if result.version is None else result.version
        return [f"{head} registered version {version} (id {result.schema_id})"]
    return [f"{head} refused: {result.reason}", *format_findings(result.file.display, result.findings)]
