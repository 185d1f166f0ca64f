"""The example event schemas of ``schemas/`` pass the check they demonstrate, from their previous versions.

The quickstart registers ``examples/previous-schemas/<topic>.avsc`` first and the current files second, so
each example is a real evolution; this pins that every one is valid, documented, BACKWARD compatible and
adds fields only with defaults, and that a realistic mistake in one is reported at its line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from registry.cli import main
from registry.compatibility import CompatibilityLevel
from registry.schema_check.checker import Baseline, Policies, PreviousVersion, Status, check_file
from registry.schema_check.layout import discover, schema_file
from registry.schema_check.registry_source import RegistryClient, schema_body
from registry.schema_check.source_positions import Position
from tests.fixtures.registry_server import RegistryProcess

REPO_ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = discover(REPO_ROOT / "schemas")
PREVIOUS = REPO_ROOT / "examples" / "previous-schemas"
STRICT = Policies(require_docs=True, require_defaults=True)


def previous_baseline(path: Path) -> Baseline:
    previous = PREVIOUS / path.name
    kind = schema_file(path).schema_type
    versions = (PreviousVersion(1, previous.read_text(), "version 1", kind),) if previous.exists() else ()
    return Baseline(CompatibilityLevel.BACKWARD, versions, "examples/previous-schemas")


def test_there_are_examples_with_previous_versions() -> None:
    assert len(EXAMPLES) >= 3
    assert all((PREVIOUS / path.name).exists() for path in EXAMPLES)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.name)
def test_each_example_is_a_documented_compatible_evolution(path: Path) -> None:
    """Documented: every Avro field has a doc (the policies read Avro records; the JSON Schema example
    describes each property all the same)."""
    file = schema_file(path)
    result = check_file(file, path.read_text(), previous_baseline(path), STRICT, file.schema_type)
    assert result.status is Status.PASSED, result.findings
    compared = "compatible under BACKWARD with version 1 (examples/previous-schemas)"
    if file.kind.field_policies:
        assert result.notes == (compared,)
    else:
        policies = (
            f"--require-docs and --require-defaults read Avro records: not applied to {file.schema_type}"
        )
        assert result.notes == (policies, compared)
        if file.schema_type == "JSON":
            properties = json.loads(path.read_text())["properties"].values()
            assert all(isinstance(p.get("description"), str) for p in properties)


def test_dropping_a_default_from_the_page_view_example_is_reported_at_that_field() -> None:
    path = REPO_ROOT / "schemas" / "page_view.avsc"
    text = path.read_text()
    line_text = next(line for line in text.splitlines() if '"name": "referrer"' in line)
    assert '"default": null, ' in line_text
    broken = text.replace(line_text, line_text.replace('"default": null, ', ""))
    result = check_file(schema_file(path), broken, previous_baseline(path), STRICT)
    assert result.status is Status.INCOMPATIBLE
    (finding,) = result.findings
    line = text.splitlines().index(line_text) + 1
    assert finding.position == Position(line, line_text.index("{") + 1)
    assert finding.rule == "READER_FIELD_MISSING_DEFAULT_VALUE"
    assert "referrer" in finding.message


@pytest.mark.integration
def test_examples_check_and_push_against_a_registry_holding_their_previous_versions(
    registry_factory: Callable[..., RegistryProcess], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = registry_factory().url
    client = RegistryClient(url)
    for path in EXAMPLES:
        file = schema_file(path)
        client.register(file.subject, (PREVIOUS / path.name).read_text(), schema_body(file.schema_type))
    monkeypatch.chdir(REPO_ROOT)
    runner = CliRunner()

    checked = runner.invoke(main, ["check", "--registry-url", url, "--require-docs", "--require-defaults"])
    assert checked.exit_code == 0, checked.output
    assert f"{len(EXAMPLES)} schema files checked: all passed" in checked.output

    pushed = runner.invoke(main, ["push", "--registry-url", url])
    assert pushed.exit_code == 0, pushed.output
    assert pushed.output.count("registered version 2 (id ") == len(EXAMPLES)
    again = runner.invoke(main, ["push", "--registry-url", url])
    assert again.output.count("unchanged (version 2, id ") == len(EXAMPLES)
