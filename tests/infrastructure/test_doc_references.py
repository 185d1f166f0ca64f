"""The code's references to a section of the benchmarks' pages name a section that page has.

Comments cite measurements as `benchmarks/JOURNAL.md, "Section"`: the current figures live in
benchmarks/README.md and the experiment history in benchmarks/JOURNAL.md, so a section that moves from
one to the other, or is renamed, must take its references along."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("loader", "registry", "pipeline_client", "jvm", "benchmarks", "scripts")
SUFFIXES = {".py", ".java", ".sh", ""}
REFERENCE = re.compile(r'benchmarks/(README|JOURNAL)\.md(?:,\s*|\s*\()"([^"]+)"')
CONTINUATION = re.compile(r"\n[ \t]*(?:#|\*|//)?[ \t]*")


def _headings(page: str) -> list[str]:
    text = (REPO / "benchmarks" / f"{page}.md").read_text()
    return [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]


def _references() -> list[tuple[str, str, str]]:
    found = []
    for root in SOURCES:
        for path in sorted((REPO / root).rglob("*")):
            if not path.is_file() or path.suffix not in SUFFIXES or ".venv" in path.parts:
                continue
            try:
                text = path.read_text()
            except UnicodeDecodeError:
                continue
            for match in REFERENCE.finditer(text):
                section = CONTINUATION.sub(" ", match.group(2)).strip()
                found.append((str(path.relative_to(REPO)), match.group(1), section))
    return found


def test_the_code_cites_sections_of_the_benchmarks_pages() -> None:
    references = _references()
    assert len(references) >= 10, references  # the pattern still finds the citations the code has


def test_every_cited_section_is_on_the_page_cited() -> None:
    headings = {page: _headings(page) for page in ("README", "JOURNAL")}
    missing = [
        f"{path}: benchmarks/{page}.md has no section {section!r}"
        for path, page, section in _references()
        if not any(heading.startswith(section) for heading in headings[page])
    ]
    assert not missing, "\n".join(missing)
