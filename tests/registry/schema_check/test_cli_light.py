"""The commands stay cheap to load (``registry --help`` in a hook must not pay for HTTP or Avro)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from registry.schema_check.registry_source import RegistryClient

REPO_ROOT = Path(__file__).resolve().parents[3]


def test_loading_the_commands_imports_neither_http_nor_the_checker() -> None:
    probe = (
        "import sys, registry.schema_check.cli as cli; "
        "heavy = [m for m in ('requests', 'registry.compatibility', 'registry.schema_check.checker') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_credentials_in_the_registry_url_never_reach_messages() -> None:
    client = RegistryClient("https://ci-bot:s3cret@registry.example.com:8443/sr/")
    assert client.url == "https://ci-bot:s3cret@registry.example.com:8443/sr"
    assert client.public_url == "https://registry.example.com:8443/sr"
    assert RegistryClient("http://localhost:8081").public_url == "http://localhost:8081"
