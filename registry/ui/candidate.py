"""A candidate schema checked against a subject exactly as ``POST /compatibility/subjects/{s}/versions``
checks it, read-only, and reported as ``registry check`` reports a file.

The page pastes or uploads a schema of a type (chosen in the form, or named by an uploaded file's suffix:
``.avsc``, ``.proto``, ``.json``), with the references it uses as name/subject/version rows; this module
turns the form into the same :class:`SchemaRequest` the API builds from a body (or a message saying what
is wrong, so the page shows the form again with everything still filled in), then asks the repository's
own check (:meth:`Registry.check_detailed`, which the API answers from): same versions, same level, same
compatibility group, references resolved from the registry. The conflicts become findings with line,
column, rule and fix, and the report lines ``registry check`` prints. The verdict says "passes" only when
versions were compared; otherwise it says why nothing was. Nothing is registered.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from registry.compatibility import CompatibilityLevel
from registry.schema_check.checker import (
    INVALID_SCHEMA,
    Baseline,
    FileResult,
    Finding,
    PreviousVersion,
    Status,
    check_file,
    compared_note,
    conflict_findings,
    parsed_index,
)
from registry.schema_check.layout import split_name
from registry.schema_check.report import format_result, format_summary
from registry.schema_check.source_positions import text_index
from registry.schema_types import (
    DEFAULT_SCHEMA_TYPE,
    SCHEMA_TYPE_NAMES,
    Reference,
    SchemaType,
    all_types,
    schema_type,
)
from registry.service import bodies, errors
from registry.service.bodies import SchemaReferenceInput, SchemaRequest
from registry.service.requests import json_depth, validate_subject

if TYPE_CHECKING:
    from registry.storage.registration import CheckOutcome
    from registry.storage.repository import Registry

#: The name a pasted schema is reported under, with its type's suffix (``candidate.avsc``).
DEFAULT_DISPLAY = "candidate"
MAX_DISPLAY_CHARS = 120
MAX_REFERENCES = 50


class CandidateError(ValueError):
    """The form cannot be checked as sent; the message says what to change."""


class Verdict(str, Enum):
    """What the page says in its heading; only ``PASSES`` means versions were compared and fit."""

    PASSES = "passes"
    INCOMPATIBLE = "incompatible"
    INVALID = "invalid"
    NOT_COMPARED = "not compared"  # level NONE, a new subject, or no version in the candidate's group

    @property
    def api_compatible(self) -> bool | None:
        """What the API's ``is_compatible`` is for the same schema (None: it answers 422 instead)."""
        return {Verdict.INCOMPATIBLE: False, Verdict.INVALID: None}.get(self, True)


@dataclass(frozen=True)
class ReferenceRow:
    """One reference row of the form, as typed (kept to show the form again)."""

    name: str = ""
    subject: str = ""
    version: str = ""

    @property
    def blank(self) -> bool:
        return not (self.name.strip() or self.subject.strip() or self.version.strip())


@dataclass(frozen=True)
class Candidate:
    """A schema to check: its text, the name it is reported under, the subject, its references and the
    name of its type."""

    display: str
    subject: str
    text: str
    references: tuple[SchemaReferenceInput, ...] = ()
    schema_type: str = DEFAULT_SCHEMA_TYPE


@dataclass(frozen=True)
class CandidateCheck:
    result: FileResult
    #: The lines ``registry check`` prints for this file, its summary line last.
    report: tuple[str, ...]
    verdict: Verdict
    level: str = ""
    #: The versions compared with, oldest first (empty when nothing was compared).
    compared: tuple[int, ...] = ()


@dataclass(frozen=True)
class Limits:
    """The service's own limits, so a candidate is held to what a registration would be."""

    max_subject_length: int
    max_schema_chars: int
    max_json_depth: int


def read_candidate(
    subject: str,
    pasted: str,
    upload_name: str | None,
    upload: bytes | None,
    limits: Limits,
    rows: Sequence[ReferenceRow] = (),
    type_name: str = DEFAULT_SCHEMA_TYPE,
) -> Candidate:
    """The candidate a form describes; raises :class:`CandidateError` naming what is missing or wrong.
    An uploaded file whose suffix names a schema type is of that type, else the form's ``type_name``."""
    try:
        subject = validate_subject(subject.strip(), limits.max_subject_length)
    except errors.InvalidSubject as exc:
        raise CandidateError(f"Choose a subject: {exc.message}") from None
    if type_name not in SCHEMA_TYPE_NAMES:
        raise CandidateError(f"Choose a schema type: {', '.join(SCHEMA_TYPE_NAMES)}.")
    kind = schema_type(type_name)
    has_upload = bool(upload_name) or bool(upload)
    if has_upload and pasted.strip():
        raise CandidateError("Paste a schema or upload a file, not both: clear one of them.")
    if has_upload:
        try:
            text = (upload or b"").decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise CandidateError(f"The file is not UTF-8 text (byte {exc.start}).") from None
        display = _display_name(upload_name, kind)
        named = split_name(display)
        kind = named[1] if named is not None else kind
        if not text.strip():
            raise CandidateError(f"The file {display} is empty.")
    else:
        text, display = pasted, DEFAULT_DISPLAY + kind.file_suffix
        if not text.strip():
            suffixes = ", ".join(other.file_suffix for other in all_types())
            raise CandidateError(f"Paste a schema (the contents of a {suffixes} file) or upload one.")
    if len(text) > limits.max_schema_chars:
        limit = limits.max_schema_chars
        raise CandidateError(f"The schema has {len(text)} characters; the limit is {limit}.")
    if kind.text_is_json and json_depth(text) > limits.max_json_depth:
        raise CandidateError(f"The schema is nested deeper than {limits.max_json_depth} levels.")
    return Candidate(display, subject, text, read_references(rows), kind.name)


