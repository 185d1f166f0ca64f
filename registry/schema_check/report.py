"""How results read: ``path:line:column: message [rule]`` then ``fix: ...``, as compilers and linters write.

That shape is what editors, terminals and CI annotate and jump to; the rule name lets people search the
docs, and the fix line is there because the person reading it is in the middle of a commit.
"""

from __future__ import annotations

from collections.abc import Sequence

from registry.schema_check.checker import FileResult, Finding, Status
from registry.schema_check.source_positions import NOWHERE

__all__ = ["format_findings", "format_result", "format_summary"]


def format_findings(display: str, findings: Sequence[Finding]) -> list[str]:
    """``path:line:column: message [rule]`` per finding (``path: message [rule]`` for one about the file as
    a whole), each followed by its ``fix:`` line."""
    lines: list[str] = []
    for finding in findings:
        position = finding.position
        where = finding.path_display or display
        if position != NOWHERE:
            where = f"{where}:{position.line}:{position.column}"
        lines.append(f"{where}: {finding.message} [{finding.rule}]")
        if finding.hint:
            lines.append(f"    fix: {finding.hint}")
    return lines


def format_result(result: FileResult) -> list[str]:
    """The lines for one file: each finding (with its fix), then one status line with the notes."""
    display = result.file.display
    lines = format_findings(display, result.findings)
    verdict = "ok" if result.status is Status.PASSED else result.status.value
    details = "; ".join([result.file.subject, *result.notes])
    lines.append(f"{display}: {verdict} ({details})")
    return lines


def format_summary(results: Sequence[FileResult]) -> str:
    """One closing line: how many files, how many failed."""
    failed = sum(1 for result in results if result.failed)
    noun = "file" if len(results) == 1 else "files"
    if not failed:
        return f"{len(results)} schema {noun} checked: all passed"
    return f"{len(results)} schema {noun} checked: {failed} failed"
