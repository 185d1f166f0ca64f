"""The registry's web page for people, at ``/ui/``: subjects, versions, diffs, schema checks, schemas by id.

Server-rendered with Flask and Jinja (no JavaScript build, and every page works with JavaScript off; a
small script only filters as you type and adds copy buttons). A blueprint of its own beside the JSON API:
it reads through the same repository and service code, and answers with HTML pages, also for errors, under
a Content-Security-Policy that allows no inline script. Its only writes are an admin's (``admin``): a
subject's level and mode, and deleting versions, through the same repository calls as the API.

What a page shows is computed without Flask, from the repository: ``browsing`` (subjects, versions,
search), ``candidate`` (a candidate schema checked as the pre-commit check would), ``version_summary``,
``contract_view`` and ``contract_diff`` (what changed between versions), ``field_tree`` (a schema's fields
as a tree); ``views`` and ``admin`` are the Flask glue.
"""

from __future__ import annotations

from flask import Flask

from registry.ui import admin  # noqa: F401  (its routes join the page's blueprint)
from registry.ui.urls import SubjectConverter
from registry.ui.views import bp

__all__ = ["install_ui"]


def install_ui(app: Flask) -> None:
    """Mounts the page on ``app`` (the converter first: the page's routes are compiled with it)."""
    app.url_map.converters["subject"] = SubjectConverter
    app.register_blueprint(bp)
