"""The check of one schema file against its baseline, as a value: no I/O, no printing.

Given the file's text, the schemas it refers to, and what it must stay compatible with (a ``Baseline``:
previous versions, oldest first, and the compatibility level), ``check_file`` validates the schema with its
type's own parser (the registry's), applies the optional policies, runs the type's compatibility rules and
turns every pointer into a line and column of the file (where the type's text is JSON, by reading it; a
Protobuf file's problems come with their lines from protoc, its conflicts' lines from the places protoc
records for each declaration).
Where the baseline came from (the registry over HTTP, or git) is the caller's business (``baselines``),
so the same rules give the same answer in the hook, in CI and in the registry itself.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from registry.compatibility import CompatibilityLevel, Conflict, InvalidSchemaError
from registry.schema_check import policies
from registry.schema_check.source_positions import Located, Position, TextIndex, text_index
from registry.schema_types import DEFAULT_SCHEMA_TYPE, Parsed, Reference, SchemaType, schema_type

__all__ = [
    "INVALID_SCHEMA",
    "Baseline",
    "FileResult",
    "Finding",
    "Policies",
    "PreviousVersion",
    "SchemaSource",
    "Status",
    "check_file",
    "compared_note",
    "conflict_findings",
]

INVALID_SCHEMA = "invalid-schema"
NEW_READS_OLD = "new_reads_old"


class Status(str, Enum):
    """How a file fared; anything but ``PASSED`` fails the commit (exit status 1)."""

    PASSED = "passed"
    INVALID = "invalid"
    INCOMPATIBLE = "incompatible"


class SchemaSource(Protocol):
    """Where the checked text comes from: a file of the ``schemas/`` layout, or a schema pasted into the
    registry's page. Results name it by ``display`` and the subject it is checked for."""

    @property
    def display(self) -> str: ...

    @property
    def subject(self) -> str: ...


@dataclass(frozen=True, order=True)
class Finding:
    """One thing to fix: where, which rule, what is wrong, and how to fix it. Sorts by position."""

    position: Position
    rule: str
    message: str
    hint: str = ""
    path_display: str = ""  # set when the finding is in another file than the schema (its contract)


@dataclass(frozen=True)
class FileResult:
    """The outcome for one file; ``notes`` say what was checked against (or why nothing was)."""

    file: SchemaSource
    status: Status
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        return self.status is not Status.PASSED


@dataclass(frozen=True)
class Policies:
    """The optional house rules (see ``policies``); both off by default, as in Confluent's registry."""

    require_docs: bool = False
    require_defaults: bool = False


@dataclass(frozen=True)
class PreviousVersion:
    """A version the new file must stay compatible with; ``label`` names it in messages. ``references``
    are the schemas its text refers to, parsed; ``unresolved`` says why they could not be (it is then
    not compared)."""

    number: int
    text: str
    label: str
    schema_type: str = DEFAULT_SCHEMA_TYPE
    references: tuple[Reference, ...] = ()
    unresolved: str = ""


@dataclass(frozen=True)
class Baseline:
    """Previous versions (oldest first) and the level that governs the subject."""

    level: CompatibilityLevel
    versions: tuple[PreviousVersion, ...]
    source: str  # "registry <url>" or "git <rev>": says in notes where the versions came from
    #: "compatibility group major=2" when only the versions of that group are compared (data contracts)
    group: str = ""


def _invalid(file: SchemaSource, error: InvalidSchemaError, index: TextIndex) -> FileResult:
    findings = []
    for problem in error.problems or []:
        if problem.line is not None:
            position = Position(problem.line, problem.column or 1)
        else:
            position = index.value(problem.pointer)
        findings.append(Finding(position, INVALID_SCHEMA, problem.message))
    if not findings:
        findings.append(Finding(index.value(""), INVALID_SCHEMA, str(error)))
    return FileResult(file, Status.INVALID, tuple(sorted(findings)))


def _parse_previous(
    versions: Sequence[PreviousVersion], kind: SchemaType
) -> tuple[list[tuple[PreviousVersion, Parsed]], list[str]]:
    """The previous versions this check can use (those of the new schema's type, ``kind``), and notes
    about the ones it cannot."""
    usable: list[tuple[PreviousVersion, Parsed]] = []
    notes: list[str] = []
    for previous in versions:
        if previous.schema_type.upper() != kind.name:
            notes.append(f"{previous.label} is a {previous.schema_type} schema; not compared")
            continue
        if previous.unresolved:
            notes.append(f"{previous.label} {previous.unresolved}; not compared")
            continue
        try:
            usable.append((previous, kind.parse(previous.text, previous.references)))
        except InvalidSchemaError as exc:
            reason = " ".join(str(exc).split())  # one line: notes sit in a status line
            notes.append(f"{previous.label} is not a valid schema ({reason}); not compared")
    return usable, notes


def _context(direction: str, labels: Sequence[str]) -> str:
    joined = ", ".join(labels)
    if direction == NEW_READS_OLD:
        return f"the new schema cannot read data written with {joined}"
    return f"consumers still on {joined} cannot read data written with the new schema"


