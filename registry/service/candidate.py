"""A candidate schema checked against a subject exactly as ``registry check`` checks a file, read-only.

The page pastes or uploads a schema; this module turns the form into a checked input (or a message
saying what is wrong with it, so the page can show the form again with everything still filled in), then
runs the pre-commit check's own ``check_file`` against the subject's versions as the repository holds
them: same level, same versions, same findings with line, column, rule and fix, same report lines.
Nothing is registered: the repository is only read.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING

from registry.compatibility import CompatibilityLevel
from registry.schema_check.checker import Baseline, FileResult, PreviousVersion, check_file
from registry.schema_check.report import format_result, format_summary
from registry.service import errors
from registry.service.requests import json_depth, validate_subject

if TYPE_CHECKING:
    from registry.storage.repository import Registry

DEFAULT_DISPLAY = "candidate.avsc"
MAX_DISPLAY_CHARS = 120


class CandidateError(ValueError):
    """The form cannot be checked as sent; the message says what to change."""


@dataclass(frozen=True)
class Candidate:
    """A schema to check: its text, the name it is reported under, and the subject it is meant for."""

    display: str
    subject: str
    text: str


@dataclass(frozen=True)
class CandidateCheck:
    result: FileResult
    #: The lines ``registry check`` prints for this file, its summary line last.
    report: tuple[str, ...]


@dataclass(frozen=True)
class Limits:
    """The service's own limits, so a candidate is held to what a registration would be."""

    max_subject_length: int
    max_schema_chars: int
    max_json_depth: int


def read_candidate(
    subject: str, pasted: str, upload_name: str | None, upload: bytes | None, limits: Limits
) -> Candidate:
    """The candidate a form describes; raises :class:`CandidateError` naming what is missing or wrong."""
    try:
        subject = validate_subject(subject.strip(), limits.max_subject_length)
    except errors.InvalidSubject as exc:
        raise CandidateError(f"Choose a subject: {exc.message}") from None
    has_upload = bool(upload_name) or bool(upload)
    if has_upload and pasted.strip():
        raise CandidateError("Paste a schema or upload a file, not both: clear one of them.")
    if has_upload:
        try:
            text = (upload or b"").decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise CandidateError(f"The file is not UTF-8 text (byte {exc.start}).") from None
        display = _display_name(upload_name)
        if not text.strip():
            raise CandidateError(f"The file {display} is empty.")
    else:
        text, display = pasted, DEFAULT_DISPLAY
        if not text.strip():
            raise CandidateError("Paste a schema (the contents of an .avsc file) or upload one.")
    if len(text) > limits.max_schema_chars:
        limit = limits.max_schema_chars
        raise CandidateError(f"The schema has {len(text)} characters; the limit is {limit}.")
    if json_depth(text) > limits.max_json_depth:
        raise CandidateError(f"The schema is nested deeper than {limits.max_json_depth} levels.")
    return Candidate(display, subject, text)


def _display_name(upload_name: str | None) -> str:
    """The uploaded file's own name (never a path the browser sent), as ``registry check`` would print."""
    name = posixpath.basename((upload_name or "").replace("\\", "/")).strip()
    return name[:MAX_DISPLAY_CHARS] or DEFAULT_DISPLAY


def baseline(registry: Registry, subject: str, source: str) -> Baseline:
    """The subject's level and the versions a registration would be checked against, from the repository.

    ``source`` names the registry in the notes, as ``registry check --registry-url`` names it.
    """
    level, existing = registry.compatibility_baseline(subject)
    versions = tuple(
        PreviousVersion(
            number=version,
            text=stored.schema,
            label=f"version {version}",
            schema_type=stored.schema_type,
            has_references=bool(stored.references),
        )
        for version, stored in existing
    )
    return Baseline(level=CompatibilityLevel(level), versions=versions, source=source)


def check_candidate(registry: Registry, candidate: Candidate, registry_url: str) -> CandidateCheck:
    """The check's result and report; ``registry_url`` is how people reach this registry (for the notes)."""
    result = check_file(
        candidate, candidate.text, baseline(registry, candidate.subject, f"registry {registry_url}")
    )
    return CandidateCheck(result, (*format_result(result), format_summary([result])))
