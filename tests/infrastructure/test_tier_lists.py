"""The test files and tests `scripts/test` names (the loader's core on another Spark line, its smoke) are
there: a file moved or a test renamed would leave the line's run with nothing to collect, found only by
the full tier's last step."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NAMED = re.compile(r"(tests/[\w/]+\.py)(?:::(\w+))?")


def test_every_test_scripts_test_names_exists() -> None:
    named = NAMED.findall((REPO / "scripts" / "test").read_text())
    assert len(named) >= 10, "scripts/test names the loader's core and its smoke"
    missing = []
    for file, test in named:
        path = REPO / file
        if not path.is_file():
            missing.append(file)
        elif test and not re.search(rf"^def {test}\(", path.read_text(), re.MULTILINE):
            missing.append(f"{file}::{test}")
    assert missing == []
