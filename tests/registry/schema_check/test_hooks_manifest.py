"""``.pre-commit-hooks.yaml`` is a manifest pre-commit accepts, naming commands that exist."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from click.testing import CliRunner
from pre_commit.clientlib import load_manifest

from registry.cli import main

MANIFEST = Path(__file__).resolve().parents[3] / ".pre-commit-hooks.yaml"


def test_manifest_offers_both_hooks_on_schema_and_contract_files_only() -> None:
    hooks = {hook["id"]: hook for hook in load_manifest(str(MANIFEST))}
    assert set(hooks) == {"avro-schema-check", "avro-schema-check-offline"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is True
        assert re.search(hook["files"], "schemas/ads/ad_click.avsc")
        assert re.search(hook["files"], "schemas/ads/ad_click.meta.json")
        assert re.search(hook["files"], "schemas/ads/ad_click.proto")
        assert re.search(hook["files"], "schemas/ad_click.json")
        assert re.search(hook["files"], "service/schemas/ad_click.key.json")
        assert not re.search(hook["files"], "package.json")  # JSON and .proto files elsewhere are not schemas
        assert not re.search(hook["files"], "api/service.proto")
        assert not re.search(hook["files"], "schemas/README.md")
        assert not re.search(hook["files"], "schemas/page_view.avsc.orig")


def test_hook_entries_are_valid_invocations_of_the_installed_command() -> None:
    for hook in load_manifest(str(MANIFEST)):
        program, *args = shlex.split(hook["entry"])
        assert program == "registry"
        result = CliRunner().invoke(main, [*args, "--help"])
        assert result.exit_code == 0, result.output
