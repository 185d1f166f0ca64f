"""The shipped alert rules are valid and do what their unit tests say (`promtool test rules`), and those
unit tests can fail: a rule with another threshold does not pass them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.fixtures.monitoring import RULES, TEST_THRESHOLDS, binary, rules_for_tests

UNIT_TESTS = RULES.with_name("loader-rules.test.yml")


def _promtool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([binary("promtool"), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_shipped_rules_are_valid_and_pass_their_unit_tests() -> None:
    checked = _promtool("check", "rules", RULES.name, cwd=RULES.parent)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "SUCCESS: 7 rules found" in checked.stdout
    tested = _promtool("test", "rules", UNIT_TESTS.name, cwd=RULES.parent)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_the_unit_tests_fail_for_a_rule_that_alerts_at_another_threshold(tmp_path: Path) -> None:
    shutil.copy(UNIT_TESTS, tmp_path / UNIT_TESTS.name)
    (tmp_path / RULES.name).write_text(rules_for_tests(RULES.read_text()))  # the integration tests' copy
    tested = _promtool("test", "rules", UNIT_TESTS.name, cwd=tmp_path)
    assert tested.returncode != 0
    assert "LoaderNotSucceeding" in tested.stdout + tested.stderr
    assert set(TEST_THRESHOLDS) == {"LoaderNotSucceeding"}