def read_references(rows: Sequence[ReferenceRow]) -> tuple[SchemaReferenceInput, ...]:
    """The filled reference rows, as the API reads a body's ``references`` (blank rows are skipped)."""
    filled = [row for row in rows if not row.blank]
    if len(filled) > MAX_REFERENCES:
        raise CandidateError(f"At most {MAX_REFERENCES} references.")
    body = []
    for number, row in enumerate(filled, 1):
        name, subject, version = row.name.strip(), row.subject.strip(), row.version.strip()
        if not (name and subject and version):
            raise CandidateError(f"Reference {number}: fill in its name, subject and version (or clear it).")
        if not version.isdigit() or not 1 <= int(version) <= 2**31 - 1:
            raise CandidateError(f"Reference {number}: the version must be a number of 1 or more.")
        body.append({"name": name, "subject": subject, "version": int(version)})
    try:  # the API's own reading of references (the schema is checked later, with its positions)
        return bodies.references(body)
    except errors.RegistryError as exc:
        raise CandidateError(exc.message) from None


def _display_name(upload_name: str | None, kind: SchemaType) -> str:
    """The uploaded file's own name (never a path the browser sent), as ``registry check`` would print."""
    name = posixpath.basename((upload_name or "").replace("\\", "/")).strip()
    return name[:MAX_DISPLAY_CHARS] or DEFAULT_DISPLAY + kind.file_suffix


def check_candidate(registry: Registry, candidate: Candidate, registry_url: str) -> CandidateCheck:
    """The verdict of the API's check, its findings and report; ``registry_url`` is how people reach this
    registry (named in the notes, as ``registry check --registry-url`` names it)."""
    request = SchemaRequest(
        schema=candidate.text, schema_type=candidate.schema_type, references=candidate.references
    )
    source = f"registry {registry_url}"
    try:
        outcome = registry.check_detailed(candidate.subject, request, None)
    except errors.InvalidSchema as exc:
        return _report(_invalid(registry, candidate, exc), Verdict.INVALID)
    kind = schema_type(candidate.schema_type)
    index = text_index(candidate.text, kind.text_is_json)
    if outcome.candidate is not None:
        index = parsed_index(index, kind, outcome.candidate)
    labels = {number: f"version {number}" for number in outcome.compared}
    findings = tuple(sorted(conflict_findings(outcome.conflicts, labels, index)))
    if findings:
        result = FileResult(candidate, Status.INCOMPATIBLE, findings)
        return _report(result, Verdict.INCOMPATIBLE, outcome)
    note, verdict = _passing_note(candidate, outcome, source)
    return _report(FileResult(candidate, Status.PASSED, (), (note,)), verdict, outcome)


def _passing_note(candidate: Candidate, outcome: CheckOutcome, source: str) -> tuple[str, Verdict]:
    """What a check without conflicts compared (the words ``registry check`` uses), and the verdict."""
    group = _group_label(outcome)
    if outcome.level == "NONE":
        return f"compatibility level NONE for {candidate.subject}: not compared", Verdict.NOT_COMPARED
    if not outcome.compared and group:
        return (
            f"no version of {candidate.subject} in {group}: nothing to be compatible with ({source}); "
            "validated only",
            Verdict.NOT_COMPARED,
        )
    if not outcome.compared:
        return (
            f"new subject {candidate.subject}: nothing to be compatible with ({source}); validated only",
            Verdict.NOT_COMPARED,
        )
    baseline = Baseline(CompatibilityLevel(outcome.level), (), source, group)
    compared = [PreviousVersion(number, "", f"version {number}") for number in outcome.compared]
    return compared_note(baseline, compared), Verdict.PASSES


def _group_label(outcome: CheckOutcome) -> str:
    if outcome.group is None:
        return ""
    if outcome.group_value is None:
        return f"compatibility group without {outcome.group}"
    return f"compatibility group {outcome.group}={outcome.group_value}"


def _referenced(registry: Registry, candidate: Candidate) -> tuple[Reference, ...] | None:
    """The candidate's references as the registry resolves them, or None when one cannot be."""
    try:
        views = [
            (ref.name, registry.get_version(ref.subject, ref.version, include_deleted=True))
            for ref in candidate.references
        ]
        return tuple(Reference(name, registry.parsed(view.schema)) for name, view in views)
    except errors.RegistryError:
        return None


def _invalid(registry: Registry, candidate: Candidate, exc: errors.InvalidSchema) -> FileResult:
    """The registry refused the schema: positioned findings when the file with its references shows why
    (as ``registry check`` reports them), else the registry's message (a reference it cannot resolve,
    say)."""
    references = _referenced(registry, candidate)
    if references is not None:
        alone = check_file(candidate, candidate.text, None, None, candidate.schema_type, references)
        if alone.status is Status.INVALID:
            return alone
    where = text_index(candidate.text, schema_type(candidate.schema_type).text_is_json).value("")
    return FileResult(candidate, Status.INVALID, (Finding(where, INVALID_SCHEMA, exc.message),))


def _report(result: FileResult, verdict: Verdict, outcome: CheckOutcome | None = None) -> CandidateCheck:
    report = (*format_result(result), format_summary([result]))
    if outcome is None:
        return CandidateCheck(result, report, verdict)
    return CandidateCheck(result, report, verdict, outcome.level, outcome.compared)
