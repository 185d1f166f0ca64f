"""The suite's two tiers, and what each run of it cost.

The default tier (`scripts/test`, what CI runs) proves every documented behaviour at least once; the full
tier (`scripts/test --full`) adds the exhaustive forms of the same proofs: a kill at every step instead of
at the steps whose state differs, the cluster, the fuzzing, property and differential tests at full size.
A test, or one case of a parametrized test, joins the full tier with the `full` mark; docs/development.md
says which tier a new test joins. Without `--full` pytest deselects the marked ones and says how many.
A case marked `line_smoke` is the default tier's smoke of another Spark line's (one kill where the
default line's tests kill at a few steps): only a run with `--line-smoke` keeps it.

Each run also sums its tests' time by file and prints the ten costliest (`TEST_FILE_TIMES` names a JSON
file to add them to, so that `scripts/test` can print the whole tier's, over its pytest runs).
"""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

FULL = pytest.mark.full
FULL_OPTION = "--full"
LINE_SMOKE = pytest.mark.line_smoke
LINE_SMOKE_OPTION = "--line-smoke"
TIMES_ENV = "TEST_FILE_TIMES"
# Hypothesis's examples per property: the default tier's, and the full tier's (its fuzzing at full size).
settings.register_profile(
    "default-tier", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "full-tier", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def in_default_tier(values: Iterable[Any], count: int) -> list[Any]:
    """The cases of a parametrized test: the first `count` in the default tier, the others in the full
    one (a loop over generated chunks, say, whose first chunks prove the behaviour)."""
    return [value if i < count else pytest.param(value, marks=FULL) for i, value in enumerate(values)]


def steps_by_tier(own: tuple[str, ...], every: tuple[str, ...], own_id: str = "its-own-steps") -> list[Any]:
    """The cases of a kill test: at the steps whose state is the test's own in the default tier (`own`),
    at every step in the full tier (`every`, id `every-step`)."""
    return [pytest.param(own, id=own_id), pytest.param(every, id="every-step", marks=FULL)]


def full_tier(config: pytest.Config) -> bool:
    return bool(config.getoption(FULL_OPTION))


@pytest.fixture(scope="session")
def in_full_tier(request: pytest.FixtureRequest) -> bool:
    """Whether this is the full tier's run: for a test whose size, not whose cases, differs by tier."""
    return full_tier(request.config)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        FULL_OPTION,
        action="store_true",
        help="the full tier: the tests marked `full` too, and the fuzzing at full size (scripts/test --full)",
    )
    parser.addoption(
        LINE_SMOKE_OPTION,
        action="store_true",
        help="keep the cases marked `line_smoke`: the smoke of another Spark line (scripts/test names them)",
    )


def pytest_configure(config: pytest.Config) -> None:
    settings.load_profile("full-tier" if full_tier(config) else "default-tier")
    if not hasattr(config, "workerinput"):  # the run's own process: pytest-xdist's workers report to it
        config.pluginmanager.register(FileTimes(), "file-times")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption(LINE_SMOKE_OPTION):
        _deselect(config, items, "line_smoke")
    if not full_tier(config):
        config.stash[_LEFT_OUT] = _deselect(config, items, "full")


def _deselect(config: pytest.Config, items: list[pytest.Item], mark: str) -> int:
    """Deselects the items marked `mark`: how many."""
    left_out = [item for item in items if item.get_closest_marker(mark) is not None]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if item.get_closest_marker(mark) is None]
    return len(left_out)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    left_out = config.stash.get(_LEFT_OUT, 0)
    if left_out:
        terminalreporter.write_line(
            f"{left_out} tests of the full tier deselected (scripts/test --full runs them)"
        )


_LEFT_OUT = pytest.StashKey[int]()


class FileTimes:
    """Sums each file's tests' time (set-up and tear-down included) and prints the ten costliest."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid.split("::")[0]] += report.duration

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.seconds:
            return
        terminalreporter.write_line(costliest(self.seconds))
        if os.environ.get(TIMES_ENV):
            add_times(Path(os.environ[TIMES_ENV]), self.seconds)


def costliest(seconds: dict[str, float], count: int = 10) -> str:
    """The `count` files whose tests took longest, as a table."""
    rows = sorted(seconds.items(), key=lambda row: -row[1])[:count]
    lines = [f"the {len(rows)} slowest test files (seconds of a test worker, set-up and tear-down included):"]
    lines += [f"{spent:8.1f}  {name}" for name, spent in rows]
    return "\n".join(lines)


def add_times(path: Path, seconds: dict[str, float]) -> None:
    """Adds this run's seconds by file to those `path` holds (another pytest run's of the same tier)."""
    found: dict[str, float] = json.loads(path.read_text()) if path.exists() and path.stat().st_size else {}
    for name, spent in seconds.items():
        found[name] = found.get(name, 0.0) + spent
    path.write_text(json.dumps(found))


if __name__ == "__main__":  # python -m tests.tiers FILE: the ten slowest files of a tier's pytest runs
    print(costliest(json.loads(Path(sys.argv[1]).read_text())))
