"""The page in-process on a fresh SQLite file per test, filled through the JSON API like a client would;
and, for the browser tests, a watched Chromium page that saves screenshots."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from playwright.sync_api import Browser, BrowserContext, Page

from registry.api import create_app
from registry.config import RegistryConfig


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    application = create_app(
        RegistryConfig(
            database_url=f"sqlite:///{tmp_path / 'registry.db'}",
            max_body_bytes=64 * 1024,
            max_schema_chars=16 * 1024,
            max_json_depth=32,
        )
    )
    yield application
    application.extensions["registry"].db.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


class Watched:
    """A page whose console errors and uncaught errors are collected, and which saves screenshots."""

    def __init__(self, context: BrowserContext, shots: Path) -> None:
        self.page: Page = context.new_page()
        self.problems: list[str] = []
        self.dialogs: list[str] = []
        self.shots = shots
        self.page.on("console", lambda m: self.problems.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda error: self.problems.append(str(error)))
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def shot(self, name: str) -> Path:
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000, "a screenshot of a rendered page, not a blank one"
        return path


@pytest.fixture
def watched(browser: Browser, tmp_path: Path) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        yield Watched(context, tmp_path)
    finally:
        context.close()


SCREENSHOTS = Path(__file__).resolve().parents[3] / ".cache" / "ui-screenshots"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Says where the layout tests left their screenshots (a git-ignored folder of the checkout)."""
    if SCREENSHOTS.is_dir() and any(SCREENSHOTS.rglob("*.png")):
        terminalreporter.write_line(f"registry page screenshots (360 px and 1,400 px): {SCREENSHOTS}")