def parsed_index(index: TextIndex, kind: SchemaType, parsed: Parsed) -> TextIndex:
    """Where the pointers of ``kind``'s conflicts lead in the text ``index`` reads, ``parsed`` from it: a
    JSON text's own index, else the places the type knows (a ``.proto`` file's declarations)."""
    return index if kind.text_is_json else Located(lambda: kind.positions(parsed))


def conflict_findings(
    conflicts: Sequence[Conflict], labels: dict[int, str], index: TextIndex
) -> list[Finding]:
    """One finding per distinct problem, listing every version it breaks (transitive levels repeat them)."""
    grouped: dict[tuple[str, str, str, str, str], set[int]] = {}
    for conflict in conflicts:
        incompatibility = conflict.incompatibility
        key = (
            conflict.new_pointer,
            incompatibility.kind.value,
            conflict.direction,
            incompatibility.message,
            incompatibility.hint or "",
        )
        grouped.setdefault(key, set()).add(conflict.version)
    findings = []
    for (pointer, kind, direction, message, hint), numbers in grouped.items():
        versions = [labels.get(number, f"version {number}") for number in sorted(numbers)]
        text = f"{message} ({_context(direction, versions)})"
        findings.append(Finding(index.value(pointer), kind, text, hint))
    return findings


def _policy_findings(violations: Sequence[policies.PolicyViolation], index: TextIndex) -> list[Finding]:
    return [Finding(index.value(v.pointer), v.rule, v.message, v.hint) for v in violations]


def compared_note(baseline: Baseline, compared: Sequence[PreviousVersion]) -> str:
    labels = ", ".join(previous.label for previous in compared)
    if len(compared) > 3:  # a long transitive history: the range says enough
        labels = f"{compared[0].label} to {compared[-1].label} ({len(compared)} versions)"
    where = f"{baseline.source}, {baseline.group}" if baseline.group else baseline.source
    return f"compatible under {baseline.level.value} with {labels} ({where})"


def check_file(
    file: SchemaSource,
    text: str,
    baseline: Baseline | None,
    rules: Policies | None = None,
    type_name: str = DEFAULT_SCHEMA_TYPE,
    references: Sequence[Reference] = (),
) -> FileResult:
    """Validates ``text``, a schema of the type named (with the schemas its ``references`` name), and
    checks it against ``baseline`` (``None``: nothing to be compatible with).

    Invalid schemas stop here: a compatibility verdict about a schema that does not parse would only add
    noise to the message the author must act on first.
    """
    rules = rules or Policies()
    kind = schema_type(type_name)
    index = text_index(text, kind.text_is_json)
    try:
        new = kind.parse(text, references)
    except InvalidSchemaError as exc:
        return _invalid(file, exc, index)
    index = parsed_index(index, kind, new)
    usable, notes = _parse_previous(baseline.versions if baseline else (), kind)
    applied = rules if kind.field_policies else Policies()
    if applied != rules:
        notes.append(f"--require-docs and --require-defaults read Avro records: not applied to {kind.name}")
    written: Any = json.loads(text) if applied != Policies() else None  # the JSON as written, not normalised

    policy_findings: list[Finding] = []
    if applied.require_docs:
        policy_findings += _policy_findings(policies.missing_docs(written), index)

    conflicts: list[Conflict] = []
    if baseline is not None and baseline.group and not baseline.versions:
        notes.append(
            f"no version of {file.subject} in {baseline.group}: nothing to be compatible with "
            f"({baseline.source}); validated only"
        )
    elif baseline is None or not baseline.versions:
        where = baseline.source if baseline else "no baseline"
        notes.append(f"new subject {file.subject}: nothing to be compatible with ({where}); validated only")
    elif usable and baseline.level is not CompatibilityLevel.NONE:
        existing = [(previous.number, parsed) for previous, parsed in usable]
        conflicts = kind.conflicts(new, existing, baseline.level)
        if not conflicts:
            notes.append(compared_note(baseline, [p for p, _ in usable]))
    elif usable:
        notes.append(f"compatibility level NONE for {file.subject}: not compared")

    labels = {previous.number: previous.label for previous, _ in usable}
    by_conflict = conflict_findings(conflicts, labels, index)
    if applied.require_defaults and usable:
        latest_written = json.loads(usable[-1][0].text)
        # BACKWARD already reports most of these; one message per spot is enough.
        flagged = {finding.position for finding in by_conflict}
        violations = policies.added_without_default(written, latest_written)
        found = _policy_findings(violations, index)
        policy_findings += [finding for finding in found if finding.position not in flagged]

    if by_conflict:
        status = Status.INCOMPATIBLE
    elif policy_findings:
        status = Status.INVALID
    else:
        status = Status.PASSED
    findings = sorted(by_conflict + policy_findings)
    return FileResult(file, status, tuple(findings), tuple(notes))
